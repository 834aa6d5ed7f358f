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
#include "maxcode/Eval/CrossCheckPolicy.h"
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
struct EvaluatorImpl::CrossCheckState {
  CrossCheckState(EvaluatorImpl &E, Built &B, EvalResult &Out,
                  MeasureMode Other, TimingSet On, bool Bench)
      : E(E), B(B), Out(Out), Other(Other), On(On), Bench(Bench) {}

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

  EvaluatorImpl &E;
  Built &B;
  EvalResult &Out;
  MeasureMode Other;
  /// The timed inputs measured: those whose ratio Out reports.
  TimingSet On;
  bool Bench;
  std::vector<double> A, V;
  /// The baseline's CPU seconds in each pair, where timed in program mode.
  std::vector<double> ACpu;
  /// The start-up floor by time, measured with each batch of pairs.
  std::vector<double> Floors;
};

llvm::Expected<double>
EvaluatorImpl::CrossCheckState::measureOther(Built &X, double *Cpu) {
  if (Other == MeasureMode::Time)
    return E.Mode->measureWall(X, On, Cpu);
  // Instructions repeat exactly: the baseline's are counted once.
  if (&X == E.Baseline.get() && !E.baselineCost(On)[Other].empty())
    return sum(E.baselineCost(On)[Other]);
  auto C = E.Mode->measureOnce(X, Other, On, nullptr);
  if (!C)
    return C.takeError();
  if (&X == E.Baseline.get())
    E.baselineCost(On)[Other] = *C;
  return sum(*C);
}

bool EvaluatorImpl::CrossCheckState::measurePairs(unsigned N) {
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
    auto F = E.Mode->floorRuns(MeasureMode::Time, On);
    if (F)
      Floors.insert(Floors.end(), F->begin(), F->end());
    else
      llvm::consumeError(F.takeError()); // floorOf says why, with a note.
  }
  return true;
}

double EvaluatorImpl::CrossCheckState::floorOf(MeasureMode M) {
  if (M == MeasureMode::Time && !Floors.empty())
    return median(Floors);
  auto F = E.floorCost(M, On);
  if (!F) {
    // Asked again with each look at more pairs: one note says it.
    std::string Note = "cross-check without a start-up floor: " +
                       llvm::toString(F.takeError());
    if (!llvm::is_contained(Out.Notes, Note))
      Out.Notes.push_back(std::move(Note));
    return 0;
  }
  return *F;
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
/// alone, which RawRatio keeps; unless the user chose --credit-unconfirmed,
/// which the reason then says.
static void markUnconfirmed(EvalResult &Out, bool Bench,
                            const EvalConfig &Config, double OtherRatio) {
  bool OwnFigure = Config.Settings.CreditUnconfirmed;
  double Credit =
      OwnFigure ? Out.Ratio : std::min(Out.Ratio, std::max(1.0, OtherRatio));
  Out.Unconfirmed = true;
  Out.Reason =
      llvm::formatv("unconfirmed: {0:f3}x by {1}, which {2} cannot "
                    "judge here ({3:f2}x by {2}); credited {4:f3}x{5}",
                    Out.Ratio, primaryName(Bench, Config.Settings.Measure),
                    Out.CrossMeasure, OtherRatio, Credit,
                    OwnFigure ? " (" + Config.Names("CreditUnconfirmed") + ")"
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

void EvaluatorImpl::crossCheck(Built &B, TimingSet On, EvalResult &Out) {
  // Every credited speedup is measured again the other way (DESIGN section
  // 4): work moved where one measure does not look (into the kernel, a
  // child, valgrind's blind spots) shows up in the other, at any ratio.
  // Program mode: wall time for instructions, instructions for wall time;
  // project mode: a bench's own figure against its wall time. The verdict
  // is judgeCrossCheck's (CrossCheckPolicy.h); this measures what it asks.
  const MeasureTraits &Traits = measureTraits(Config.Settings.Measure);
  if (!Out.ok() || Out.Ratio <= 1 || !Traits.CrossCheckedBy)
    return;
  bool Bench = Mode->bench();
  // A bench's figure is judged by its wall time; a bench without a figure
  // of its own is measured by wall time already.
  MeasureMode Other = Bench ? MeasureMode::Time : *Traits.CrossCheckedBy;
  if (Bench && Config.Settings.BenchMetric.empty() &&
      Config.Settings.Measure == Other)
    return;
  Out.CrossMeasure = optionValueName(Other).str();
  if (Other == MeasureMode::Instructions &&
      !llvm::sys::findProgramByName("valgrind")) {
    Out.Notes.push_back("not cross-checked: valgrind is not installed");
    return;
  }
  CrossCheckState X(*this, B, Out, Other, On, Bench);
  bool ByTime = Other == MeasureMode::Time;
  if (!X.measurePairs(ByTime ? crosscheck::FirstTimedPairs : 1))
    return;
  CrossCheckEvidence Evidence;
  Evidence.ByTime = ByTime;
  Evidence.Claim = Out.Ratio;
  Evidence.SavedPrimary =
      savedShare(Out.BaselineCost, Out.VariantCost,
                 Bench ? 0 : X.floorOf(Config.Settings.Measure));
  CrossCheckDecision D;
  while (true) {
    Evidence.Baseline = X.A;
    Evidence.Variant = X.V;
    Evidence.BaselineCpu = X.ACpu;
    Evidence.Floor = X.floorOf(Other);
    D = judgeCrossCheck(Evidence);
    Out.CrossRatio = D.Comparison.RawRatio;
    MAXCODE_DEBUG(llvm::dbgs()
                  << DEBUG_TYPE << ": cross-check by " << Out.CrossMeasure
                  << ": " << X.A.size() << " pairs, baseline "
                  << D.Comparison.BaselineMedian << ", variant "
                  << D.Comparison.VariantMedian << ", floor " << Evidence.Floor
                  << ", baseline's work " << D.Work << ", noise "
                  << D.Comparison.Noise << ", spread " << D.Comparison.Spread
                  << ", saved " << Evidence.SavedPrimary << " by "
                  << optionValueName(Config.Settings.Measure) << ", "
                  << D.SavedOther << " by " << Out.CrossMeasure << "\n");
    if (D.Verdict != CrossCheckVerdict::MorePairs)
      break;
    if (!X.measurePairs(crosscheck::MorePairsPerLook))
      return;
  }
  switch (D.Verdict) {
  case CrossCheckVerdict::Confirmed:
  case CrossCheckVerdict::MorePairs:
    return;
  case CrossCheckVerdict::Suspect:
    return markSuspect(Out, Bench, Config.Settings.Measure,
                       D.Comparison.RawRatio);
  case CrossCheckVerdict::Unconfirmed:
    Out.Notes.push_back(
        cannotJudgeNote(Out.CrossMeasure, D.Comparison.RawRatio));
    return markUnconfirmed(Out, Bench, Config, D.Comparison.RawRatio);
  }
}

void EvaluatorImpl::creditHintsByTime(const Variant &V, EvalResult &Out) {
  // Pragmas and optimisation attributes mostly take loop-overhead
  // instructions away, which the CPU overlapped anyway: an unroll pragma
  // read 1.038x by instructions and 1% by wall time on a solver's hot loop.
  // By instructions such a variant is credited only what wall time
  // confirms; by time, or on a GPU, its measure is time already.
  if (!measureTraits(Config.Settings.Measure).HintsNeedTime || !Out.ok() ||
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

void EvaluatorImpl::creditHintsApart(const Variant &V, const Target &T,
                                     unsigned Repetitions, EvalResult &Out) {
  // Hints beside code would ride on the code's credit by instructions: an
  // optimize pragma with nine stdio edits that changed nothing read 1.027x
  // on a real project, where the pragma alone is credited only what wall
  // time confirms. The code alone is verified as any winner is; what the
  // hints add beyond it is the hints' share, credited only by time.
  // A credit that wall time confirmed whole is time's already; a reading
  // time could not judge is no confirmation, however high (a loaded
  // machine read 1.82x beside a count's 1.48x).
  if (!measureTraits(Config.Settings.Measure).HintsNeedTime || !Out.ok() ||
      Out.HintsOnly || Out.Suspect || Out.Ratio <= 1 ||
      (!Out.Unconfirmed && Out.CrossRatio >= Out.Ratio))
    return;
  std::optional<std::string> Code = withoutAddedHints(Original, V.Text);
  if (!Code)
    return;
  Variant Alone = V;
  Alone.Text = std::move(*Code);
  EvalResult C =
      verification(Alone, T, Repetitions, "code-alone", /*CrossCheck=*/true);
  // Code that does not build, pass or measure without its hints has no
  // share of its own to credit.
  double CodeCredit = C.ok() ? C.Ratio : 1.0;
  Out.CodeRatio = C.ok() ? C.Ratio : 1.0;
  if (!C.ok())
    Out.Notes.push_back("the code alone, its hints taken out, " +
                        evalStatusName(C.Status).str() + ": " + C.Reason);
  bool TimeConfirms = Out.CrossRatio > 1 && !Out.Unconfirmed;
  double Credit = std::min(
      Out.Ratio, std::max(CodeCredit, TimeConfirms ? Out.CrossRatio : 0.0));
  if (Credit >= Out.Ratio)
    return;
  // Worded as rule 9's verdict, the run-dependent time in parentheses.
  std::string ByTime =
      Out.CrossRatio ? llvm::formatv("{0:f3}x by time", Out.CrossRatio).str()
                     : std::string("time not measured");
  Out.Reason =
      llvm::formatv("unconfirmed: compiler hints beside code: {0:f3}x by "
                    "instructions, the code alone {1:f3}x ({2}); the hints' "
                    "share is credited only where wall time confirms it; "
                    "credited {3:f3}x",
                    Out.RawRatio, Out.CodeRatio, ByTime, Credit)
          .str();
  Out.Unconfirmed = true;
  Out.Ratio = Credit;
}
