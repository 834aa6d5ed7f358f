//===-- OptimizeRunnerTest.cpp - Running a search for the editor ----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/LSP/OptimizeRunner.h"
#include "llvm/Support/LSP/Logging.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace maxcode::lsp;

namespace {

TEST(OptimizeCommandTest, NamesTheDatabaseAndTheOptions) {
  OptimizeRequest R;
  R.File = "/p/src/a.cpp";
  R.Target = "ns::f";
  R.BuildPath = "/p/build";
  R.Options.Policy = maxcode::PolicyKind::Rules;
  R.Options.Tests = "/p/tests";
  R.Options.TestCommand = "make \"check\" 'all'";
  // The settings travel as the options model writes them, not as re-spelled
  // flags: one --config holding `.clang-maxcode` keys.
  EXPECT_EQ(
      buildOptimizeCommand("/bin/clang-maxcode", R, "/tmp/p.jsonl"),
      (std::vector<std::string>{
          "/bin/clang-maxcode", "/p/src/a.cpp", "--target=ns::f", "-p",
          "/p/build",
          R"(--config={"Policy":"rules","TestCommand":"make \"check\" 'all'","Tests":"/p/tests"})",
          "--option-names=settings", "--format=json",
          "--progress-file=/tmp/p.jsonl"}));
}

TEST(OptimizeCommandTest, WithoutADatabaseUsesTheDefaultCommand) {
  OptimizeRequest R;
  R.File = "/p/a.cpp";
  R.Target = "f";
  EXPECT_EQ(buildOptimizeCommand("cm", R, "p"),
            (std::vector<std::string>{
                "cm", "/p/a.cpp", "--target=f", "--option-names=settings",
                "--format=json", "--progress-file=p", "--"}));
}

TEST(OptimizeOutputTest, ReadsAnImprovement) {
  auto R = parseOptimizeOutput(R"({
    "version": 1, "status": "improved", "target": "f", "file": "/p/a.cpp",
    "speedup": 1.82, "noise": 0.03, "evaluations": 12,
    "winner": {"text": "int f() { return 1; }\n",
               "rules": ["hoist-invariant", "reserve"],
               "description": "hoisted the size out of the loop"}})");
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->Improved);
  EXPECT_EQ(R->Target, "f");
  EXPECT_EQ(R->File, "/p/a.cpp");
  EXPECT_DOUBLE_EQ(R->Speedup, 1.82);
  EXPECT_DOUBLE_EQ(R->Noise, 0.03);
  EXPECT_EQ(R->Evaluations, 12u);
  EXPECT_EQ(R->NewText, "int f() { return 1; }\n");
  EXPECT_EQ(R->Rules, (std::vector<std::string>{"hoist-invariant", "reserve"}));
  EXPECT_EQ(R->Description, "hoisted the size out of the loop");
}

TEST(OptimizeOutputTest, ReadsAWinBelowTheMinimum) {
  auto R = parseOptimizeOutput(R"({
    "version": 1, "status": "improved", "target": "f", "file": "/p/a.cpp",
    "speedup": 1.01, "noise": 0.002, "evaluations": 4,
    "min_speedup": 1.02, "below_min_speedup": true,
    "winner": {"text": "int f() { return 1; }\n", "rules": [],
               "description": "d"}})");
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->Improved);
  EXPECT_TRUE(R->BelowMinSpeedup);
  EXPECT_DOUBLE_EQ(R->MinSpeedup, 1.02);
}

TEST(OptimizeOutputTest, ReadsNoImprovement) {
  auto R = parseOptimizeOutput(
      R"({"version": 1, "status": "no-improvement", "target": "f",
          "file": "/p/a.cpp", "speedup": 1.0, "noise": 0.05,
          "evaluations": 20})");
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_FALSE(R->Improved);
  EXPECT_EQ(R->Evaluations, 20u);
  EXPECT_TRUE(R->NewText.empty());
}

std::string errorOf(llvm::StringRef Output) {
  auto R = parseOptimizeOutput(Output);
  if (R)
    return "no error";
  return llvm::toString(R.takeError());
}

TEST(OptimizeOutputTest, RejectsWhatItCannotTrust) {
  EXPECT_EQ(errorOf("Segmentation fault"),
            "clang-maxcode printed no JSON document: 'Segmentation fault'");
  EXPECT_EQ(errorOf(R"({"version": 2, "status": "improved"})"),
            "clang-maxcode printed output version 2; this maxcode-lsp reads "
            "version 1");
  EXPECT_EQ(errorOf(R"({"status": "improved"})"),
            "clang-maxcode printed output version (none); this maxcode-lsp "
            "reads version 1");
  EXPECT_EQ(errorOf(R"({"version": 1, "status": "great"})"),
            "clang-maxcode printed an unknown status 'great'");
  EXPECT_EQ(errorOf(R"({"version": 1, "status": "improved", "winner": {}})"),
            "clang-maxcode reported an improvement without the winner's text");
}

TEST(ProgressLineTest, ReadsLinesAndSkipsOthers) {
  std::optional<OptimizeProgress> P = parseProgressLine(
      R"({"evaluations": 3, "budget": 20, "best_speedup": 1.25})");
  ASSERT_TRUE(P);
  EXPECT_EQ(P->Evaluations, 3u);
  EXPECT_EQ(P->Budget, 20u);
  EXPECT_DOUBLE_EQ(P->BestSpeedup, 1.25);
  EXPECT_FALSE(P->SecondsLeft);
  P = parseProgressLine(R"({"evaluations": 1})");
  ASSERT_TRUE(P);
  EXPECT_EQ(P->Budget, 0u);
  EXPECT_DOUBLE_EQ(P->BestSpeedup, 1.0);
  P = parseProgressLine(
      R"({"evaluations": 4, "budget": 8, "best_speedup": 2, "seconds_left": 12.5})");
  ASSERT_TRUE(P && P->SecondsLeft);
  EXPECT_DOUBLE_EQ(*P->SecondsLeft, 12.5);
  EXPECT_FALSE(parseProgressLine(R"({"evaluations": )"));
  EXPECT_FALSE(parseProgressLine(R"({"budget": 3})"));
  EXPECT_FALSE(parseProgressLine(R"({"evaluations": -1})"));
  EXPECT_FALSE(parseProgressLine("not json"));
}

TEST(ClangMaxcodeRunnerTest, MissingExecutableIsAnError) {
  ClangMaxcodeRunner Runner("/nonexistent/clang-maxcode");
  OptimizeRequest R;
  R.File = "/p/a.cpp";
  R.Target = "f";
  std::atomic<bool> Cancel{false};
  unsigned Reports = 0;
  auto Result =
      Runner.run(R, [&](const OptimizeProgress &) { ++Reports; }, Cancel);
  ASSERT_FALSE(bool(Result));
  EXPECT_EQ(
      llvm::toString(Result.takeError()),
      "cannot run clang-maxcode: cannot run '/nonexistent/clang-maxcode': "
      "No such file or directory");
  EXPECT_EQ(Reports, 0u);
}

TEST(ClangMaxcodeRunnerTest, CancelledBeforeItStartsRunsNothing) {
  ClangMaxcodeRunner Runner("/nonexistent/clang-maxcode");
  std::atomic<bool> Cancel{true};
  // The runner logs every command it runs (LLVM's logger, on stderr).
  llvm::lsp::Logger::setLogLevel(llvm::lsp::Logger::Level::Debug);
  testing::internal::CaptureStderr();
  auto Result =
      Runner.run(OptimizeRequest(), [](const OptimizeProgress &) {}, Cancel);
  std::string Log = testing::internal::GetCapturedStderr();
  llvm::lsp::Logger::setLogLevel(llvm::lsp::Logger::Level::Error);
  ASSERT_FALSE(bool(Result));
  EXPECT_TRUE(Result.errorIsA<CancelledError>());
  llvm::consumeError(Result.takeError());
  EXPECT_EQ(Log, "");
}

} // namespace
