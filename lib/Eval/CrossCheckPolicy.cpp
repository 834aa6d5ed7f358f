//===-- CrossCheckPolicy.cpp - The other measure's verdict ----------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The two measures agree on what share of the baseline's cost a variant
// saved beyond the cost of starting a program at all (near that floor their
// ratios are ill-conditioned, their savings are not): the other measure must
// confirm a share of the saving. It speaks only to work it resolves; it
// always denies a variant it reads clearly slower. docs/Evaluation.md, rule
// 9, gives the cases behind each threshold.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/CrossCheckPolicy.h"
#include <algorithm>
#include <cmath>

using namespace maxcode;
using namespace maxcode::crosscheck;

double maxcode::savedShare(double Base, double Var, double Floor) {
  double Variable = Base - Floor > 0 ? Base - Floor : Base;
  return Variable > 0 ? (Base - Var) / Variable : 0;
}

/// The baseline's own work in comparison \p C: its cost above the start-up
/// floor \p Floor and, by time, no more than the CPU seconds \p Cpu it spent
/// above it. A baseline that sleeps, or waits on a device or the disk, did
/// none of the work instructions count meanwhile: a saving of its work is
/// judged against that work, not against its sleep.
static double baselineWork(const PairedComparison &C, double Floor,
                           llvm::ArrayRef<double> Cpu) {
  double Work = C.BaselineMedian - Floor;
  if (!Cpu.empty())
    Work = std::min(Work, median(Cpu) - Floor);
  return Work;
}

/// Whether the other measure, comparison \p C with the baseline's own work
/// \p Work, cannot judge a claim that saved \p SavedPrimary.
static bool cannotJudge(const PairedComparison &C, double Work,
                        double SavedPrimary, bool LargeClaim) {
  double Noise = std::max(C.Noise, C.Spread);
  double Slower = C.VariantMedian - C.BaselineMedian;
  // Resolvably slower at all beside a large claim; clearly slower beside a
  // small one, whose wall time may scatter that far.
  bool ClearlySlower =
      Slower > NoiseMultiple * Noise * C.BaselineMedian &&
      (LargeClaim || Slower > ClearlySlowerShare * C.BaselineMedian);
  if (ClearlySlower)
    return false;
  double WorkShare = Work / C.BaselineMedian;
  // A large claim is judged wherever the work is a fair share of the run
  // and above the runs' own noise, so that scattered pairs cannot let a
  // figure no run saw through unjudged.
  if (LargeClaim)
    return WorkShare < LargeClaimWorkShare ||
           WorkShare < NoiseMultiple * C.Noise;
  // Otherwise the work must be most of the run, and the share of the claim
  // that must be confirmed, in the share of the run that is work, must
  // stand out of the noise (the runs' own, or the pairs' when those scatter
  // more): otherwise what the other measure says is noise either way.
  return WorkShare < MostlyWorkShare ||
         SavedPrimary * ConfirmedShare * WorkShare < NoiseMultiple * Noise;
}

/// The line between "nothing saved" and "the claim" for a large claim's
/// pairs by time: the geometric midpoint of 1.0 and the ratio the claim
/// predicts for a baseline whose work is \p WorkShare of its run. Honest
/// pairs fall above it far more often than not however the runs scatter; a
/// figure no run saw, below.
static double largeClaimMidpoint(const CrossCheckEvidence &E,
                                 double WorkShare) {
  double Saved = std::clamp(E.SavedPrimary * WorkShare, 0.0, 0.99);
  return std::sqrt(1 / (1 - Saved));
}

CrossCheckDecision maxcode::judgeCrossCheck(const CrossCheckEvidence &E) {
  CrossCheckDecision D;
  PairedComparison &C = D.Comparison;
  C = comparePaired(E.Baseline, E.Variant, PairNoiseFloor);
  D.Work = baselineWork(C, E.Floor, E.BaselineCpu);
  D.SavedOther = D.Work > 0 ? (C.BaselineMedian - C.VariantMedian) / D.Work
                            : savedShare(C.BaselineMedian, C.VariantMedian, 0);
  bool LargeClaim = E.Claim > LargeClaimRatio;
  bool MostlyWork = D.Work >= MostlyWorkShare * C.BaselineMedian;
  // The order within the pairs is what load does not scatter; it speaks
  // only where the run is mostly work (in a run of a millisecond or two,
  // the order is the machine's).
  D.Judged = (MostlyWork &&
              slowerInNearlyEveryPair(E.Baseline, E.Variant, C.RawRatio)) ||
             !cannotJudge(C, D.Work, E.SavedPrimary, LargeClaim);
  bool Confirms = D.SavedOther >= E.SavedPrimary * ConfirmedShare;
  size_t Pairs = std::min(E.Baseline.size(), E.Variant.size());
  auto Decide = [&](CrossCheckVerdict V) {
    D.Verdict = V;
    return D;
  };
  // A second look before any verdict but a confirmation: the first pairs'
  // spread is one moment's, not the machine's.
  if (E.ByTime && Pairs < FirstTimedPairs + MorePairsPerLook &&
      (!Confirms || !D.Judged))
    return Decide(CrossCheckVerdict::MorePairs);
  // Unjudged, slower by time in a run that is mostly work: pairs until the
  // sign test can speak.
  bool SlowerUnjudged = !D.Judged && E.ByTime && MostlyWork && C.RawRatio < 1;
  if (SlowerUnjudged && Pairs < MaxTimedPairs)
    return Decide(CrossCheckVerdict::MorePairs);
  // Load slows both runs of a pair alike: it does not turn a halving into a
  // loss.
  if (SlowerUnjudged && E.SavedPrimary >= HalvedShare)
    return Decide(CrossCheckVerdict::Suspect);
  // A large claim on a run that is a fair share work, too scattered for
  // the medians to judge, is judged pair by pair: nearly every pair on one
  // side of the midpoint speaks whatever the runs' spread.
  double WorkShare = C.BaselineMedian > 0 ? D.Work / C.BaselineMedian : 0;
  if (!D.Judged && E.ByTime && LargeClaim && WorkShare >= LargeClaimWorkShare) {
    double Midpoint = largeClaimMidpoint(E, WorkShare);
    if (belowInNearlyEveryPair(E.Baseline, E.Variant, Midpoint))
      return Decide(CrossCheckVerdict::Suspect);
    D.Judged = belowInNearlyEveryPair(E.Variant, E.Baseline, 1 / Midpoint);
  }
  if (!D.Judged)
    return Decide(CrossCheckVerdict::Unconfirmed);
  return Decide(Confirms ? CrossCheckVerdict::Confirmed
                         : CrossCheckVerdict::Suspect);
}
