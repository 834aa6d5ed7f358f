//===-- maxcode/Eval/EvalResult.h - What one evaluation found ---*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The result of building, checking and timing one variant (DESIGN sections
/// 2 and 4): the raw feedback critics turn into text and the search turns
/// into a reward.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_EVAL_EVALRESULT_H
#define MAXCODE_EVAL_EVALRESULT_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace maxcode {

/// Ordered from worst to best, as the reward orders them (DESIGN section 4).
/// Unsafe is a verification's verdict only: a variant that passes its tests
/// and is faster, but whose build with sanitizers reports a finding on them
/// that the original's does not.
enum class EvalStatus {
  Rejected,
  BuildError,
  Crash,
  Timeout,
  WrongOutput,
  Unsafe,
  Ok
};

/// "ok", "unsafe", "wrong-output", "timeout", "crash", "build-error",
/// "rejected".
llvm::StringRef evalStatusName(EvalStatus S);

/// The inputs that time a program: those the search sees (its feedback)
/// or those held out of it, which only a verification runs (DESIGN section
/// 4, rules 5 and 10).
enum class TimingSet { Feedback, HeldOut };

/// "feedback", "held-out": how the JSON and the store name it.
llvm::StringRef timingSetName(TimingSet S);
std::optional<TimingSet> parseTimingSet(llvm::StringRef Name);
std::optional<EvalStatus> parseEvalStatus(llvm::StringRef Name);

/// A compiler diagnostic, its line and column in the variant's own text.
struct BuildDiagnostic {
  unsigned Line = 0;
  unsigned Column = 0;
  std::string Severity; ///< "error", "warning", "note".
  std::string Message;
};

/// The first test a variant failed, and where its output first differed.
struct TestFailure {
  std::string Test;     ///< "input.3.txt" or "case7.in", or "test command".
  unsigned Line = 0;    ///< First differing line (1-based); 0 if none.
  std::string Expected; ///< That line as expected.
  std::string Actual;   ///< That line as produced ("<end of output>").
  std::string Detail;   ///< Exit status or signal when the program failed.
};

/// A line of the variant's text and its share of the measured cost.
struct HotLine {
  unsigned Line = 0;
  double Share = 0;
};

struct EvalResult {
  EvalStatus Status = EvalStatus::Rejected;
  /// One line saying why the status is what it is.
  std::string Reason;

  // Building.
  std::vector<BuildDiagnostic> Diagnostics;
  std::string BuildLog; ///< The compiler's output, capped.
  double BuildSeconds = 0;

  // Checking.
  unsigned TestsPassed = 0;
  unsigned TestsTotal = 0;
  /// Held-out tests (DESIGN section 4, rule 5): checked only when a winner
  /// is verified (or a variant is evaluated by hand); their results never
  /// reach a proposer or critic.
  unsigned HeldOutPassed = 0;
  unsigned HeldOutTotal = 0;
  /// Inputs derived from the tests (rule 13), checked where held-out tests
  /// are: a variant must print the unmodified program's answers to them.
  unsigned DerivedPassed = 0;
  unsigned DerivedTotal = 0;
  std::optional<TestFailure> FirstFailure;

  // Measuring (Status == Ok only).
  std::string CostUnit;    ///< "instructions", "seconds" or "gpu-ns".
  double BaselineCost = 0; ///< Median cost of the baseline, same runs.
  double VariantCost = 0;  ///< Median cost of the variant.
  /// t_baseline / t_variant, the median of paired ratios; exactly 1.0 when
  /// the difference is inside the noise.
  double Ratio = 0;
  double RawRatio = 0;    ///< The median ratio before the noise rule.
  double RatioSpread = 0; ///< Half the inter-quartile range of the ratios.
  double Noise = 0;       ///< Relative noise of the baseline's own runs.
  unsigned Repetitions = 0;
  double UserSeconds = 0;
  double SystemSeconds = 0;
  uint64_t PeakMemoryBytes = 0;
  std::vector<HotLine> HotLines; ///< From callgrind, hottest first.
  /// GPU metrics by name (CUPTI), when measured.
  std::map<std::string, double> Metrics;
  /// A verified speedup that the other CPU measure does not confirm (less
  /// than a third of the saving): reported as suspect, never applied.
  bool Suspect = false;
  /// A verified speedup the other measure cannot judge (the work is below
  /// what it resolves; DESIGN section 4, rule 9): credited at most what
  /// that measure saw, never the primary's claim alone. RawRatio keeps the
  /// primary's figure.
  bool Unconfirmed = false;
  /// A verification whose inputs the search never saw cannot judge the
  /// speedup (too small, or none; rule 10): credited 1.0, never the ratio
  /// on the inputs the search saw, which RawRatio keeps.
  bool Unverified = false;
  /// The variant changes only the compiler's hints (pragmas, optimisation
  /// attributes; changesOnlyCompilerHints): by instructions it is credited
  /// only what wall time confirms, never its count alone (docs/Evaluation.md,
  /// "Compiler hints"); RawRatio keeps the count's figure, CrossRatio time's.
  bool HintsOnly = false;
  /// A variant by instructions that adds compiler hints beside a change of
  /// code: the verified ratio of its code alone, the hints taken out
  /// (withoutAddedHints). What the hints add beyond it is credited only
  /// where wall time confirms it; 0 when not measured.
  double CodeRatio = 0;
  /// Where the ratio was measured (DESIGN section 4, rule 10): "held-out"
  /// for a verification with held-out inputs, "feedback" for the inputs the
  /// search saw; none for a search's own evaluations.
  std::optional<TimingSet> TimedOn;
  /// With TimedOn HeldOut: the raw ratio on the feedback inputs.
  double FeedbackRatio = 0;
  /// Resolvably faster on the feedback inputs and not on held-out ones.
  bool ShownInputsOnly = false;
  /// The ratio the other measure gave, when it was taken (0 otherwise).
  double CrossRatio = 0;
  std::string CrossMeasure; ///< "time" or "instructions".
  /// Notes a person should see ("metrics not collected: ...").
  std::vector<std::string> Notes;
  /// The Slurm jobs that built, checked and measured the variant, in the
  /// order they ended (empty with the local executor).
  std::vector<std::string> JobIds;

  /// Answered from the evaluation cache (not stored with the result).
  bool FromCache = false;

  bool ok() const { return Status == EvalStatus::Ok; }

  /// "suspect", "unconfirmed" or "unverified": how a verification's figure
  /// falls short of a confirmed speedup (docs/Evaluation.md, rules 9 and
  /// 10); empty when it does not.
  llvm::StringRef verdict() const;

  /// How far the measured ratio may be off, relative to it: the runs' noise
  /// or the ratios' spread (an absolute half-IQR) over their median. Two
  /// ratios are compared by this, never by the absolute spread: a 200000x
  /// remembered answer has a spread of tens of thousands.
  double relativeMargin() const;
};

/// What the sanitizers said of a variant.
struct SanitizerVerdict {
  enum VerdictKind {
    Clean,      ///< No finding on any test.
    Finding,    ///< A finding the original does not have: unsafe.
    NotChecked, ///< The check cannot run here; Detail says why.
  };
  VerdictKind Kind = NotChecked;
  /// The finding ("AddressSanitizer: heap-buffer-overflow, READ of size 4
  /// at line 18, on test input.2.txt"), or why it was not checked.
  std::string Detail;
  /// Tests run under the sanitizers, and those left out because the
  /// original already has a finding on them.
  unsigned Tests = 0;
  unsigned SkippedTests = 0;
  /// Of Tests, the inputs derived from the tests (rule 13).
  unsigned DerivedInputs = 0;
};

/// Whether a variant measured \p Feedback on the inputs the search saw and
/// \p HeldOut on inputs it did not is fast only on the former (DESIGN
/// section 4, rule 10): resolvably faster there, and not, or far less, on
/// the held-out ones, and saving less on each held-out input (the costs
/// are sums over \p FeedbackInputs and \p HeldOutInputs inputs) than half
/// of what it saves on each shown one: a saving the same on every input
/// (start-up) is an honest one that reads as a smaller ratio on larger
/// inputs.
bool fastOnlyOnShownInputs(const EvalResult &Feedback,
                           const EvalResult &HeldOut, double FeedbackInputs = 1,
                           double HeldOutInputs = 1);

/// Adds up \p Lines, each line's cost on one input as measured (a line may
/// come once per input), into shares of \p Total, hottest first, the ten
/// hottest kept.
void mergeHotLines(std::vector<HotLine> &Lines, double Total);

/// A cost as people and prompts read it: "0.0123 s", "35877201
/// instructions", "1200 ns of GPU time"; counts never with decimals.
std::string formatCost(double Cost, llvm::StringRef Unit);

} // namespace maxcode

#endif // MAXCODE_EVAL_EVALRESULT_H
