//===-- MeasureRunTest.cpp - How each measure runs and reads its cost -----===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "EvaluatorImpl.h"
#include "llvm/ADT/StringExtras.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

using RunMeasure = EvaluatorImpl::RunMeasure;
using RunOutcome = EvaluatorImpl::RunOutcome;
using RunRequest = EvaluatorImpl::RunRequest;

RunRequest shaped(MeasureMode M, bool HotLines) {
  RunRequest R;
  R.Argv = {"./prog"};
  RunMeasure::of(M).shape(R, /*TimeoutSeconds=*/2, HotLines);
  return R;
}

// Each measure runs the program its own way, whoever asks: a test's input
// in program mode, the empty program's floor, a project's bench.
TEST(MeasureRunTest, EachMeasureShapesItsRuns) {
  RunRequest Time = shaped(MeasureMode::Time, true);
  EXPECT_EQ(Time.Argv, std::vector<std::string>{"./prog"});
  EXPECT_EQ(Time.Kind, JobKind::Timed);
  EXPECT_EQ(Time.WallSeconds, 2);
  EXPECT_FALSE(Time.Cupti);

  // Counts do not depend on what else runs, and valgrind is slow.
  RunRequest Count = shaped(MeasureMode::Instructions, true);
  EXPECT_EQ(Count.Kind, JobKind::Check);
  EXPECT_EQ(Count.WallSeconds, 80);
  EXPECT_EQ(Count.LogFd, 3);
  EXPECT_TRUE(Count.Profile);
  EXPECT_EQ(Count.Argv.back(), "./prog");
  EXPECT_NE(llvm::find(Count.Argv, "--callgrind-out-file="
                                   "@PROFILE@/callgrind.out.%p"),
            Count.Argv.end())
      << llvm::join(Count.Argv, " ");
  // Without hot lines, no profile to keep.
  RunRequest Bare = shaped(MeasureMode::Instructions, false);
  EXPECT_FALSE(Bare.Profile);
  EXPECT_EQ(
      llvm::find_if(Bare.Argv,
                    [](llvm::StringRef A) { return A.contains("@PROFILE@"); }),
      Bare.Argv.end());

  RunRequest Kernels = shaped(MeasureMode::CudaKernel, true);
  EXPECT_EQ(Kernels.Kind, JobKind::Timed);
  ASSERT_TRUE(Kernels.Cupti);
  EXPECT_EQ(*Kernels.Cupti, CuptiPass::Timing);
}

TEST(MeasureRunTest, EachMeasureReadsItsCost) {
  RunOutcome Run;
  Run.Report.WallSeconds = 1.5;
  Run.Report.UserSeconds = 1.25;
  Run.Report.SystemSeconds = 0.125;
  Run.Report.MaxRSSBytes = 4096;
  Run.Report.MainPid = 7;
  Run.Report.Log = "==7== Collected : 1000\n==8== Collected : 234\n";
  EvalResult Into;
  auto Wall = RunMeasure::of(MeasureMode::Time).read(Run, "p.cpp", &Into);
  ASSERT_TRUE(bool(Wall)) << llvm::toString(Wall.takeError());
  EXPECT_EQ(*Wall, 1.5);
  EXPECT_EQ(Into.UserSeconds, 1.25);
  EXPECT_EQ(Into.PeakMemoryBytes, 4096u);
  // Every process of the run counted.
  auto Count =
      RunMeasure::of(MeasureMode::Instructions).read(Run, "p.cpp", nullptr);
  ASSERT_TRUE(bool(Count)) << llvm::toString(Count.takeError());
  EXPECT_EQ(*Count, 1234);
  // A log the program wrote into is no count.
  Run.Report.Log += "Collected : 1\n";
  Count = RunMeasure::of(MeasureMode::Instructions).read(Run, "p.cpp", nullptr);
  ASSERT_FALSE(bool(Count));
  EXPECT_NE(llvm::toString(Count.takeError()).find("tampered"),
            std::string::npos);
}

// The bench's own figure must be printed exactly once (DESIGN section 4,
// rule 8), and its errors name the setting as the run's front end does.
TEST(MeasureRunTest, TheBenchMetricMatchesOnce) {
  auto Metric =
      RunMeasure::benchMetric("^time: ([0-9.]+) s$", OptionNames::Settings);
  RunOutcome Run;
  Run.Report.WallSeconds = 9;
  Run.Proc.Stdout = "warming up\ntime: 0.25 s\n";
  auto V = Metric->read(Run, "", nullptr);
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  EXPECT_EQ(*V, 0.25);
  // On stderr too; a second line is how a bench would pick its number.
  Run.Proc.Stderr = "time: 0.01 s\n";
  V = Metric->read(Run, "", nullptr);
  ASSERT_FALSE(bool(V));
  EXPECT_EQ(llvm::toString(V.takeError()),
            "benchMetric '^time: ([0-9.]+) s$' matched 2 times in the "
            "bench's output; it must match exactly once");
  Run.Proc.Stdout = Run.Proc.Stderr = "";
  V = Metric->read(Run, "", nullptr);
  ASSERT_FALSE(bool(V));
  EXPECT_NE(llvm::toString(V.takeError()).find("matched 0 times"),
            std::string::npos);
  auto Words = RunMeasure::benchMetric("^time: (.*)$", OptionNames::Flags);
  Run.Proc.Stdout = "time: fast\n";
  V = Words->read(Run, "", nullptr);
  ASSERT_FALSE(bool(V));
  EXPECT_NE(llvm::toString(V.takeError())
                .find("--bench-metric '^time: (.*)$' matched 'time: fast', "
                      "which holds no number"),
            std::string::npos);
}

} // namespace
