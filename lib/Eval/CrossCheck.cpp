//===-- CrossCheck.cpp - The other measure's word -------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Every credited speedup is measured again the other way (DESIGN section 4):
// wall time for instructions, instructions for wall time, a bench's wall time
// for its own figure.
//
//===----------------------------------------------------------------------===//

#include "EvaluatorImpl.h"
#include "maxcode/Eval/CuptiRun.h"
#include "maxcode/Eval/EvalCache.h"
#include "maxcode/Eval/Statistics.h"
#include "maxcode/Frontend/CompilationDatabase.h"
#include "maxcode/Frontend/ParseSupport.h"
#include "maxcode/Frontend/Profile.h"
#include "maxcode/Rewrite/Hints.h"
#include "maxcode/Support/Debug.h"
#include "maxcode/Support/Options.h"
#include "maxcode/Support/TreeCopy.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SaveAndRestore.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <sys/stat.h>
#include <unistd.h>

#define DEBUG_TYPE "maxcode-eval"

using namespace maxcode;
using namespace maxcode::evaldetail;

/// The cross-check's measurements of baseline and variant by the other
/// measure (crossCheck), and the notes they leave in Out.
struct Evaluator::CrossCheckState {
  CrossCheckState(Evaluator &E, Built &B, EvalResult &Out, MeasureMode Other,
                  bool Bench)
      : E(E), B(B), Out(Out), Other(Other), Bench(Bench) {}

  /// One measurement of \p X by the other measure: its cost; by time, the
  /// CPU seconds it spent go to \p Cpu (left negative where not known).
  llvm::Expected<double> measureOther(Built &X, double *Cpu);
  /// \p N more pairs into A and V; false when measuring failed (Out then
  /// says why).
  bool measurePairs(unsigned N);
  /// The start-up floor of \p M; 0, with a note, when it cannot be had.
  /// By time in program mode, the median of the floor runs taken beside
  /// the pairs (measurePairs), so that both see the same load.
  double floorOf(MeasureMode M);

  Evaluator &E;
  Built &B;
  EvalResult &Out;
  MeasureMode Other;
  bool Bench;
  std::vector<double> A, V;
  /// The baseline's CPU seconds in each pair, where timed in program mode.
  std::vector<double> ACpu;
  /// The start-up floor by time, measured with each batch of pairs.
  std::vector<double> Floors;
};

llvm::Expected<double> Evaluator::CrossCheckState::measureOther(Built &X,
                                                                double *Cpu) {
  if (Other == MeasureMode::Time)
    return E.Mode->measureWall(X, Cpu);
  // Instructions repeat exactly: the baseline's are counted once.
  if (&X == E.Baseline.get() && !E.baselineCost()[Other].empty())
    return sum(E.baselineCost()[Other]);
  auto C = E.Mode->measureOnce(X, Other, nullptr);
  if (!C)
    return C.takeError();
  if (&X == E.Baseline.get())
    E.baselineCost()[Other] = *C;
  return sum(*C);
}

bool Evaluator::CrossCheckState::measurePairs(unsigned N) {
  for (unsigned I = 0; I < N; ++I) {
    double Cpu = -1;
    auto CA = measureOther(*E.Baseline, &Cpu);
    if (!CA) {
      Out.Notes.push_back("not cross-checked: " +
                          llvm::toString(CA.takeError()));
      return false;
    }
    auto CV = measureOther(B, nullptr);
    if (!CV) {
      // The variant fails when measured the other way: not a speedup.
      recordFailure(CV.takeError(), Out);
      Out.Reason += " (when cross-checked by " + Out.CrossMeasure + ")";
      return false;
    }
    A.push_back(*CA);
    V.push_back(*CV);
    if (Cpu >= 0)
      ACpu.push_back(Cpu);
  }
  // A floor timed once, in a quiet moment, beside pairs timed under load
  // (or the reverse) reads load as the baseline's own work, or its work as
  // start-up: the floor is timed again with every batch of pairs.
  if (Other == MeasureMode::Time && !Bench) {
    auto F = E.Mode->floorRuns(MeasureMode::Time);
    if (F)
      Floors.insert(Floors.end(), F->begin(), F->end());
    else
      llvm::consumeError(F.takeError()); // floorOf says why, with a note.
  }
  return true;
}

double Evaluator::CrossCheckState::floorOf(MeasureMode M) {
  if (M == MeasureMode::Time && !Floors.empty())
    return median(Floors);
  auto F = E.floorCost(M);
  if (!F) {
    Out.Notes.push_back("cross-check without a start-up floor: " +
                        llvm::toString(F.takeError()));
    return 0;
  }
  return *F;
}

/// The share of \p Base's cost above the floor \p Fl (of all of it, when
/// the floor is not below it) that \p Var saved.
static double savedShare(double Base, double Var, double Fl) {
  double Variable = Base - Fl > 0 ? Base - Fl : Base;
  return Variable > 0 ? (Base - Var) / Variable : 0;
}

/// The baseline's own work by the other measure in comparison \p C: its
/// cost above the start-up floor \p FloorOther, and by time no more than
/// the CPU seconds \p Cpu it spent (none known: empty). A baseline that
/// sleeps, or waits on a device or the disk, for most of its run does none
/// of the work instructions count meanwhile: a saving of its work is judged
/// against that work, not against its sleep (a 2 s sleep beside 20 ms of
/// work read an honest 2.2x by instructions as 1.001x by time, "suspect").
static double baselineWork(const PairedComparison &C, double FloorOther,
                           llvm::ArrayRef<double> Cpu) {
  double Work = C.BaselineMedian - FloorOther;
  if (!Cpu.empty())
    Work = std::min(Work, median(Cpu) - FloorOther);
  return Work;
}

/// Whether the other measure, comparison \p C with the baseline's own work
/// \p Work (baselineWork), cannot judge the speedup (crossCheck says why).
static bool cannotJudge(const PairedComparison &C, double Work,
                        double SavedPrimary, bool LargeClaim) {
  // Judged at any ratio (2026-12-02), a program of two milliseconds, most
  // of them its start-up, read 1.33x in one run and 0.95x in the next for
  // the same honest 1.6x: its own work must be at least half its run. A
  // variant a quarter slower than the baseline is judged whatever its work
  // (one that sleeps, or leaves its work to the kernel).
  // And a third of the saving the primary measure saw, in the share of
  // the run that is work, must stand out of the other measure's noise (its
  // runs' own, or its pairs' when those scatter more): otherwise what it
  // says is noise either way.
  double Noise = std::max(C.Noise, C.Spread);
  double Slower = C.VariantMedian - C.BaselineMedian;
  // (Slower at all beside a claim above 10x; a quarter slower beside a
  // small one, whose wall time may scatter that far.)
  bool ClearlySlower = Slower > 3 * Noise * C.BaselineMedian &&
                       (LargeClaim || Slower > 0.25 * C.BaselineMedian);
  if (ClearlySlower)
    return false;
  double WorkShare = Work / C.BaselineMedian;
  // A claim above 10x is judged wherever the work is a quarter of the run
  // and above the runs' own noise, as before: a loaded machine's scattered
  // pairs must not let a bench that silenced its own metric (98536x)
  // through unjudged.
  if (LargeClaim)
    return WorkShare < 0.25 || WorkShare < 3 * C.Noise;
  return WorkShare < 0.5 || SavedPrimary / 3 * WorkShare < 3 * Noise;
}

/// The note of a cross-check whose other measure, \p CrossMeasure, cannot
/// judge; \p RawRatio is the ratio it saw.
static std::string cannotJudgeNote(const std::string &CrossMeasure,
                                   double RawRatio) {
  return llvm::formatv("not cross-checked: the baseline's own work, or the "
                       "share of it saved, is below what {0} resolves "
                       "({1:f2}x by {0})",
                       CrossMeasure, RawRatio)
      .str();
}

/// How a result names the measure it was judged by.
static std::string primaryName(bool Bench, MeasureMode Primary) {
  return Bench && Primary != MeasureMode::Instructions
             ? "the bench's metric"
             : optionValueName(Primary).str();
}

/// Credits \p Out, whose speedup the other measure cannot judge, at most
/// what that measure saw, \p OtherRatio (rule 9): never the primary's claim
/// alone, which RawRatio keeps; unless the user chose \p OwnFigure
/// (--credit-unconfirmed), which the reason then says.
static void markUnconfirmed(EvalResult &Out, bool Bench, MeasureMode Primary,
                            double OtherRatio, bool OwnFigure) {
  double Credit =
      OwnFigure ? Out.Ratio : std::min(Out.Ratio, std::max(1.0, OtherRatio));
  Out.Unconfirmed = true;
  Out.Reason =
      llvm::formatv("unconfirmed: {0:f3}x by {1}, which {2} cannot "
                    "judge here ({3:f2}x by {2}); credited {4:f3}x{5}",
                    Out.Ratio, primaryName(Bench, Primary), Out.CrossMeasure,
                    OtherRatio, Credit,
                    OwnFigure ? " (" + optionRef("CreditUnconfirmed") + ")"
                              : std::string())
          .str();
  Out.Ratio = Credit;
}

/// Denies \p Out's speedup by \p Primary (the bench's metric with \p Bench),
/// which the other measure saw as \p OtherRatio.
static void markSuspect(EvalResult &Out, bool Bench, MeasureMode Primary,
                        double OtherRatio) {
  // Never credited: the speedup one measure sees and the other does not is
  // what a variant that games one of them looks like.
  Out.Suspect = true;
  std::string By = primaryName(Bench, Primary);
  std::string Other2 = Bench ? "its wall time" : Out.CrossMeasure;
  Out.Reason = llvm::formatv("suspect: {0:f1}x by {1}, but {2:f2}x by {3}; "
                             "not credited",
                             Out.Ratio, By, OtherRatio, Other2)
                   .str();
  Out.RawRatio = Out.Ratio;
  Out.Ratio = 1.0;
}

void Evaluator::crossCheck(Built &B, EvalResult &Out) {
  // Every credited speedup is measured again the other way (DESIGN section
  // 4): work moved where one measure does not look (into the kernel, a
  // child, valgrind's blind spots) shows up in the other, at any ratio.
  // Program mode: wall time for instructions, instructions for wall time;
  // project mode: a bench's own figure against its wall time. Both are
  // compared above the program's own start-up floor (floorCost), so that an
  // honest 4x by instructions on an input of milliseconds, which reads 1.2x
  // by time, is judged on the work it saved.
  if (!Out.ok() || Out.Ratio <= 1 || Config.Measure == MeasureMode::CudaKernel)
    return;
  bool Bench = Mode->bench();
  if (Bench && Config.BenchMetric.empty() &&
      Config.Measure != MeasureMode::Instructions)
    return; // Wall time already.
  MeasureMode Other = Config.Measure == MeasureMode::Instructions || Bench
                          ? MeasureMode::Time
                          : MeasureMode::Instructions;
  Out.CrossMeasure = optionValueName(Other).str();
  if (Other == MeasureMode::Instructions &&
      !llvm::sys::findProgramByName("valgrind")) {
    Out.Notes.push_back("not cross-checked: valgrind is not installed");
    return;
  }
  CrossCheckState X(*this, B, Out, Other, Bench);
  // Three timed pairs first; more only before calling a result suspect
  // (below), so that one noisy pair on a loaded machine cannot deny an
  // honest speedup.
  unsigned Reps = Other == MeasureMode::Time ? 3 : 1;
  if (!X.measurePairs(Reps))
    return;
  PairedComparison C = comparePaired(X.A, X.V, 0.01);
  Out.CrossRatio = C.RawRatio;
  // The two measures agree on what share of the baseline's cost the variant
  // saved, beyond the cost of starting a program at all (which wall time
  // pays in full and instructions hardly count): near that floor their
  // ratios are ill-conditioned, their savings are not. The other measure
  // must confirm at least a third of the saving.
  double FloorPrimary = Bench ? 0 : X.floorOf(Config.Measure);
  double FloorOther = X.floorOf(Other);
  // The other measure can only speak to work it resolves: a baseline whose
  // own work is a small part of its run (the rest starting a process), or
  // inside that measure's noise, confirms nothing. It still denies: a
  // variant that costs more than the baseline by it, beyond its noise (one
  // that sleeps, or waits for a child, on a loaded machine), is no speedup.
  // Whether the other measure can judge, asked again after a second look;
  // when it cannot, the note says so.
  double SavedPrimary =
      savedShare(Out.BaselineCost, Out.VariantCost, FloorPrimary);
  // Whether the baseline's run by the other measure is mostly its own work,
  // at least half of it above the start-up floor, by wall time and by the
  // CPU seconds it spent (baselineWork): a loaded machine stretches the
  // first, not the second.
  auto IsMostlyWork = [&](const PairedComparison &P) {
    return baselineWork(P, FloorOther, X.ACpu) >= 0.5 * P.BaselineMedian;
  };
  auto CanJudge = [&] {
    MAXCODE_DEBUG(llvm::dbgs()
                  << DEBUG_TYPE << ": cross-check by " << Out.CrossMeasure
                  << ": " << X.A.size() << " pairs, baseline "
                  << C.BaselineMedian << ", variant " << C.VariantMedian
                  << ", floor " << FloorOther << ", baseline's work "
                  << baselineWork(C, FloorOther, X.ACpu) << ", noise "
                  << C.Noise << ", spread " << C.Spread << "\n");
    // The sign test speaks only where the baseline's run is mostly its own
    // work (IsMostlyWork): in a run of a millisecond or two the order
    // within the pairs is the machine's, and a second look at an honest
    // 8.7x (PIE's p02608) read it slower in 8 of 9 pairs.
    return (IsMostlyWork(C) && slowerInNearlyEveryPair(X.A, X.V, C.RawRatio)) ||
           !cannotJudge(C, baselineWork(C, FloorOther, X.ACpu), SavedPrimary,
                        Out.Ratio > 10);
  };
  // The share of the baseline's own work the variant saved by the other
  // measure.
  auto SavedByOther = [&] {
    double Work = baselineWork(C, FloorOther, X.ACpu);
    return Work > 0 ? (C.BaselineMedian - C.VariantMedian) / Work
                    : savedShare(C.BaselineMedian, C.VariantMedian, 0);
  };
  bool Judged = CanJudge();
  double SavedOther = SavedByOther();
  // Six more pairs, judged again; false when measuring failed.
  auto MorePairs = [&] {
    if (!X.measurePairs(6))
      return false;
    FloorOther = X.floorOf(Other);
    C = comparePaired(X.A, X.V, 0.01);
    Out.CrossRatio = C.RawRatio;
    Judged = CanJudge();
    SavedOther = SavedByOther();
    return true;
  };
  // A second look, six more pairs, before a verdict that denies, before
  // giving up on a claim time does not confirm, and before calling it
  // unconfirmed (credited what time saw): three pairs' spread is one
  // loaded moment's (a variant 1.8x slower in every pair read 31% noise by
  // its runs on a busy machine, which judged nothing); nine pairs' is the
  // machine's.
  if (Other == MeasureMode::Time &&
      (SavedOther < SavedPrimary / 3 || !Judged) && !MorePairs())
    return;
  // Time reading the variant a tenth slower or more, but too scattered to
  // judge (a loaded machine stretches wall time, not the CPU time the
  // baseline's work is judged by, nor the order within the pairs): up to
  // 21 pairs, for the sign test to speak (CI read a variant twice as slow
  // by time 0.67x in nine pairs, not judged, and credited its 6.3x). Only
  // where the baseline's run is mostly its own work, above the start-up
  // floor: in a run of a millisecond or two the order within the pairs is
  // the machine's (an honest 1.6x of PIE's p00256 read 0.64x in 16 of 21
  // pairs), which says nothing of the work. Slower at all, not a tenth: the
  // suite's own load read a variant twice as slow by time (work moved into
  // the kernel) 0.91x, unjudged, and credited its 6.3x by instructions.
  bool MostlyWork = IsMostlyWork(C);
  while (!Judged && Other == MeasureMode::Time && MostlyWork &&
         C.RawRatio < 1 && X.A.size() < 21)
    if (!MorePairs())
      return;
  // Still unjudged after every pair, the variant slower by time in a run
  // that is mostly work, which the primary measure says it halved or
  // better: time contradicts the claim (load slows both runs of a pair
  // alike; it does not turn a halving into a loss).
  if (!Judged && Other == MeasureMode::Time && MostlyWork && C.RawRatio < 1 &&
      SavedPrimary >= 0.5)
    return markSuspect(Out, Bench, Config.Measure, C.RawRatio);
  if (!Judged) {
    Out.Notes.push_back(cannotJudgeNote(Out.CrossMeasure, C.RawRatio));
    return markUnconfirmed(Out, Bench, Config.Measure, C.RawRatio,
                           Config.CreditUnconfirmed);
  }
  MAXCODE_DEBUG(llvm::dbgs()
                << DEBUG_TYPE << ": cross-check saved " << SavedPrimary
                << " by " << optionValueName(Config.Measure) << ", "
                << SavedOther << " by " << Out.CrossMeasure << "\n");
  if (SavedOther >= SavedPrimary / 3)
    return;
  markSuspect(Out, Bench, Config.Measure, C.RawRatio);
}

void Evaluator::creditHintsByTime(const Variant &V, EvalResult &Out) {
  // Pragmas and optimisation attributes mostly take loop-overhead
  // instructions away, which the CPU overlapped anyway: an unroll pragma
  // read 1.038x by instructions and 1% by wall time on a solver's hot loop.
  // By instructions such a variant is credited only what wall time
  // confirms; by time, or on a GPU, its measure is time already.
  if (Config.Measure != MeasureMode::Instructions || !Out.ok() ||
      (Out.Ratio <= 1 && !Out.Unconfirmed && !Out.Suspect) ||
      !changesOnlyCompilerHints(Original, V.Text))
    return;
  Out.HintsOnly = true;
  if (Out.Suspect)
    return; // Credited nothing already, and said why.
  bool Confirmed = Out.CrossRatio > 1 && !Out.Suspect && !Out.Unconfirmed;
  double Credit = Confirmed ? std::min(Out.Ratio, Out.CrossRatio) : 1.0;
  std::string ByTime = Out.CrossRatio
                           ? llvm::formatv("{0:f3}x", Out.CrossRatio).str()
                           : std::string("not measured");
  Out.Reason =
      llvm::formatv("compiler hints only: {0:f3}x by instructions, {1} by "
                    "time; {2}; credited {3:f3}x",
                    Out.RawRatio, ByTime,
                    Confirmed ? "credited what wall time confirms"
                              : "hints are credited only where wall time "
                                "confirms them",
                    Credit)
          .str();
  // Unconfirmed whatever --credit-unconfirmed says: that is for work too
  // small for time to resolve, not for counts the CPU does not pay.
  Out.Unconfirmed = !Confirmed;
  Out.Ratio = Credit;
}
