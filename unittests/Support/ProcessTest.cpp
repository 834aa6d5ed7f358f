//===-- ProcessTest.cpp - Child processes with limits ---------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/Process.h"
#include "gtest/gtest.h"
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <thread>
#include <unistd.h>

using namespace maxcode;

namespace {

ProcessResult run(std::vector<std::string> Argv, ProcessLimits L = {}) {
  ProcessSpec S;
  S.Argv = std::move(Argv);
  S.Limits = L;
  auto R = runProcess(S);
  EXPECT_TRUE(bool(R)) << llvm::toString(R.takeError());
  return R ? *R : ProcessResult();
}

// DESIGN section 7: a child starts from an allow-list of variables, with
// descriptors 0-2 only, in a session of its own.
TEST(ProcessTest, ChildrenStartFromTheAllowList) {
  ::setenv("MAXCODE_TEST_SECRET", "s3cr3t", 1);
  ::setenv("MAXCODE_PASSED_A", "a", 1);
  ProcessSpec S;
  S.Argv = {"/bin/sh", "-c", "env"};
  auto R = runProcess(S);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Stdout.find("s3cr3t"), std::string::npos);
  EXPECT_NE(R->Stdout.find("PATH="), std::string::npos);
  S.PassEnv = {"MAXCODE_PASSED_*"};
  R = runProcess(S);
  ASSERT_TRUE(bool(R));
  EXPECT_NE(R->Stdout.find("MAXCODE_PASSED_A=a"), std::string::npos);
  EXPECT_EQ(R->Stdout.find("s3cr3t"), std::string::npos);
  S.PassEnv.clear();
  S.InheritEnvironment = true;
  R = runProcess(S);
  ASSERT_TRUE(bool(R));
  EXPECT_NE(R->Stdout.find("s3cr3t"), std::string::npos);
  ::unsetenv("MAXCODE_TEST_SECRET");
  ::unsetenv("MAXCODE_PASSED_A");
}

TEST(ProcessTest, ChildrenGetThreeDescriptorsAndASessionOfTheirOwn) {
  // A descriptor of ours, not close-on-exec, that a child must not get.
  int Leak = ::open("/dev/null", O_RDONLY);
  ASSERT_GE(Leak, 3);
  ProcessResult R = run({"/bin/sh", "-c",
                         "ls /proc/self/fd | sort -n | tr '\\n' ' '; "
                         "echo; ps -o sid= -p $$; echo $$"});
  ::close(Leak);
  llvm::SmallVector<llvm::StringRef, 3> Lines;
  llvm::StringRef(R.Stdout).split(Lines, '\n', -1, false);
  ASSERT_EQ(Lines.size(), 3u) << R.Stdout;
  // 0-2, and the one ls opened to list them.
  EXPECT_EQ(Lines[0].trim(), "0 1 2 3");
  EXPECT_EQ(Lines[1].trim(), Lines[2].trim()) << "not a session leader";
}

TEST(ProcessTest, AReportPipeIsDescriptorThree) {
  ProcessSpec S;
  S.Argv = {"/bin/sh", "-c", "echo report >&3; echo out"};
  S.ReportPipe = true;
  auto R = runProcess(S);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Report, "report\n");
  EXPECT_EQ(R->Stdout, "out\n");
}

TEST(ProcessTest, CapturesOutputAndExitCode) {
  ProcessResult R = run({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(R.ExitCode, 3);
  EXPECT_EQ(R.Stdout, "out\n");
  EXPECT_EQ(R.Stderr, "err\n");
  EXPECT_FALSE(R.succeeded());
  EXPECT_EQ(R.describe(), "exited with code 3");
}

TEST(ProcessTest, TimeoutKillsTheWholeGroup) {
  ProcessLimits L;
  L.WallSeconds = 0.5;
  // The grandchild holds stdout open; the run must still end at the deadline.
  ProcessResult R = run({"/bin/sh", "-c", "sleep 30 & sleep 30"}, L);
  EXPECT_TRUE(R.TimedOut);
  EXPECT_LT(R.WallSeconds, 5.0);
}

TEST(ProcessTest, CancelKillsTheWholeGroup) {
  std::atomic<bool> Cancel{false};
  ProcessSpec S;
  S.Argv = {"/bin/sh", "-c", "sleep 30 & sleep 30"};
  S.Cancel = &Cancel;
  std::thread Canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    Cancel = true;
  });
  auto R = runProcess(S);
  Canceller.join();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->Cancelled);
  EXPECT_FALSE(R->succeeded());
  EXPECT_EQ(R->Signal, 0);
  EXPECT_EQ(R->describe(), "cancelled");
  EXPECT_LT(R->WallSeconds, 5.0);
}

TEST(ProcessTest, OutputIsCapped) {
  ProcessLimits L;
  L.OutputBytes = 1 << 16;
  L.WallSeconds = 20;
  ProcessResult R = run({"/bin/sh", "-c", "yes xxxxxxxxxxxxxxxx"}, L);
  EXPECT_TRUE(R.OutputLimitExceeded);
  EXPECT_EQ(R.Stdout.size(), size_t(1 << 16));
}

TEST(ProcessTest, ReportsSignals) {
  ProcessResult R = run({"/bin/sh", "-c", "kill -SEGV $$"});
  EXPECT_EQ(R.Signal, SIGSEGV);
  EXPECT_NE(R.describe().find("signal 11"), std::string::npos);
}

TEST(ProcessTest, MissingProgramIsAnError) {
  ProcessSpec S;
  S.Argv = {"maxcode-no-such-program"};
  auto R = runProcess(S);
  ASSERT_FALSE(bool(R));
  EXPECT_NE(llvm::toString(R.takeError()).find("maxcode-no-such-program"),
            std::string::npos);
}

TEST(ProcessTest, StdinAndEnvironment) {
  ProcessSpec S;
  S.Argv = {"/bin/sh", "-c", "cat; echo $MAXCODE_TEST_VAR"};
  S.StdinFile = "/etc/hostname";
  S.Env = {{"MAXCODE_TEST_VAR", "hello"}};
  auto R = runProcess(S);
  ASSERT_TRUE(bool(R));
  EXPECT_NE(R->Stdout.find("hello"), std::string::npos);
}

TEST(ProcessTest, SplitsAndQuotesCommandLines) {
  std::vector<std::string> W = splitCommandLine("a 'b c' \"d e\" f\\ g");
  ASSERT_EQ(W.size(), 4u);
  EXPECT_EQ(W[1], "b c");
  EXPECT_EQ(W[2], "d e");
  EXPECT_EQ(W[3], "f g");
  EXPECT_EQ(shellQuote("plain"), "plain");
  EXPECT_EQ(shellQuote("it's"), "'it'\\''s'");
}

} // namespace
