//===-- MeasureRun.cpp - How each measure runs and reads its cost ---------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// One RunMeasure per --measure value (wall time, callgrind's instructions,
// CUPTI's kernel time) and the bench's own figure: both harnesses shape
// their runs and read their costs through them (docs/Evaluation.md).
//
//===----------------------------------------------------------------------===//

#include "EvaluatorImpl.h"
#include "maxcode/Eval/CuptiRun.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include <algorithm>

using namespace maxcode;
using namespace maxcode::evaldetail;

using RunMeasure = EvaluatorImpl::RunMeasure;
using RunOutcome = EvaluatorImpl::RunOutcome;
using RunRequest = EvaluatorImpl::RunRequest;

RunMeasure::~RunMeasure() = default;

void RunMeasure::shape(RunRequest &R, double TimeoutSeconds,
                       bool HotLines) const {
  R.Kind = JobKind::Timed;
  R.WallSeconds = TimeoutSeconds;
}

namespace {
/// The wall time of the run, as its supervisor saw it.
class WallTime : public RunMeasure {
public:
  llvm::Expected<double> read(const RunOutcome &Run, llvm::StringRef,
                              EvalResult *Into) const override {
    if (Into) {
      Into->UserSeconds += Run.Report.UserSeconds;
      Into->SystemSeconds += Run.Report.SystemSeconds;
      Into->PeakMemoryBytes =
          std::max(Into->PeakMemoryBytes, Run.Report.MaxRSSBytes);
    }
    return Run.Report.WallSeconds;
  }
};

/// The instructions of every process of the run, counted by callgrind.
class Instructions : public RunMeasure {
public:
  void shape(RunRequest &R, double TimeoutSeconds,
             bool HotLines) const override {
    // The per-line profiles (hot lines only) go to the run's own folder.
    R.Argv =
        callgrindArgv(HotLines ? "@PROFILE@/callgrind.out.%p" : "/dev/null",
                      std::move(R.Argv), /*LineInfo=*/HotLines);
    R.LogFd = 3;
    R.Profile = HotLines;
    R.Kind = JobKind::Check; // Counts do not depend on what else runs.
    R.WallSeconds = std::max(60.0, 40 * TimeoutSeconds);
  }

  llvm::Expected<double> read(const RunOutcome &Run, llvm::StringRef SourceName,
                              EvalResult *Into) const override {
    auto Count = instructionsFromLog(Run.Report.Log, Run.Report.MainPid);
    if (!Count)
      return llvm::make_error<RunFailure>(EvalStatus::Crash,
                                          llvm::toString(Count.takeError()));
    if (Into && Run.ProfileDir)
      addHotLines(*Run.ProfileDir, SourceName, double(*Count), *Into);
    return double(*Count);
  }

private:
  /// What each line of \p SourceName cost in the profiles of \p Folder, as
  /// its share of the run's \p Count; measure() adds the inputs up and
  /// makes shares of the whole (mergeHotLines).
  static void addHotLines(const ScratchDir &Folder, llvm::StringRef SourceName,
                          double Count, EvalResult &Into) {
    std::map<unsigned, uint64_t> Lines;
    uint64_t Total = 0;
    forEachProfile(Folder.path(), [&](const CallgrindProfile &P) {
      for (const auto &KV : P.Lines)
        if (llvm::sys::path::filename(KV.first.first) == SourceName)
          Lines[KV.first.second] += KV.second;
      Total += P.Total;
    });
    if (!Total)
      return;
    for (const auto &KV : Lines)
      Into.HotLines.push_back({KV.first, double(KV.second) / Total * Count});
  }
};

/// The GPU time of the run's kernels, from CUPTI's timing pass.
class CudaKernelTime : public RunMeasure {
public:
  void shape(RunRequest &R, double TimeoutSeconds,
             bool HotLines) const override {
    RunMeasure::shape(R, TimeoutSeconds, HotLines);
    R.Cupti = CuptiPass::Timing;
  }

  llvm::Expected<double> read(const RunOutcome &Run, llvm::StringRef,
                              EvalResult *Into) const override {
    auto Report = readCuptiReports(Run.CuptiDir->path());
    if (!Report)
      return Report.takeError();
    if (Into)
      for (const std::string &N : Report->Notes)
        if (!llvm::is_contained(Into->Notes, N))
          Into->Notes.push_back(N);
    return cudaKernelCost(*Report);
  }
};

/// The figure of cost the bench prints itself.
class BenchMetric : public RunMeasure {
public:
  BenchMetric(std::string Pattern, OptionNames Names)
      : Pattern(std::move(Pattern)), Names(Names) {}

  llvm::Expected<double> read(const RunOutcome &Run, llvm::StringRef,
                              EvalResult *) const override {
    // Exactly one metric line (DESIGN section 4, rule 8): a second one,
    // printed first, is how a bench would report a number of its choosing.
    llvm::Regex Re(Pattern, llvm::Regex::Newline);
    std::string Text = Run.Proc.Stdout + "\n" + Run.Proc.Stderr;
    llvm::StringRef Rest = Text;
    unsigned Matches = 0;
    double Value = 0;
    llvm::SmallVector<llvm::StringRef, 2> M;
    while (!Rest.empty() && Re.match(Rest, &M)) {
      ++Matches;
      if (!llvm::to_float(M.size() > 1 ? M[1] : M[0], Value))
        return llvm::make_error<RunFailure>(
            EvalStatus::Crash, Names("BenchMetric") + " '" + Pattern +
                                   "' matched '" + bounded(M[0], 80) +
                                   "', which holds no number");
      size_t Next =
          M[0].data() + std::max<size_t>(M[0].size(), 1) - Rest.data();
      Rest = Rest.drop_front(std::min(Next, Rest.size()));
    }
    if (Matches != 1)
      return llvm::make_error<RunFailure>(
          EvalStatus::Crash,
          Names("BenchMetric") + " '" + Pattern + "' matched " +
              std::to_string(Matches) +
              " times in the bench's output; it must match exactly once");
    return Value;
  }

private:
  std::string Pattern;
  OptionNames Names;
};
} // namespace

const RunMeasure &RunMeasure::of(MeasureMode M) {
  static const WallTime Time;
  static const Instructions Count;
  static const CudaKernelTime Kernels;
  switch (M) {
  case MeasureMode::Time:
    return Time;
  case MeasureMode::Instructions:
    return Count;
  case MeasureMode::CudaKernel:
    return Kernels;
  }
  llvm_unreachable("a measure without a way to run");
}

std::unique_ptr<RunMeasure> RunMeasure::benchMetric(std::string Pattern,
                                                    OptionNames Names) {
  return std::make_unique<BenchMetric>(std::move(Pattern), Names);
}
