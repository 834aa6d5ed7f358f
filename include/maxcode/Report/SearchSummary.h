//===-- maxcode/Report/SearchSummary.h - The end of a search ----*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What the tool prints when a search ends (docs/Output.md), and the line
/// that --train-rtg prints: plain data the search fills, rendered as text
/// for people or as versioned JSON (docs/JSONOutput.md).
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_REPORT_SEARCHSUMMARY_H
#define MAXCODE_REPORT_SEARCHSUMMARY_H

#include "maxcode/Eval/CpuEvidence.h"
#include "maxcode/Eval/EvalResult.h"
#include "maxcode/Policy/LearnedRTG.h"
#include "maxcode/Rewrite/Minimisation.h"
#include "maxcode/Rewrite/Review.h"
#include "maxcode/Rewrite/Screen.h"
#include "maxcode/Rewrite/Variant.h"
#include "maxcode/Support/Options.h"
#include "llvm/Support/JSON.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace maxcode {

/// A target a search across hot functions tried (runSearch).
struct TriedTarget {
  std::string Name;
  unsigned Evaluations = 0;
  double Speedup = 1.0; ///< Verified; 1.0 without an improvement.
  /// Verified at or above --min-speedup: the search stopped there.
  bool Kept = false;
};

struct SearchSummary {
  std::string Target;
  std::string File;
  std::string Policy;   ///< "rules", "llm".
  std::string Strategy; ///< optionValueName().
  /// optionValueName(), or "bench-metric" for --bench-metric: the
  /// speedup's unit.
  std::string Measure;
  std::string Sandbox;   ///< The sandbox builds and runs had.
  std::string Integrity; ///< integrityOf() that sandbox.
  std::string StopReason;
  unsigned Evaluations = 0;
  unsigned FromStore = 0;
  double Seconds = 0;
  int64_t Run = -1; ///< The run's id in the rollout store.
  std::string StorePath;
  /// With a profile and no target named, every target searched, in order,
  /// when there was more than one (the last is this summary's).
  std::vector<TriedTarget> TargetsTried;
  /// Why the original's lines are slow, as the search saw it; none when
  /// not gathered (--cpu-evidence).
  std::shared_ptr<const CpuEvidence> Evidence;

  /// Whether the search found a best candidate, and its verification.
  bool Candidate = false;
  std::optional<EvalResult> Verification;
  /// Candidates whose verification the cross-check called suspect (before
  /// the winner, or all of them when none held up): what its
  /// false-positive rate is read from.
  unsigned SuspectCandidates = 0;
  bool Improved = false; ///< Verified faster: the winner below is set.
  double Speedup = 1.0;  ///< Verified; 1.0 without an improvement.
  /// --min-speedup, and whether the verified winner is below it: shown,
  /// never applied or exported.
  double MinSpeedup = 1.0;
  bool BelowMinSpeedup = false;
  double Noise = 0;

  /// The winner (when Improved), its node, and what changed: the one-line
  /// summary of every step when the steps say where they changed what,
  /// else the steps' descriptions joined.
  std::optional<Variant> Winner;
  unsigned WinnerNode = 0;
  std::string WinnerSummary;
  std::string WinnerDescription;
  /// Calls the winner adds that reach outside the program.
  std::vector<ApiUse> AddedCalls;
  /// The unified diff of what --apply writes (or would write).
  std::string Diff;
  /// What the minimiser did with the winner's edits, and the diff of the
  /// winner as the search found it when it dropped some.
  std::optional<Minimisation> Minimised;
  std::string UnminimisedDiff;
  /// The declarations taken out of the winner and the model's plainer form.
  std::optional<WinnerTidying> Tidied;
  /// The size of Diff; review notes on the winner (docs/Output.md); the
  /// sanitizers' verdict.
  std::optional<DiffSize> Size;
  std::vector<ReviewNote> Review;
  std::optional<SanitizerVerdict> Sanitizer;
  /// The winner adds mutable static state and --allow-static-state was not
  /// given: shown, never applied or exported.
  bool StaticStateRefused = false;

  /// The LLM's usage as LLMLedger::toJSON() gives it, when one was used.
  std::optional<llvm::json::Object> LLM;

  bool Applied = false;
  std::string FixesPath;  ///< Set when fixes were written.
  std::string ReportPath; ///< --report, when given.
};

/// The summary for people: what was searched, then the verified speedup and
/// the diff, or why nothing changed; \p Names name the settings it mentions.
void printSearchSummaryText(const SearchSummary &S, OptionNames Names,
                            llvm::raw_ostream &OS);
/// The same as one versioned JSON object.
void printSearchSummaryJSON(const SearchSummary &S, llvm::raw_ostream &OS);

/// --train-rtg's line: how many nodes, and the held-out rank correlation.
void printRTGTraining(const RTGTraining &T, llvm::raw_ostream &OS);

} // namespace maxcode

#endif // MAXCODE_REPORT_SEARCHSUMMARY_H
