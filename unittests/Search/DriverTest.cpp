//===-- DriverTest.cpp - One answer per question, and a session -----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The driver's decisions every mode shares (the run mode, the store's
// place), and one session end to end: a program and its tests, an edited
// copy evaluated as a winner is, with the real compiler, sandbox and
// supervisor.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Search/Driver.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <cstdlib>
#include <set>
#include <type_traits>

using namespace maxcode;

namespace {

/// Values of \p D's type other than it, for row \p I to try until one is
/// valid.
std::vector<bool> othersOf(bool D, const OptionInfo &) { return {!D}; }
std::vector<unsigned> othersOf(unsigned D, const OptionInfo &) {
  return {D + 1, D ? D - 1 : 2};
}
std::vector<uint64_t> othersOf(uint64_t D, const OptionInfo &) {
  return {D + 1};
}
std::vector<double> othersOf(double D, const OptionInfo &) {
  std::vector<double> R;
  for (double V : {D * 0.75, D * 1.5, D + 1, 0.5})
    if (V != D)
      R.push_back(V);
  return R;
}
std::vector<std::string> othersOf(const std::string &D, const OptionInfo &) {
  std::vector<std::string> R;
  for (const char *S : {"/x/y", "3G", "X_KEY", "*"})
    if (D != S)
      R.push_back(S);
  return R;
}
std::vector<StringList> othersOf(const StringList &, const OptionInfo &) {
  return {{"X"}, {"native"}};
}
std::vector<RuleOptionList> othersOf(const RuleOptionList &,
                                     const OptionInfo &) {
  return {{{"loop-unroll-pragma.Factors", "2"}}};
}
template <typename E>
std::enable_if_t<std::is_enum_v<E>, std::vector<E>>
othersOf(E D, const OptionInfo &I) {
  std::vector<E> R;
  for (llvm::StringRef Name : I.valueNames()) {
    auto V = parseOptionValue<E>(Name);
    if (!V) {
      ADD_FAILURE() << llvm::toString(V.takeError());
      continue;
    }
    if (*V != D)
      R.push_back(*V);
  }
  return R;
}

// A run takes the settings whole: every row, given a value other than its
// default, reads the same in the run's options, so that nothing between the
// model and the parts drops or rewrites a setting.
TEST(DriverTest, TheRunTakesEverySetting) {
  for (const OptionInfo &I : optionTable()) {
    SCOPED_TRACE(I.Key.str());
    bool Tried = false;
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)           \
  if (I.Key == #KEY)                                                           \
    for (const TYPE &V : othersOf(TYPE(DEFAULT), I)) {                         \
      EffectiveOptions E;                                                      \
      E.KEY = V;                                                               \
      RunOptions R;                                                            \
      if (llvm::Error Err = applyOptions(E, R)) {                              \
        llvm::consumeError(std::move(Err)); /* Not valid: the next. */         \
        continue;                                                              \
      }                                                                        \
      Tried = true;                                                            \
      EXPECT_TRUE(R.Settings.KEY == V);                                        \
      break;                                                                   \
    }
#include "maxcode/Support/Options.def"
    EXPECT_TRUE(Tried) << "no valid value other than the default to try";
  }
  // What the model cannot check, the run does: a rule's option names a
  // rule and a key it has.
  EffectiveOptions E;
  E.CheckOptions = {{"no-such-rule.Key", "1"}};
  RunOptions R;
  llvm::Error Err = applyOptions(E, R);
  ASSERT_TRUE(bool(Err));
  EXPECT_NE(llvm::toString(std::move(Err)).find("no-such-rule"),
            std::string::npos);
}

// Every row is read where it acts. The parts read their settings as plain
// fields of an EffectiveOptions named Settings (RunOptions::Settings,
// EvalConfig::Settings, SearchConfig::Settings, a parameter so named), so
// what reads a row is what the code says: a row that no file under lib/ or
// tools/ reads, beside the model's own files that handle every row through
// Options.def, does nothing, and fails here.
TEST(DriverTest, EveryRowIsRead) {
  std::set<std::string> Read;
  llvm::Regex Use("Settings\\.([A-Za-z0-9]+)");
  for (const char *Top : {"lib", "tools"}) {
    std::error_code EC;
    llvm::SmallString<256> Root(MAXCODE_SOURCE_DIR);
    llvm::sys::path::append(Root, Top);
    for (llvm::sys::fs::recursive_directory_iterator It(Root, EC), End;
         It != End && !EC; It.increment(EC)) {
      llvm::StringRef Path = It->path();
      llvm::StringRef Name = llvm::sys::path::filename(Path);
      if (!Path.ends_with(".cpp") && !Path.ends_with(".h"))
        continue;
      if (Name == "Options.cpp" || Name == "Config.cpp" ||
          Name == "OptionFlags.cpp")
        continue;
      auto Buf = llvm::MemoryBuffer::getFile(Path);
      ASSERT_TRUE(bool(Buf)) << Path.str();
      llvm::StringRef Text = (*Buf)->getBuffer();
      llvm::SmallVector<llvm::StringRef, 2> M;
      while (Use.match(Text, &M)) {
        Read.insert(M[1].str());
        Text = Text.substr(M[0].end() - Text.begin());
      }
    }
    ASSERT_FALSE(EC) << EC.message();
  }
  for (const OptionInfo &I : optionTable())
    EXPECT_TRUE(Read.count(I.Key.str()))
        << I.Key.str() << ": no part reads the row";
}

TEST(DriverTest, RunModeIsDecidedOnce) {
  struct {
    const char *Tests, *BuildCmd, *ProjectRoot;
    RunMode Mode;
  } Rows[] = {
      {"", "", "", RunMode::ReadOnly},
      {"tests", "", "", RunMode::Program},
      {"", "make", "", RunMode::Project},
      {"", "", "/src", RunMode::Project},
      // --tests names the program's inputs: it wins over the project's
      // options, for the search and --list-variants alike.
      {"tests", "make", "/src", RunMode::Program},
  };
  for (const auto &R : Rows) {
    RunOptions O;
    O.Settings.Tests = R.Tests;
    O.Settings.BuildCommand = R.BuildCmd;
    O.Settings.ProjectRoot = R.ProjectRoot;
    EXPECT_EQ(int(runModeOf(O)), int(R.Mode))
        << R.Tests << "|" << R.BuildCmd << "|" << R.ProjectRoot;
  }
}

class DriverFilesTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> Cwd;
    ASSERT_FALSE(llvm::sys::fs::current_path(Cwd));
    ASSERT_FALSE(
        llvm::sys::fs::createUniqueDirectory(Cwd + "/driver-test", Dir));
    // Readable by all, as a project's folders are: as root, builds and runs
    // go as the sandbox's own user.
    for (const char *Sub : {"src", "build", "cache", "tests"})
      ASSERT_FALSE(
          llvm::sys::fs::create_directory(Dir + "/" + Sub, false, readable()));
    Source = (Dir + "/src/a.cpp").str();
    write(Source, "int f(int x) { return x + 1; }\n");
    if (const char *Old = std::getenv("XDG_CACHE_HOME"))
      OldCache = Old;
    setenv("XDG_CACHE_HOME", (Dir + "/cache").str().c_str(), 1);
  }
  void TearDown() override {
    if (OldCache)
      setenv("XDG_CACHE_HOME", OldCache->c_str(), 1);
    else
      unsetenv("XDG_CACHE_HOME");
    llvm::sys::fs::remove_directories(Dir);
  }
  static void write(llvm::StringRef Path, llvm::StringRef Text) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC) << Path.str();
    OS << Text;
  }

  static llvm::sys::fs::perms readable() {
    using namespace llvm::sys::fs;
    return all_read | all_exe | owner_write;
  }
  llvm::SmallString<128> Dir;
  std::string Source;
  std::optional<std::string> OldCache;
};

TEST_F(DriverFilesTest, TheStoreIsNeverInTheSourceTree) {
  RunOptions O;
  O.Sources = {Source};
  // A build folder of its own keeps it.
  O.BuildPath = (Dir + "/build").str();
  EXPECT_EQ(defaultStorePath(O),
            (Dir + "/build/.clang-maxcode/rollouts.sqlite").str());
  // A database beside the sources (a Make project): the user's cache, a
  // folder per database folder.
  O.BuildPath = (Dir + "/src").str();
  std::string InCache = defaultStorePath(O);
  EXPECT_TRUE(llvm::StringRef(InCache).starts_with(
      (Dir + "/cache/clang-maxcode/projects/src-").str()))
      << InCache;
  EXPECT_TRUE(llvm::StringRef(InCache).ends_with("/rollouts.sqlite"));
  EXPECT_FALSE(llvm::StringRef(InCache).starts_with((Dir + "/src/").str()));
  // The same folder by another path (a link) is the same store.
  ASSERT_FALSE(llvm::sys::fs::create_link(Dir + "/src", Dir + "/link"));
  O.BuildPath = (Dir + "/link").str();
  EXPECT_EQ(defaultStorePath(O), InCache);
  // No database: the cache's own.
  O.BuildPath.clear();
  EXPECT_EQ(defaultStorePath(O),
            (Dir + "/cache/clang-maxcode/rollouts.sqlite").str());
  // --store wins.
  O.Settings.Store = "/elsewhere/s.sqlite";
  EXPECT_EQ(storePathOf(O), "/elsewhere/s.sqlite");
}

TEST_F(DriverFilesTest, ASessionEvaluatesAnEditedCopyAsAWinner) {
  if (!llvm::sys::findProgramByName("g++") &&
      !llvm::sys::findProgramByName("clang++"))
    GTEST_SKIP() << "no C++ compiler";
  // The program: the sum of the numbers on its input, by repeated adding.
  std::string Program = (Dir + "/src/sum.cpp").str();
  write(Program, "#include <cstdio>\n"
                 "long sum(long n) {\n"
                 "  long s = 0;\n"
                 "  for (long i = 1; i <= n; ++i)\n"
                 "    s += i;\n"
                 "  return s;\n"
                 "}\n"
                 "int main() {\n"
                 "  long n;\n"
                 "  while (std::scanf(\"%ld\", &n) == 1)\n"
                 "    std::printf(\"%ld\\n\", sum(n));\n"
                 "}\n");
  std::string Tests = (Dir + "/tests").str();
  write(Tests + "/input.1.txt", "10\n100\n");
  write(Tests + "/output.1.txt", "55\n5050\n");
  write(Tests + "/input.2.txt", "3\n");
  write(Tests + "/output.2.txt", "6\n");

  RunOptions O;
  O.Sources = {Program};
  O.FlagsAfterDashDash =
      std::make_shared<clang::tooling::FixedCompilationDatabase>(
          Dir + "/src", std::vector<std::string>{"-std=c++17", "-O2"});
  O.Settings.Tests = Tests;
  O.ToolDir = MAXCODE_TOOLS_DIR; // maxcode-timer, which supervises each run.
  O.TargetNames = "sum";
  O.Settings.ScratchDir = (Dir + "/build").str();
  O.Settings.Repetitions = 2;
  O.Settings.DerivedInputs = 0;
  O.Settings.CpuEvidence = false;
  O.Settings.Measure = MeasureMode::Time;

  std::string Log;
  llvm::raw_string_ostream Diag(Log);
  // A copy that changes the answer is caught by the tests.
  std::string Wrong = (Dir + "/wrong.cpp").str();
  write(Wrong, "#include <cstdio>\n"
               "long sum(long n) { return n * n / 2; }\n"
               "int main() {\n"
               "  long n;\n"
               "  while (std::scanf(\"%ld\", &n) == 1)\n"
               "    std::printf(\"%ld\\n\", sum(n));\n"
               "}\n");
  auto R = evaluateEditedCopy(O, Wrong, Diag);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError()) << "\n" << Log;
  EXPECT_EQ(R->T.Name, "sum");
  EXPECT_EQ(R->Result.Status, EvalStatus::WrongOutput) << R->Result.Reason;

  // One that does not parse is refused before it is built, saying where.
  std::string Broken = (Dir + "/broken.cpp").str();
  write(Broken, "long sum(long n) { return n +; }\nint main() {}\n");
  R = evaluateEditedCopy(O, Broken, Diag);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError()) << Log;
  EXPECT_EQ(R->Result.Status, EvalStatus::Rejected) << R->Result.Reason;
  EXPECT_NE(R->Result.Reason.find("does not parse: line 1:"), std::string::npos)
      << R->Result.Reason;

  // What the run writes about a setting names it as the front end that runs
  // it does: here the editor's words, handed down with the run's options.
  RunOptions InEditor = O;
  InEditor.Names = OptionNames::Settings;
  InEditor.Settings.Scope = ScopeSetting::Target;
  std::string Outside = (Dir + "/outside.cpp").str();
  write(Outside, "#include <cstdio>\n"
                 "long sum(long n) { return n * (n + 1) / 2; }\n"
                 "int main() {\n"
                 "  long n;\n"
                 "  while (std::scanf(\"%ld\", &n) == 1)\n"
                 "    std::printf(\"%ld\\n\", sum(n) + 0);\n"
                 "}\n");
  R = evaluateEditedCopy(InEditor, Outside, Diag);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError()) << Log;
  EXPECT_EQ(R->Result.Status, EvalStatus::Rejected) << R->Result.Reason;
  EXPECT_EQ(R->Result.Reason.find("edits outside scope=target"), 0u)
      << R->Result.Reason;

  // The source itself is never touched.
  auto Now = llvm::MemoryBuffer::getFile(Program);
  ASSERT_TRUE(bool(Now));
  EXPECT_TRUE((*Now)->getBuffer().contains("s += i;"));
}

} // namespace
