//===-- SandboxTest.cpp - What a variant's run can reach ------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The sandbox's policy as bubblewrap's command line, a real run inside it
// where bubblewrap works here, the supervisor's report as it is read, and
// the scratch folders' lifetime.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/Sandbox.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <optional>

using namespace maxcode;

namespace {

/// Whether \p Argv holds \p Flag followed by \p Args.
bool hasSequence(llvm::ArrayRef<std::string> Argv,
                 std::initializer_list<llvm::StringRef> Seq) {
  for (size_t I = 0; I + Seq.size() <= Argv.size(); ++I)
    if (llvm::equal(
            Argv.slice(I, Seq.size()), Seq,
            [](const std::string &A, llvm::StringRef B) { return A == B; }))
      return true;
  return false;
}

class SandboxTest : public ::testing::Test {
protected:
  void SetUp() override {
    // Under /tmp would be the sandbox's own private /tmp: a folder of the
    // build tree's is what a real scratch folder is.
    llvm::SmallString<128> Cwd;
    ASSERT_FALSE(llvm::sys::fs::current_path(Cwd));
    ASSERT_FALSE(
        llvm::sys::fs::createUniqueDirectory(Cwd + "/sandbox-test", Dir));
    // The folder shown read-only holds the expected output; the run's own
    // folder is beside it (a folder that holds a run's folder would show
    // the other runs': never bound).
    Shown = (Dir + "/shown").str();
    // Readable by all, as a project's folders are; the folder above it is
    // not (a 0700 temporary folder), which the sandbox makes reachable.
    ASSERT_FALSE(llvm::sys::fs::create_directory(
        Shown, /*IgnoreExisting=*/false,
        llvm::sys::fs::all_read | llvm::sys::fs::all_exe |
            llvm::sys::fs::owner_write));
    Secret = Shown + "/expected.out";
    // As root, the run goes as the scratch folder's own user, as the
    // evaluator's do.
    auto W = ScratchDir::create("work", Dir);
    ASSERT_TRUE(bool(W)) << llvm::toString(W.takeError());
    Scratch.emplace(std::move(*W));
    Work = Scratch->path();
    std::error_code EC;
    llvm::raw_fd_ostream(Secret, EC) << "the answer\n";
    ASSERT_FALSE(EC);
  }
  void TearDown() override {
    Scratch.reset();
    llvm::sys::fs::remove_directories(Dir);
  }

  SandboxPolicy policy() const {
    SandboxPolicy P;
    P.Mode = SandboxMode::Bwrap;
    P.ReadOnly = {Shown};
    P.Writable = {Work};
    P.Hidden = {Secret};
    P.Uid = P.Gid = Scratch->uid();
    return P;
  }

  llvm::SmallString<128> Dir;
  std::string Shown, Secret, Work;
  std::optional<ScratchDir> Scratch;
};

TEST_F(SandboxTest, BwrapArgvClosesTheMachine) {
  ProcessSpec S;
  S.Argv = {"/bin/true"};
  S.WorkingDir = Work;
  ProcessSpec Out = sandboxed(S, policy());
  ASSERT_FALSE(Out.Argv.empty());
  EXPECT_EQ(Out.Argv.front(), "bwrap");
  // Every namespace of its own (no network among them), no capability.
  EXPECT_TRUE(hasSequence(Out.Argv, {"--unshare-all"}));
  EXPECT_TRUE(hasSequence(Out.Argv, {"--cap-drop", "ALL"}));
  EXPECT_TRUE(hasSequence(Out.Argv, {"--die-with-parent"}));
  EXPECT_FALSE(llvm::is_contained(Out.Argv, "--share-net"));
  // A private /tmp of the policy's size.
  EXPECT_TRUE(hasSequence(
      Out.Argv, {"--size", std::to_string(256u << 20), "--tmpfs", "/tmp"}));
  // The expected output is covered, after the folder that holds it is
  // shown: bwrap mounts in order, each over the ones before.
  auto At = [&](std::initializer_list<llvm::StringRef> Seq) {
    for (size_t I = 0; I + Seq.size() <= Out.Argv.size(); ++I)
      if (hasSequence(llvm::ArrayRef(Out.Argv).slice(I, Seq.size()), Seq))
        return I;
    return Out.Argv.size();
  };
  size_t ShownAt = At({"--ro-bind", Shown, Shown});
  size_t Covered = At({"--ro-bind", "/dev/null", Secret});
  EXPECT_LT(ShownAt, Out.Argv.size());
  EXPECT_LT(Covered, Out.Argv.size());
  EXPECT_LT(ShownAt, Covered);
  EXPECT_TRUE(hasSequence(Out.Argv, {"--bind", Work, Work}));
  // The command itself comes last, after the separator.
  EXPECT_EQ(Out.Argv.back(), "/bin/true");
  EXPECT_TRUE(Out.WorkingDir.empty()); // bwrap's --chdir instead.
}

TEST_F(SandboxTest, NoSandboxLeavesTheCommandAsItIs) {
  ProcessSpec S;
  S.Argv = {"/bin/true"};
  SandboxPolicy P = policy();
  P.Mode = SandboxMode::None;
  EXPECT_EQ(sandboxed(S, P).Argv, S.Argv);
}

TEST_F(SandboxTest, ARunInsideSeesNeitherTheSecretNorTheNetwork) {
  auto Mode = resolveSandboxMode(SandboxMode::Auto, OptionNames::Flags);
  if (!Mode || *Mode != SandboxMode::Bwrap) {
    if (!Mode)
      llvm::consumeError(Mode.takeError());
    GTEST_SKIP() << "bubblewrap does not run here";
  }
  ProcessSpec S;
  S.Argv = {"/bin/sh", "-c",
            "cat '" + Secret + "'; echo written > '" + Work +
                "/out'; echo tmp > /tmp/t && cat /tmp/t; "
                "echo x > '" +
                Shown +
                "/escape' 2>/dev/null || echo read-only; "
                "sed -n '3,$p' /proc/net/dev | cut -d: -f1 | tr -d ' '"};
  S.WorkingDir = Work;
  S.Limits.WallSeconds = 30;
  auto R = runProcess(sandboxed(S, policy()));
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->succeeded()) << R->Stderr;
  // The secret reads empty; the writable folder takes a file; /tmp is the
  // run's own; the shown folder is read-only; only loopback is there.
  EXPECT_EQ(R->Stdout, "tmp\nread-only\nlo\n");
  EXPECT_TRUE(llvm::sys::fs::exists(Work + "/out"));
  EXPECT_FALSE(llvm::sys::fs::exists(Shown + "/escape"));
}

TEST(SupervisorReportTest, ReadsAWholeReport) {
  auto R = parseSupervisorReport(
      "maxcode-timer-report 1\nwall_ns 1500000000\nuser_us 250000\n"
      "system_us 50000\nmaxrss_kb 2048\nexit 3\nsignal 0\nmain_pid 42\n"
      "killed 0\ntimed_out 0\nlog_bytes 4\nlog!");
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_DOUBLE_EQ(R->WallSeconds, 1.5);
  EXPECT_DOUBLE_EQ(R->UserSeconds, 0.25);
  EXPECT_DOUBLE_EQ(R->SystemSeconds, 0.05);
  EXPECT_EQ(R->MaxRSSBytes, 2048u * 1024);
  EXPECT_EQ(R->ExitCode, 3);
  EXPECT_EQ(R->MainPid, 42);
  EXPECT_FALSE(R->Killed);
  EXPECT_EQ(R->Log, "log!");
}

/// \p Text with its first \p From written as \p To.
std::string replaced(llvm::StringRef Text, llvm::StringRef From,
                     llvm::StringRef To) {
  size_t At = Text.find(From);
  EXPECT_NE(At, llvm::StringRef::npos) << From.str();
  return (Text.take_front(At) + To + Text.drop_front(At + From.size())).str();
}

TEST(SupervisorReportTest, RefusesWhatIsNotOne) {
  const char *Whole = "maxcode-timer-report 1\nwall_ns 1\nuser_us 1\n"
                      "system_us 1\nmaxrss_kb 1\nexit 0\nsignal 0\n"
                      "main_pid 7\nkilled 0\ntimed_out 0\nlog_bytes 0\n";
  ASSERT_TRUE(bool(parseSupervisorReport(Whole)));
  struct {
    std::string Text;
    llvm::StringRef Why;
  } Cases[] = {
      {"", "missing"},
      {"some program's output\n", "not a maxcode-timer report"},
      // A key out of order or absent.
      {replaced(Whole, "user_us", "usr_us"), "'user_us'"},
      // A log longer or shorter than it says: a run that wrote into the
      // report's descriptor.
      {std::string(Whole) + "extra", "inconsistent"},
      {replaced(Whole, "main_pid 7", "main_pid 0"), "inconsistent"},
      {replaced(Whole, "wall_ns 1\n", "wall_ns -5\n"), "inconsistent"},
  };
  for (const auto &C : Cases) {
    auto R = parseSupervisorReport(C.Text);
    ASSERT_FALSE(bool(R)) << C.Text;
    std::string Message = llvm::toString(R.takeError());
    EXPECT_NE(Message.find(C.Why), std::string::npos) << Message;
  }
}

TEST(ScratchDirTest, RemovedUnlessKept) {
  llvm::SmallString<128> Cwd;
  ASSERT_FALSE(llvm::sys::fs::current_path(Cwd));
  std::string Gone, Kept;
  {
    auto A = ScratchDir::create("maxcode-unit", Cwd);
    ASSERT_TRUE(bool(A)) << llvm::toString(A.takeError());
    Gone = A->path();
    std::error_code EC;
    llvm::raw_fd_ostream(Gone + "/file", EC) << "x";
    ASSERT_FALSE(EC);
    auto B = ScratchDir::create("maxcode-unit", Cwd);
    ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
    EXPECT_NE(B->path(), Gone);
    Kept = B->path();
    B->keep();
    // Moved, it is removed once, by its new owner.
    ScratchDir C = std::move(*A);
    EXPECT_TRUE(llvm::sys::fs::is_directory(Gone));
  }
  EXPECT_FALSE(llvm::sys::fs::exists(Gone));
  EXPECT_TRUE(llvm::sys::fs::is_directory(Kept));
  llvm::sys::fs::remove_directories(Kept);
}

} // namespace
