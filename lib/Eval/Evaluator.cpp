//===-- Evaluator.cpp - Build, check and time variants --------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The Evaluator orchestrates (DESIGN section 4): the baseline first, then
// each variant screened and built beside it, checked, measured, and for a
// winner verified on inputs the search never saw. What program and project
// mode do differently is their harness's (ProgramHarness.cpp,
// ProjectHarness.cpp); building, running and the cross-check are their own
// files (EvalBuild.cpp, EvalRun.cpp, CrossCheck.cpp).
//
//===----------------------------------------------------------------------===//

#include "EvaluatorImpl.h"
#include "maxcode/Eval/CuptiRun.h"
#include "maxcode/Eval/EvalCache.h"
#include "maxcode/Eval/Statistics.h"
#include "maxcode/Frontend/CompilationDatabase.h"
#include "maxcode/Frontend/ParseSupport.h"
#include "maxcode/Frontend/Profile.h"
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
#include <sys/stat.h>
#include <unistd.h>

#define DEBUG_TYPE "maxcode-eval"

using namespace maxcode;
using namespace maxcode::evaldetail;

//===----------------------------------------------------------------------===//
// The interface: each call is the implementation's.
//===----------------------------------------------------------------------===//

Evaluator::Evaluator(std::unique_ptr<EvaluatorImpl> Impl)
    : Impl(std::move(Impl)) {}
Evaluator::~Evaluator() = default;

llvm::Expected<std::unique_ptr<Evaluator>>
Evaluator::create(EvalConfig Config, Executor &Exec, EvalCache *Cache) {
  auto Impl = EvaluatorImpl::create(std::move(Config), Exec, Cache);
  if (!Impl)
    return Impl.takeError();
  return std::unique_ptr<Evaluator>(new Evaluator(std::move(*Impl)));
}

llvm::Error Evaluator::prepareBaseline(const Target *T) {
  return Impl->prepareBaseline(T);
}
std::vector<EvalResult> Evaluator::evaluate(llvm::ArrayRef<Variant> Variants,
                                            const Target &T) {
  return Impl->evaluate(Variants, T);
}
EvalResult Evaluator::evaluate(const Variant &V, const Target &T) {
  return Impl->evaluate(V, T);
}
EvalResult Evaluator::retime(const Variant &V, const Target &T,
                             unsigned Repetitions) {
  return Impl->retime(V, T, Repetitions);
}
EvalResult Evaluator::verify(const Variant &V, const Target &T,
                             unsigned Repetitions) {
  return Impl->verify(V, T, Repetitions);
}
CpuEvidence Evaluator::cpuEvidence(const Target &T) {
  return Impl->cpuEvidence(T);
}
const EvalConfig &Evaluator::config() const { return Impl->config(); }
llvm::StringRef Evaluator::originalText() const { return Impl->originalText(); }
double Evaluator::processSeconds() const { return Impl->processSeconds(); }
std::string Evaluator::cacheKey(const Variant &V, const Target &T) const {
  return Impl->cacheKey(V, T);
}
unsigned Evaluator::feedbackTestCount() const {
  return Impl->feedbackTestCount();
}
unsigned Evaluator::heldOutTestCount() const {
  return Impl->heldOutTestCount();
}
llvm::Expected<std::vector<ApiUse>>
Evaluator::addedCalls(llvm::StringRef VariantText, const Target &T) {
  return Impl->addedCalls(VariantText, T);
}
WorkloadFacts Evaluator::workload() const { return Impl->workload(); }
SanitizerVerdict Evaluator::sanitize(const Variant &V) {
  return Impl->sanitize(V);
}

//===----------------------------------------------------------------------===//
// The implementation.
//===----------------------------------------------------------------------===//

EvaluatorImpl::EvaluatorImpl(EvalConfig C, Executor &E, EvalCache *Cache)
    : Config(std::move(C)), Exec(E), Cache(Cache) {}

EvaluatorImpl::~EvaluatorImpl() = default;

double EvaluatorImpl::processSeconds() const {
  std::lock_guard<std::mutex> L(StatsMutex);
  return ProcessTime;
}

EvaluatorImpl::Harness::~Harness() = default;

llvm::Error EvaluatorImpl::Harness::simulateRun(Built &B,
                                                std::vector<std::string> Argv,
                                                llvm::StringRef Stdin,
                                                llvm::StringRef What,
                                                CallgrindProfile &Into) {
  RunRequest R;
  R.Stdin = Stdin.str();
  R.Argv =
      evaldetail::callgrindArgv("@PROFILE@/callgrind.out.%p", std::move(Argv),
                                /*LineInfo=*/true, simulationOptions());
  R.LogFd = 3;
  R.Profile = true;
  R.Kind = JobKind::Check; // Simulated counts do not depend on the load.
  // The simulation runs about twice as long as a count.
  R.WallSeconds = std::max(120.0, 80 * E.Config.Settings.Timeout);
  auto Run = E.runOnce(B, R);
  if (!Run)
    return Run.takeError();
  if (auto Why = evaldetail::classifyRun(Run->Proc, &Run->Report, What))
    return llvm::createStringError(Why->second);
  evaldetail::forEachProfile(Run->ProfileDir->path(),
                             [&](const CallgrindProfile &P) { Into.merge(P); });
  return llvm::Error::success();
}

/// What `<compiler> --version` prints: part of the cache key, so that a new
/// compiler never answers from an old one's evaluations.
static std::string compilerVersion(const clang::tooling::CompileCommand &C,
                                   llvm::StringRef File) {
  std::vector<std::string> Argv =
      variantCompileCommand(C, File, File, "/dev/null", false, false);
  ProcessSpec S;
  S.Argv = {Argv.front(), "--version"};
  S.Limits.WallSeconds = 30;
  auto R = runProcess(S);
  if (!R)
    return "unknown: " + llvm::toString(R.takeError());
  return Argv.front() + "\n" + R->Stdout;
}

llvm::Expected<std::unique_ptr<EvaluatorImpl>>
EvaluatorImpl::create(EvalConfig Config, Executor &Exec, EvalCache *Cache) {
  auto Buf = llvm::MemoryBuffer::getFile(Config.File);
  if (!Buf)
    return llvm::createStringError("cannot read '" + Config.File +
                                   "': " + Buf.getError().message());
  if (Config.TimerPath.empty() || !llvm::sys::fs::can_execute(Config.TimerPath))
    return llvm::createStringError(
        "maxcode-timer, which supervises every run, is not beside the tool "
        "('" +
        Config.TimerPath + "'); reinstall clang-maxcode");
  if (!(Config.Settings.Timeout > 0 && Config.Settings.Timeout <= 86400))
    return llvm::createStringError(
        Config.Names("Timeout") +
        " must be a number of seconds above 0 (and at most a day)");
  std::unique_ptr<EvaluatorImpl> E(
      new EvaluatorImpl(std::move(Config), Exec, Cache));
  E->Original = (*Buf)->getBuffer().str();
  const EvalConfig &C = E->Config;
  E->Mode = C.programMode() ? makeProgramHarness(*E) : makeProjectHarness(*E);
  if (llvm::Error Err = E->Mode->prepare())
    return Err;
  if (C.Settings.Measure == MeasureMode::CudaKernel)
    if (llvm::Error Err = checkCudaMeasurable(C.CuptiLibrary, C.Names))
      return Err;
  // What makes two evaluations the same, besides the variant: everything
  // that can change a result (DESIGN section 4).
  llvm::SHA256 H;
  // The rules a result was judged by: a stored result from before a rule
  // changed (the linked-program check, answers held to the baseline's) is
  // not this tool's verdict.
  H.update(llvm::StringRef("judged-by-rules-2026-12-05"));
  for (const std::string &A : C.Command.CommandLine)
    H.update(A + '\0');
  for (llvm::StringRef Field :
       {llvm::StringRef(C.Command.Directory), llvm::StringRef(C.File),
        optionValueName(C.Settings.Measure), editScopeName(C.Scope),
        llvm::StringRef(C.Settings.BuildCommand),
        llvm::StringRef(C.Settings.TestCommand),
        llvm::StringRef(C.Settings.BenchCommand),
        llvm::StringRef(C.Settings.HoldoutCommand),
        llvm::StringRef(C.Settings.HoldoutBenchCommand),
        llvm::StringRef(C.Settings.BenchMetric), optionValueName(C.Sandbox)})
    H.update(Field.str() + '\0');
  for (double D : {C.Settings.Tolerance, C.Settings.HeldOut, C.Settings.Timeout,
                   double(C.Settings.MeasureTests),
                   double(C.Settings.Repetitions), double(C.Settings.Warmups),
                   double(C.MemoryLimitBytes), double(C.TmpBytes)})
    H.update(std::to_string(D) + '\0');
  for (const std::vector<std::string> *L :
       {&C.Settings.AllowApi, &C.Settings.PassEnv})
    for (const std::string &S : *L)
      H.update(S + '\0');
  H.update(compilerVersion(C.Command, C.File) + '\0');
  E->Mode->fingerprint(H);
  E->Fingerprint = llvm::toHex(H.final(), true);
  return E;
}

unsigned EvaluatorImpl::feedbackTestCount() const {
  return Mode->testCount(TimingSet::Feedback);
}

unsigned EvaluatorImpl::heldOutTestCount() const {
  return Mode->testCount(TimingSet::HeldOut);
}

std::string EvaluatorImpl::cacheKey(const Variant &V, const Target &T) const {
  llvm::SHA256 H;
  H.update(Fingerprint + '\0' + T.Name + '\0' + V.Text);
  return llvm::toHex(H.final(), true);
}

llvm::Expected<const VariantScreen *>
EvaluatorImpl::screenFor(const Target &T) {
  std::lock_guard<std::mutex> L(ScreenMutex);
  if (!Screen || ScreenTarget != T.Name) {
    // The screen reads what the build compiler compiles: GCC's branches
    // when GCC builds.
    std::vector<std::string> Build =
        variantCompileCommand(Config.Command, Config.File, Config.File, "a.out",
                              /*Link=*/false, /*DebugInfo=*/false);
    std::string Macros;
    if (isGccCommand(Build))
      Macros = gccPredefinedMacros(Build, Config.Command.Directory);
    auto S = VariantScreen::create(
        Config.Command, Config.File, Config.Parse, Original, T, Config.Scope,
        Config.Settings.AllowApi, Config.Names, std::move(Macros));
    if (!S)
      return S.takeError();
    Screen = std::move(*S);
    ScreenTarget = T.Name;
  }
  return Screen.get();
}

std::optional<std::string> EvaluatorImpl::screen(const Variant &V,
                                                 const Target &T) {
  auto S = screenFor(T);
  if (!S)
    return "the static screen could not run: " + llvm::toString(S.takeError());
  return (*S)->screen(V.Text);
}

llvm::Expected<std::vector<ApiUse>>
EvaluatorImpl::addedCalls(llvm::StringRef Text, const Target &T) {
  auto S = screenFor(T);
  if (!S)
    return S.takeError();
  return (*S)->addedCalls(Text);
}

llvm::Error EvaluatorImpl::prepareBaseline(const Target *T) {
  // The static screen's parse of the original runs beside the baseline's
  // build and runs: on two cores that is most of its cost hidden.
  // The pool's destructor waits for the parse, however this returns.
  llvm::DefaultThreadPool Screening(llvm::hardware_concurrency(1));
  if (T)
    Screening.async([this, T] {
      if (auto S = screenFor(*T); !S)
        llvm::consumeError(S.takeError()); // Said again at the first screen.
    });
  Built B = build(Original, "baseline");
  if (!B.Ok) {
    std::string Log = B.Result.BuildLog;
    if (Log.size() > 4000)
      Log.resize(4000);
    return llvm::createStringError(
        "the unmodified program does not build (" + B.Result.Reason +
        "); fix it first: every variant is compared with it\n" + Log);
  }
  Baseline = std::make_unique<Built>(std::move(B));
  Mode->baselineBuilt(*Baseline);
  // Every test, held-out ones included: a baseline must pass them all.
  EvalResult R = Baseline->Result;
  R.Status = EvalStatus::Ok;
  Mode->check(*Baseline, /*HeldOutToo=*/true, R);
  if (R.Status != EvalStatus::Ok) {
    std::string Advice = "fix it first: every variant is compared with it";
    if (R.Status == EvalStatus::Timeout) {
      Advice.clear();
      llvm::raw_string_ostream(Advice)
          << "if it needs longer than "
          << llvm::format("%g", Config.Settings.Timeout) << " s a run, raise "
          << Config.Names("Timeout");
    }
    return llvm::createStringError("the unmodified program fails its own "
                                   "tests (" +
                                   evalStatusName(R.Status).str() + ": " +
                                   R.Reason + "); " + Advice);
  }
  if (llvm::Error E = Mode->learnFromBaseline())
    return E;
  // Deterministic measures are taken once; timed ones beside each variant.
  if (measureTraits(Config.Settings.Measure).Deterministic) {
    // Its hot lines are the workload's words for the model (workload()).
    EvalResult Profile;
    auto Costs = Mode->measureOnce(*Baseline, Config.Settings.Measure,
                                   TimingSet::Feedback, &Profile);
    if (!Costs)
      return llvm::createStringError(
          "the unmodified program cannot be measured: " +
          llvm::toString(Costs.takeError()));
    baselineCost(TimingSet::Feedback)[Config.Settings.Measure] = *Costs;
    mergeHotLines(Profile.HotLines, sum(*Costs));
    BaselineHotLines = std::move(Profile.HotLines);
  } else {
    // A baseline that cannot be timed is said here, not at every variant.
    auto Costs = Mode->measureOnce(*Baseline, Config.Settings.Measure,
                                   TimingSet::Feedback, nullptr);
    if (!Costs)
      return llvm::createStringError(
          "the unmodified program cannot be measured: " +
          llvm::toString(Costs.takeError()));
  }
  return llvm::Error::success();
}

void EvaluatorImpl::screenAndBuild(llvm::ArrayRef<const Variant *> Vs,
                                   const Target &T, llvm::StringRef Tag,
                                   std::vector<std::optional<std::string>> &Why,
                                   std::vector<std::optional<Built>> &Builds) {
  // The screen's parse and the compiler on different cores at once, each
  // in its own pool (-j counts builds: with -j 1 a screen still runs beside
  // the build, which on a real project saved the parse's second of every
  // evaluation); the build of a variant the screen rejects is thrown away
  // unused.
  Why.assign(Vs.size(), std::nullopt);
  Builds.clear();
  Builds.resize(Vs.size());
  auto Width = llvm::hardware_concurrency(std::max(1u, Exec.parallelism()));
  llvm::DefaultThreadPool Screens(Width), BuildPool(Width);
  for (size_t I = 0; I < Vs.size(); ++I) {
    Screens.async([&, I] { Why[I] = screen(*Vs[I], T); });
    BuildPool.async([&, I] { Builds[I].emplace(build(Vs[I]->Text, Tag)); });
  }
  Screens.wait();
  BuildPool.wait();
  // Behind the screen, the linked program: what the compiler made of the
  // spelling (DESIGN section 4, rule 7).
  for (size_t I = 0; I < Vs.size(); ++I)
    if (!Why[I] && BaselineBinary && Builds[I]->Ok) {
      auto Facts = readBinaryFacts(Builds[I]->Exe);
      if (!Facts)
        Why[I] = llvm::toString(Facts.takeError());
      else
        Why[I] = judgeBinary(*BaselineBinary, *Facts, Config.Settings.AllowApi,
                             Config.Names);
    }
  for (size_t I = 0; I < Vs.size(); ++I)
    if (Why[I]) {
      MAXCODE_DEBUG(llvm::dbgs()
                    << DEBUG_TYPE << ": rejected '" << Vs[I]->Description
                    << "': " << *Why[I] << "\n");
      Builds[I].reset();
    }
}

std::vector<EvalResult>
EvaluatorImpl::evaluate(llvm::ArrayRef<Variant> Variants, const Target &T) {
  std::vector<EvalResult> Results(Variants.size());
  std::vector<std::string> Keys(Variants.size());
  std::vector<size_t> Fresh;
  std::vector<const Variant *> ToBuild;
  for (size_t I = 0; I < Variants.size(); ++I) {
    Keys[I] = cacheKey(Variants[I], T);
    if (Cache)
      if (std::optional<EvalResult> Hit = Cache->lookup(Keys[I])) {
        Results[I] = std::move(*Hit);
        Results[I].FromCache = true;
        continue;
      }
    Fresh.push_back(I);
    ToBuild.push_back(&Variants[I]);
  }
  std::vector<std::optional<std::string>> Why;
  std::vector<std::optional<Built>> Builds;
  screenAndBuild(ToBuild, T, "variant", Why, Builds);
  // Checks and measurements one variant at a time.
  for (size_t K = 0; K < Fresh.size(); ++K) {
    size_t I = Fresh[K];
    if (Why[K]) {
      Results[I].Status = EvalStatus::Rejected;
      Results[I].Reason = *Why[K];
    } else {
      Built &B = *Builds[K];
      Results[I] = B.Ok ? checkAndMeasure(B, Config.Settings.Repetitions, false)
                        : B.Result;
      if (Config.Settings.Measure == MeasureMode::CudaKernel && Results[I].ok())
        collectGpuMetrics(B, T.Name, Results[I]);
      Results[I].JobIds = std::move(B.JobIds);
      Builds[K].reset();
    }
    // An interrupted evaluation says nothing about the variant.
    if (Cache && !interrupted())
      if (llvm::Error E = Cache->store(Keys[I], Results[I]))
        Results[I].Notes.push_back("not cached: " +
                                   llvm::toString(std::move(E)));
  }
  return Results;
}

EvalResult EvaluatorImpl::evaluate(const Variant &V, const Target &T) {
  return evaluate(llvm::ArrayRef<Variant>(V), T).front();
}

EvalResult EvaluatorImpl::retime(const Variant &V, const Target &T,
                                 unsigned Repetitions) {
  return verification(V, T, Repetitions, "retime", /*CrossCheck=*/false);
}

EvalResult EvaluatorImpl::verify(const Variant &V, const Target &T,
                                 unsigned Repetitions) {
  EvalResult R = verification(V, T, Repetitions, "verify", /*CrossCheck=*/true);
  creditHintsApart(V, T, Repetitions, R);
  return R;
}

EvalResult EvaluatorImpl::verification(const Variant &V, const Target &T,
                                       unsigned Repetitions,
                                       llvm::StringRef Tag, bool CrossCheck) {
  std::vector<std::optional<std::string>> Why;
  std::vector<std::optional<Built>> Builds;
  screenAndBuild({&V}, T, Tag, Why, Builds);
  EvalResult R;
  if (Why[0]) {
    R.Status = EvalStatus::Rejected;
    R.Reason = *Why[0];
    return R;
  }
  Built &B = *Builds[0];
  // Every test, and the ratio on held-out inputs (DESIGN section 4, rule
  // 10): the incumbent's re-time as much as the winner's verification.
  R = B.Ok ? checkAndMeasure(B, Repetitions, /*HeldOutToo=*/true) : B.Result;
  if (B.Ok && R.ok())
    measureHeldOut(B, Repetitions, R);
  if (B.Ok && CrossCheck) {
    // The cross-check measures the inputs whose ratio is reported.
    crossCheck(B,
               R.TimedOn == TimingSet::HeldOut ? TimingSet::HeldOut
                                               : TimingSet::Feedback,
               R);
    creditHintsByTime(V, R);
  }
  R.JobIds = std::move(B.JobIds);
  return R;
}

/// Credits \p R 1.0 (rule 10): no input the search did not see can judge
/// its speedup, for reason \p Why; the ratio on the inputs it saw stays in
/// RawRatio and in the reason, never in the credit.
static void markUnverified(EvalResult &R, const std::string &Why) {
  R.Unverified = true;
  R.Reason = llvm::formatv("unverified: {0:f3}x on the inputs the search saw, "
                           "which no other input could confirm ({1}); "
                           "credited 1.000x",
                           R.RawRatio, Why)
                 .str();
  R.Ratio = 1.0;
}

void EvaluatorImpl::measureHeldOut(Built &B, unsigned Repetitions,
                                   EvalResult &R) {
  R.TimedOn = TimingSet::Feedback;
  // No input the search did not see at all: the ratio is the one on the
  // inputs it saw, and the note says so (too small a one is unverified,
  // below).
  if (std::optional<std::string> Why = Mode->noHeldOutTiming()) {
    R.Notes.push_back(std::move(*Why));
    return;
  }
  constexpr TimingSet On = TimingSet::HeldOut;
  if (measureTraits(Config.Settings.Measure).Deterministic &&
      baselineCost(On)[Config.Settings.Measure].empty()) {
    auto Costs =
        Mode->measureOnce(*Baseline, Config.Settings.Measure, On, nullptr);
    if (!Costs) {
      recordFailure(Costs.takeError(), R);
      R.Reason =
          "the baseline cannot be measured on the held-out inputs: " + R.Reason;
      return;
    }
    baselineCost(On)[Config.Settings.Measure] = *Costs;
  }
  // Only the ratio comes back: the held-out runs' hot lines and failures
  // say nothing of what they expected.
  EvalResult H;
  H.Status = EvalStatus::Ok;
  measure(B, Repetitions, On, H);
  if (!H.ok() && Mode->bench())
    H.Reason = "on the held-out bench: " + H.Reason;
  if (!H.ok()) {
    R.Status = H.Status;
    R.Reason = H.Reason;
    R.FirstFailure = H.FirstFailure;
    return;
  }
  // Held-out inputs that cost far less than the feedback ones (a sample
  // test, where the search timed the real workload) cannot show a speedup
  // that grows with the work, honest or not: an honest 4x reads 1.0 there,
  // as a variant that remembers its answers does. They judge nothing, and
  // the result says so rather than pretend either way.
  double PerFeedback =
      R.BaselineCost /
      std::max<size_t>(1, Mode->timedCount(TimingSet::Feedback));
  double PerHeldOut = H.BaselineCost /
                      std::max<size_t>(1, Mode->timedCount(TimingSet::HeldOut));
  if (PerHeldOut < 0.5 * PerFeedback) {
    if (R.Ratio > 1)
      markUnverified(
          R, llvm::formatv("the held-out inputs cost the baseline {0:f0}% of "
                           "a feedback input each, too little to show a "
                           "speedup that grows with the work; held-out tests "
                           "as costly as the others would judge it",
                           100 * PerHeldOut / PerFeedback)
                 .str());
    return;
  }
  double FeedbackRaw = R.RawRatio;
  bool ShownOnly = fastOnlyOnShownInputs(
      R, H, double(std::max<size_t>(1, Mode->timedCount(TimingSet::Feedback))),
      double(std::max<size_t>(1, Mode->timedCount(TimingSet::HeldOut))));
  R.FeedbackRatio = FeedbackRaw;
  R.TimedOn = TimingSet::HeldOut;
  R.BaselineCost = H.BaselineCost;
  R.VariantCost = H.VariantCost;
  R.Ratio = H.Ratio;
  R.RawRatio = H.RawRatio;
  R.RatioSpread = H.RatioSpread;
  R.Noise = H.Noise;
  R.Reason = H.Reason;
  if (ShownOnly) {
    R.ShownInputsOnly = true;
    R.Reason = llvm::formatv("fast only on the inputs it was shown: {0:f2}x "
                             "on the feedback inputs, {1:f2}x on held-out "
                             "ones; credited the held-out ratio",
                             FeedbackRaw, H.RawRatio)
                   .str();
  }
}

WorkloadFacts EvaluatorImpl::workload() const {
  WorkloadFacts W;
  Mode->addWorkload(W);
  W.BaselineHotLines = BaselineHotLines;
  if (const MeasureTraits &M = measureTraits(Config.Settings.Measure);
      M.Deterministic) {
    W.CostUnit = M.Unit.str();
    auto It =
        BaselineCost[int(TimingSet::Feedback)].find(Config.Settings.Measure);
    if (It != BaselineCost[int(TimingSet::Feedback)].end())
      W.BaselineCost = sum(It->second);
  }
  return W;
}

void maxcode::mergeHotLines(std::vector<HotLine> &Lines, double Total) {
  std::map<unsigned, double> ByLine;
  for (const HotLine &H : Lines)
    ByLine[H.Line] += H.Share;
  Lines.clear();
  for (const auto &[Line, Cost] : ByLine)
    if (Total > 0)
      Lines.push_back({Line, Cost / Total});
  llvm::sort(Lines, [](const HotLine &X, const HotLine &Y) {
    return X.Share > Y.Share || (X.Share == Y.Share && X.Line < Y.Line);
  });
  if (Lines.size() > 10)
    Lines.resize(10);
}

EvalResult EvaluatorImpl::checkAndMeasure(Built &B, unsigned Repetitions,
                                          bool HeldOutToo) {
  EvalResult Out = B.Result;
  Out.Status = EvalStatus::Ok;
  Mode->check(B, HeldOutToo, Out);
  if (!Out.ok())
    return Out;
  measure(B, Repetitions, TimingSet::Feedback, Out);
  return Out;
}

void EvaluatorImpl::measure(Built &B, unsigned Repetitions, TimingSet On,
                            EvalResult &Out) {
  const MeasureTraits &Traits = measureTraits(Config.Settings.Measure);
  // A bench's own figure stands in for its wall time.
  Out.CostUnit = Config.Settings.Measure == MeasureMode::Time &&
                         Mode->bench() && !Config.Settings.BenchMetric.empty()
                     ? "bench-metric"
                     : Traits.Unit.str();
  std::vector<double> A, V;
  if (Traits.Deterministic) {
    auto Costs = Mode->measureOnce(B, Config.Settings.Measure, On, &Out);
    if (!Costs)
      return recordFailure(Costs.takeError(), Out);
    A = {sum(baselineCost(On)[Config.Settings.Measure])};
    V = {sum(*Costs)};
    Out.Repetitions = 1;
  } else {
    // Warm-ups, then baseline and variant alternated: A B A B ...
    for (bool Warm : {true, false}) {
      unsigned Reps = Warm ? Config.Settings.Warmups : Repetitions;
      for (unsigned I = 0; I < Reps; ++I) {
        auto CA =
            Mode->measureOnce(*Baseline, Config.Settings.Measure, On, nullptr);
        if (!CA) {
          recordFailure(CA.takeError(), Out);
          Out.Status = EvalStatus::Crash;
          Out.Reason = "the baseline failed while timing: " + Out.Reason;
          return;
        }
        auto CV = Mode->measureOnce(B, Config.Settings.Measure, On,
                                    Warm ? nullptr : &Out);
        if (!CV)
          return recordFailure(CV.takeError(), Out);
        if (Warm)
          continue;
        A.push_back(sum(*CA));
        V.push_back(sum(*CV));
      }
    }
    Out.Repetitions = Repetitions;
    if (Repetitions) {
      Out.UserSeconds /= Repetitions;
      Out.SystemSeconds /= Repetitions;
    }
  }
  PairedComparison C = comparePaired(A, V, Traits.Resolution);
  Out.BaselineCost = C.BaselineMedian;
  Out.VariantCost = C.VariantMedian;
  Out.RawRatio = C.RawRatio;
  Out.Ratio = C.Ratio;
  Out.RatioSpread = C.Spread;
  Out.Noise = C.Noise;
  if (Traits.LinesFromBuild)
    mergeHotLines(Out.HotLines, V.empty() ? 0 : V.front());
  Out.Reason = C.Ratio == 1.0 && C.RawRatio != 1.0 ? "within the noise"
                                                   : (C.Ratio > 1   ? "faster"
                                                      : C.Ratio < 1 ? "slower"
                                                                    : "same");
}

llvm::Expected<double> EvaluatorImpl::floorCost(MeasureMode M, TimingSet On) {
  if (auto It = floorCosts(On).find(M); It != floorCosts(On).end())
    return It->second;
  // The cost of a program that does nothing, run as every measured run is
  // (Harness::floorRuns): its median.
  auto Runs = Mode->floorRuns(M, On);
  if (!Runs)
    return Runs.takeError();
  llvm::sort(*Runs);
  double F = (*Runs)[Runs->size() / 2];
  floorCosts(On)[M] = F;
  return F;
}
