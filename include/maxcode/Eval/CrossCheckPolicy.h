//===-- maxcode/Eval/CrossCheckPolicy.h - The cross-check -------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The cross-check's policy (DESIGN section 4, rule 9): given what the other
/// measure saw of a baseline and a variant, in pairs, whether it confirms
/// the primary measure's claim, denies it, cannot judge it, or needs more
/// pairs first. A pure function of its evidence, so that each threshold can
/// be held to a table of cases (unittests/Eval/CrossCheckPolicyTest.cpp);
/// docs/Evaluation.md, rule 9, says where each came from. The measuring is
/// the evaluator's (lib/Eval/CrossCheck.cpp).
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_EVAL_CROSSCHECKPOLICY_H
#define MAXCODE_EVAL_CROSSCHECKPOLICY_H

#include "maxcode/Eval/Statistics.h"
#include "llvm/ADT/ArrayRef.h"

namespace maxcode {

/// The cross-check's thresholds, named.
namespace crosscheck {
/// Timed pairs taken first; instructions repeat exactly, so one pair.
constexpr unsigned FirstTimedPairs = 3;
/// Timed pairs added by each further look.
constexpr unsigned MorePairsPerLook = 6;
/// The most timed pairs taken before a verdict.
constexpr unsigned MaxTimedPairs = 21;
/// The share of the primary measure's saving the other must confirm.
constexpr double ConfirmedShare = 1.0 / 3;
/// A baseline whose own work is at least this share of its run (above the
/// start-up floor, and by time within the CPU seconds it spent) is "mostly
/// work": the other measure judges a claim of any size there.
constexpr double MostlyWorkShare = 0.5;
/// A claim above this ratio is large: judged where the work is a smaller
/// share of the run, and tested against what it predicts the other measure
/// sees (LargeClaimWorkShare).
constexpr double LargeClaimRatio = 10;
/// The least share of the run that must be work for a large claim.
constexpr double LargeClaimWorkShare = 0.25;
/// A difference stands out of the noise at this many times the noise.
constexpr double NoiseMultiple = 3;
/// Beside a claim of at most LargeClaimRatio, a variant this share slower
/// than the baseline is judged (and denied) whatever its work.
constexpr double ClearlySlowerShare = 0.25;
/// A claim of at least this share of the work saved that time still reads
/// as a loss after every pair is denied.
constexpr double HalvedShare = 0.5;
/// The smallest relative difference the paired comparison ever resolves.
constexpr double PairNoiseFloor = 0.01;
} // namespace crosscheck

/// What the other measure saw, and what the primary one claims.
struct CrossCheckEvidence {
  /// The other measure's costs of baseline and variant, measured in pairs.
  llvm::ArrayRef<double> Baseline, Variant;
  /// By time, the CPU seconds the baseline spent in each pair (empty where
  /// not known).
  llvm::ArrayRef<double> BaselineCpu;
  /// The other measure's start-up floor (0 where none is known).
  double Floor = 0;
  /// The share of the baseline's cost the primary measure says the variant
  /// saved (savedShare).
  double SavedPrimary = 0;
  /// The primary measure's ratio.
  double Claim = 1;
  /// Whether the other measure is wall time (noisy, so pairs are added).
  bool ByTime = true;
};

enum class CrossCheckVerdict {
  /// Take MorePairsPerLook more pairs and ask again.
  MorePairs,
  /// The other measure confirms the claim.
  Confirmed,
  /// The other measure contradicts it: never credited.
  Suspect,
  /// The other measure cannot judge here: credited at most what it saw.
  Unconfirmed,
};

struct CrossCheckDecision {
  CrossCheckVerdict Verdict = CrossCheckVerdict::Unconfirmed;
  /// The comparison of the other measure's pairs judged.
  PairedComparison Comparison;
  /// The baseline's own work by the other measure (baselineWork).
  double Work = 0;
  /// The share of that work the variant saved by the other measure.
  double SavedOther = 0;
  /// Whether the other measure could judge the claim.
  bool Judged = false;
};

/// The share of \p Base's cost above the floor \p Floor (of all of it,
/// when the floor is not below it) that \p Var saved.
double savedShare(double Base, double Var, double Floor);

/// The cross-check's verdict on \p E.
CrossCheckDecision judgeCrossCheck(const CrossCheckEvidence &E);

} // namespace maxcode

#endif // MAXCODE_EVAL_CROSSCHECKPOLICY_H
