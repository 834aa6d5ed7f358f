//===-- ProjectHarness.cpp - A project and its commands -------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Project mode (DESIGN section 4): the user's own build, test and bench
// commands, in a copy of the project that bubblewrap shows at the project's
// own path, built once and then incrementally (WorkerTrees.h).
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

namespace maxcode {
class EvaluatorImpl::ProjectHarness : public EvaluatorImpl::Harness {
public:
  using Harness::Harness;
  llvm::Error prepare() override;
  void addFolders(SandboxPolicy &P) const override;
  llvm::Error placeBuild(Built &B, WorkerTrees::Tree *W, ProcessSpec &Spec,
                         SandboxPolicy &P) override;
  llvm::Error keepBuild(Built &B, WorkerTrees::Tree *W) override;
  llvm::Expected<WorkerTrees::Tree *> acquireTree() override {
    if (!Trees)
      return nullptr;
    return Trees->acquire();
  }
  void releaseTree(WorkerTrees::Tree &W) override;
  void baselineBuilt(const Built &B) override {
    // Every other worker's copy starts as the baseline's build left it.
    if (Trees)
      Trees->seed(B.Snapshot);
  }
  llvm::Error placeRun(Built &B, const std::string &Host,
                       const std::string &Inside, ProcessSpec &S,
                       SandboxPolicy &P) override;
  RunRequest metricsRun() const override;
  void check(Built &B, bool HeldOutToo, EvalResult &Out) override;
  llvm::Error learnFromBaseline() override { return llvm::Error::success(); }
  llvm::Expected<std::vector<double>>
  measureOnce(Built &B, MeasureMode M, TimingSet On, EvalResult *Into) override;
  llvm::Expected<double> measureWall(Built &B, TimingSet On,
                                     double *Cpu) override;
  llvm::Expected<std::vector<double>> floorRuns(MeasureMode M,
                                                TimingSet On) override;
  bool bench() const override { return true; }
  size_t timedCount(TimingSet) const override { return 1; }
  std::optional<std::string> noHeldOutTiming() const override;
  void addWorkload(WorkloadFacts &W) const override {
    W.TestCmd = E.Config.Settings.TestCommand;
    W.BenchCmd = E.Config.Settings.BenchCommand;
  }
  llvm::Expected<std::vector<std::string>> sanitizerFindings(Built &) override {
    // The project's own build command decides its flags; adding ours to
    // it would be guessing at the build system.
    return llvm::createStringError(
        "project mode builds with your command, whose flags the review "
        "does not change; build and test it with -fsanitize=address,"
        "undefined yourself");
  }
  llvm::Expected<CallgrindProfile> simulate(Built &B) override;

private:
  /// Under bubblewrap: the built copies variants are swapped into
  /// (WorkerTrees.h), each shown at the project's path; none otherwise.
  std::unique_ptr<WorkerTrees> Trees;
  /// A fresh copy of the project with \p B's file, built from scratch
  /// (without bubblewrap, which alone can show it at the project's path).
  llvm::Error copyProject(Built &B, ProcessSpec &Spec);
  /// \p B's file into \p W, whose copy the build sees at the project's
  /// path.
  llvm::Error swapIntoWorker(Built &B, WorkerTrees::Tree &W, ProcessSpec &Spec,
                             SandboxPolicy &Policy);
  /// A note in \p R when its build took as long as the first, full one.
  void noteIfNotIncremental(EvalResult &R) const;
  /// Runs test command \p Cmd on \p B into \p Out.
  void checkProject(Built &B, llvm::StringRef Cmd, bool IsHeldOut,
                    EvalResult &Out);
  /// One run of the bench (\p On HeldOut: the held-out bench, where there
  /// is one): its metric, or (\p WallOnly) its wall time.
  llvm::Expected<double> measureBench(Built &B, TimingSet On,
                                      bool WallOnly = false);
  /// The bench's own figure (--bench-metric) under --measure=time; none
  /// otherwise.
  std::unique_ptr<RunMeasure> Metric;
};
} // namespace maxcode

std::unique_ptr<EvaluatorImpl::Harness>
EvaluatorImpl::makeProjectHarness(EvaluatorImpl &E) {
  return std::make_unique<ProjectHarness>(E);
}

llvm::Error EvaluatorImpl::ProjectHarness::prepare() {
  const EvalConfig &C = E.Config;
  if (C.Settings.BuildCommand.empty() || C.Settings.TestCommand.empty())
    return llvm::createStringError(
        "give " + C.Names("Tests") + "=<dir> (program mode), or " +
        C.Names("BuildCommand") + " and " + C.Names("TestCommand") +
        " "
        "(project mode; " +
        C.Names("BenchCommand") + " to time)");
  if (C.Settings.BenchCommand.empty())
    return llvm::createStringError(
        "project mode needs " + C.Names("BenchCommand") + " to measure with " +
        C.Names("Measure") + "=" + optionValueName(C.Settings.Measure).str());
  if (!llvm::sys::fs::is_directory(C.Settings.ProjectRoot))
    return llvm::createStringError("project root '" + C.Settings.ProjectRoot +
                                   "' is not a folder");
  if (!llvm::StringRef(C.File).starts_with(C.Settings.ProjectRoot + "/"))
    return llvm::createStringError("'" + C.File +
                                   "' is not inside the project root '" +
                                   C.Settings.ProjectRoot + "'");
  if (C.Settings.Measure == MeasureMode::Instructions &&
      !C.Settings.BenchMetric.empty())
    return llvm::createStringError(
        C.Names("BenchMetric") + " reads the bench's own figure and " +
        C.Names("Measure") +
        "=instructions counts the bench's instructions: give "
        "one");
  if (C.Settings.Measure == MeasureMode::Time &&
      !C.Settings.BenchMetric.empty())
    Metric = RunMeasure::benchMetric(C.Settings.BenchMetric, C.Names);
  // Project mode builds once, then incrementally, where bubblewrap can show
  // a copy at the project's own path; without it, every build is of a
  // fresh copy at another path (docs/Evaluation.md, Building).
  if (C.Sandbox == SandboxMode::Bwrap) {
    std::vector<std::string> Excluded = C.Protected;
    if (!C.Settings.ScratchDir.empty())
      Excluded.push_back(makeAbsolutePath(C.Settings.ScratchDir));
    Trees = std::make_unique<WorkerTrees>(
        C.Settings.ProjectRoot, C.Settings.ScratchDir, std::move(Excluded));
  }
  return llvm::Error::success();
}

void EvaluatorImpl::ProjectHarness::addFolders(SandboxPolicy &P) const {
  // The folders the compile command reads outside the project; the user's
  // tree never (where a copy is shown at the project's path, it covers the
  // user's).
  for (std::string &F : commandFolders(E.Config.Command))
    if (!llvm::StringRef(F).starts_with(E.Config.Settings.ProjectRoot))
      P.ReadOnly.push_back(std::move(F));
  if (!Trees)
    P.Hidden.push_back(E.Config.Settings.ProjectRoot);
}

llvm::Error EvaluatorImpl::ProjectHarness::placeBuild(Built &B,
                                                      WorkerTrees::Tree *W,
                                                      ProcessSpec &Spec,
                                                      SandboxPolicy &P) {
  return W ? swapIntoWorker(B, *W, Spec, P) : copyProject(B, Spec);
}

llvm::Error EvaluatorImpl::ProjectHarness::keepBuild(Built &B,
                                                     WorkerTrees::Tree *W) {
  // Every run starts from the tree exactly as the build left it.
  const std::string &Scratch = B.Dir->path();
  B.Snapshot = Scratch + "/built";
  auto S = copyTree(W ? W->Path : B.Tree, B.Snapshot, {});
  if (!S)
    return llvm::createStringError("cannot keep the built tree: " +
                                   llvm::toString(S.takeError()));
  if (W) {
    // The runs' copy is made from the snapshot before the first run.
    B.Tree = Scratch + "/tree";
    B.TreeUsed = true;
    W->Built = true;
    noteIfNotIncremental(B.Result);
  }
  return llvm::Error::success();
}

llvm::Error EvaluatorImpl::ProjectHarness::placeRun(Built &B,
                                                    const std::string &,
                                                    const std::string &,
                                                    ProcessSpec &S,
                                                    SandboxPolicy &P) {
  if (Trees) {
    // At the project's own path, as it was built.
    S.WorkingDir = E.Config.Settings.ProjectRoot;
    P.Mounts.push_back(
        {B.Tree, E.Config.Settings.ProjectRoot, /*Writable=*/true});
  } else {
    S.WorkingDir = B.Tree;
    P.Writable.push_back(B.Tree);
  }
  return llvm::Error::success();
}

EvaluatorImpl::RunRequest EvaluatorImpl::ProjectHarness::metricsRun() const {
  RunRequest R;
  R.Argv = {"/bin/sh", "-c", E.Config.Settings.BenchCommand};
  return R;
}

void EvaluatorImpl::ProjectHarness::check(Built &B, bool HeldOutToo,
                                          EvalResult &Out) {
  Out.TestsTotal = 1;
  checkProject(B, E.Config.Settings.TestCommand, false, Out);
  if (HeldOutToo && Out.ok() && !E.Config.Settings.HoldoutCommand.empty()) {
    Out.HeldOutTotal = 1;
    checkProject(B, E.Config.Settings.HoldoutCommand, true, Out);
  }
}

llvm::Expected<std::vector<double>>
EvaluatorImpl::ProjectHarness::measureOnce(Built &B, MeasureMode, TimingSet On,
                                           EvalResult *) {
  // What else a run says (usage, notes) is program mode's to report.
  auto C = measureBench(B, On);
  if (!C)
    return C.takeError();
  return std::vector<double>{*C};
}

llvm::Expected<double>
EvaluatorImpl::ProjectHarness::measureWall(Built &B, TimingSet On, double *) {
  return measureBench(B, On, /*WallOnly=*/true);
}

llvm::Expected<std::vector<double>>
EvaluatorImpl::ProjectHarness::floorRuns(MeasureMode, TimingSet) {
  // A shell that does nothing, as the bench's own runs start one.
  std::vector<double> Runs;
  for (int I = 0; I < 3; ++I) {
    RunRequest R;
    R.Argv = {"/bin/sh", "-c", "true"};
    R.Kind = JobKind::Timed;
    R.WallSeconds = E.Config.Settings.Timeout;
    auto Run = E.runOnce(*E.Baseline, R);
    if (!Run)
      return Run.takeError();
    Runs.push_back(Run->Report.WallSeconds);
  }
  return Runs;
}

std::optional<std::string>
EvaluatorImpl::ProjectHarness::noHeldOutTiming() const {
  if (!E.Config.Settings.HoldoutBenchCommand.empty())
    return std::nullopt;
  return "the ratio is the bench's, on inputs the search saw; " +
         E.Config.Names("HoldoutBenchCommand") +
         " would time the winner on inputs it did not see";
}

llvm::Error EvaluatorImpl::ProjectHarness::copyProject(Built &B,
                                                       ProcessSpec &Spec) {
  llvm::SmallString<256> Tree(B.Dir->path());
  llvm::sys::path::append(Tree, "tree");
  B.Tree = std::string(Tree);
  // A copy of the project (copy-on-write where the file system can), never
  // links into the user's tree, never the scratch root or the store.
  std::vector<std::string> Excluded = E.Config.Protected;
  Excluded.push_back(makeAbsolutePath(E.Config.Settings.ScratchDir.empty()
                                          ? B.Dir->path()
                                          : E.Config.Settings.ScratchDir));
  auto Copied = copyTree(E.Config.Settings.ProjectRoot, B.Tree, Excluded);
  if (!Copied)
    return llvm::createStringError("cannot copy the project tree: " +
                                   llvm::toString(Copied.takeError()));
  llvm::SmallString<256> Src(B.Tree);
  llvm::sys::path::append(
      Src, llvm::StringRef(E.Config.File)
               .drop_front(E.Config.Settings.ProjectRoot.size()));
  B.SourcePath = std::string(Src);
  (void)llvm::sys::fs::remove(Src);
  if (llvm::Error Err = writeFile(Src, B.Text))
    return Err;
  if (int Uid = B.Dir->uid(); Uid >= 0)
    if (llvm::Error Err = chownTree(B.Tree, Uid, Uid))
      return Err;
  Spec.Argv = {"/bin/sh", "-c", E.Config.Settings.BuildCommand};
  Spec.WorkingDir = B.Tree;
  return llvm::Error::success();
}

/// \p W's copy of the project's file \p File (under \p Root).
static std::string fileInTree(const WorkerTrees::Tree &W, llvm::StringRef Root,
                              llvm::StringRef File) {
  return W.Path + File.drop_front(Root.size()).str();
}

/// Writes \p Text as \p Path afresh (a link a build left there is replaced,
/// never followed), owned by \p Uid where that is set.
static llvm::Error replaceFile(llvm::StringRef Path, llvm::StringRef Text,
                               int Uid) {
  (void)llvm::sys::fs::remove(Path);
  if (llvm::Error Err = writeFile(Path, Text))
    return Err;
  if (Uid >= 0 && ::chown(Path.str().c_str(), Uid, Uid) != 0)
    return llvm::createStringError("cannot hand '" + Path.str() +
                                   "' to the sandbox's user");
  return llvm::Error::success();
}
llvm::Error EvaluatorImpl::ProjectHarness::swapIntoWorker(
    Built &B, WorkerTrees::Tree &W, ProcessSpec &Spec, SandboxPolicy &Policy) {
  if (llvm::Error Err = replaceFile(
          fileInTree(W, E.Config.Settings.ProjectRoot, E.Config.File), B.Text,
          W.Dir->uid()))
    return Err;
  // The build sees the copy at the project's own path: a build folder that
  // names the project by absolute path works unchanged, and the compiler
  // names the variant's file as the user's.
  B.SourcePath = E.Config.File;
  Policy.Mounts.push_back(
      {W.Path, E.Config.Settings.ProjectRoot, /*Writable=*/true});
  Spec.Argv = {"/bin/sh", "-c", E.Config.Settings.BuildCommand};
  Spec.WorkingDir = E.Config.Settings.ProjectRoot;
  return llvm::Error::success();
}

void EvaluatorImpl::ProjectHarness::releaseTree(WorkerTrees::Tree &W) {
  // The original file back (newer than its object, so the next build
  // recompiles it whatever it holds); a tree that cannot be put back is
  // dropped, never reused.
  if (llvm::Error Err = replaceFile(
          fileInTree(W, E.Config.Settings.ProjectRoot, E.Config.File),
          E.Original, W.Dir->uid())) {
    MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": worker tree dropped: "
                               << llvm::toString(std::move(Err)) << "\n");
    return;
  }
  Trees->release(&W);
}

void EvaluatorImpl::ProjectHarness::noteIfNotIncremental(EvalResult &R) const {
  // The first build of a copy is the full one; later ones should take a
  // fraction of it. One that takes as long rebuilt everything.
  if (!E.Baseline)
    return;
  double Full = E.Baseline->Result.BuildSeconds;
  if (Full < 2 || R.BuildSeconds < 0.7 * Full)
    return;
  R.Notes.push_back(llvm::formatv(
      "the build is not incremental: it took {0:f1} s, as long as the "
      "first build ({1:f1} s); a build command that reconfigures or cleans "
      "every time rebuilds the whole project for each variant "
      "(docs/Evaluation.md, Building)",
      R.BuildSeconds, Full));
}

void EvaluatorImpl::ProjectHarness::checkProject(Built &B, llvm::StringRef Cmd,
                                                 bool IsHeldOut,
                                                 EvalResult &Out) {
  RunRequest R;
  R.Argv = {"/bin/sh", "-c", Cmd.str()};
  R.Kind = JobKind::Check;
  R.WallSeconds = std::max(E.Config.Settings.Timeout, 60.0);
  auto Run = E.runOnce(B, R);
  std::string What =
      IsHeldOut ? "the held-out test command" : "the test command";
  if (!Run) {
    recordFailure(Run.takeError(), Out);
    return;
  }
  auto Bad = classifyRun(Run->Proc, &Run->Report, What);
  if (!Bad) {
    (IsHeldOut ? Out.HeldOutPassed : Out.TestsPassed) += 1;
    return;
  }
  // A test command that ran and said no is a wrong output; a signal, a
  // timeout or the output cap is what it is.
  Out.Status = Run->Report.Signal || Run->Proc.TimedOut ||
                       Run->Proc.OutputLimitExceeded || Run->Report.Killed
                   ? Bad->first
                   : EvalStatus::WrongOutput;
  Out.Reason = Bad->second;
  std::string Tail = IsHeldOut ? "" : Run->Proc.Stdout + Run->Proc.Stderr;
  if (Tail.size() > 400)
    Tail = "..." + Tail.substr(Tail.size() - 400);
  Out.FirstFailure = TestFailure{
      IsHeldOut ? "held-out test command" : "test command", 0, "", "", Tail};
}

llvm::Expected<CallgrindProfile>
EvaluatorImpl::ProjectHarness::simulate(Built &B) {
  // The bench (the one the search times), every process it starts; its
  // lines are the project's build's own debug information, so a build
  // without -g simulates but names no line.
  CallgrindProfile All;
  if (llvm::Error Err =
          simulateRun(B, {"/bin/sh", "-c", E.Config.Settings.BenchCommand}, "",
                      "the bench", All))
    return Err;
  return All;
}

llvm::Expected<double>
EvaluatorImpl::ProjectHarness::measureBench(Built &B, TimingSet On,
                                            bool WallOnly) {
  // The bench's own figure, where it prints one, is what --measure=time
  // reads; the other measures count or time every process it starts, as
  // program mode's do (DESIGN section 4, rule 4).
  const RunMeasure &Measure = WallOnly ? RunMeasure::of(MeasureMode::Time)
                              : Metric
                                  ? *Metric
                                  : RunMeasure::of(E.Config.Settings.Measure);
  RunRequest R;
  // Verification times the held-out bench, where there is one (rule 10).
  R.Argv = {"/bin/sh", "-c",
            On == TimingSet::HeldOut &&
                    !E.Config.Settings.HoldoutBenchCommand.empty()
                ? E.Config.Settings.HoldoutBenchCommand
                : E.Config.Settings.BenchCommand};
  Measure.shape(R, E.Config.Settings.Timeout, /*HotLines=*/false);
  auto Run = E.runOnce(B, R);
  if (!Run)
    return Run.takeError();
  if (auto Bad = classifyRun(Run->Proc, &Run->Report, "a timed run")) {
    llvm::StringRef Tail = llvm::StringRef(Run->Proc.Stderr).trim();
    return llvm::make_error<RunFailure>(
        Bad->first, Bad->second + (Tail.empty() ? "" : ": " + bounded(Tail)));
  }
  return Measure.read(*Run, "", nullptr);
}
