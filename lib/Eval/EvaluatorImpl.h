//===-- EvaluatorImpl.h - The evaluator's parts, and its two harnesses ----===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What the files of the evaluator share (lib/Eval only): the evaluator's
/// implementation behind the public Evaluator (its state: the tests and
/// their sets, the baseline, the screen, the caches of costs), a built
/// variant, a run and its outcome, the helpers every run uses, and the
/// harness interface whose two implementations are program mode (a program
/// and its test pairs: ProgramHarness.cpp) and project mode (a project's
/// build, test and bench commands: ProjectHarness.cpp). EvaluatorImpl
/// orchestrates (Evaluator.cpp); building (EvalBuild.cpp), running
/// (EvalRun.cpp) and the cross-check (CrossCheck.cpp) are the same for
/// both.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_LIB_EVAL_EVALUATORIMPL_H
#define MAXCODE_LIB_EVAL_EVALUATORIMPL_H

#include "maxcode/Eval/BinaryCheck.h"
#include "maxcode/Eval/CuptiReport.h"
#include "maxcode/Eval/Evaluator.h"
#include "maxcode/Eval/Measure.h"
#include "maxcode/Eval/WorkerTrees.h"
#include "maxcode/Frontend/Profile.h"
#include "maxcode/Support/Process.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SHA256.h"
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace maxcode {

/// The evaluator itself (Evaluator is its interface): the orchestration,
/// the baseline, the state of the mode's harness and of every run.
class EvaluatorImpl {
public:
  // What the interface offers (Evaluator.h, where each is documented).
  static llvm::Expected<std::unique_ptr<EvaluatorImpl>>
  create(EvalConfig Config, Executor &Exec, EvalCache *Cache = nullptr);
  ~EvaluatorImpl();
  llvm::Error prepareBaseline(const Target *T = nullptr);
  std::vector<EvalResult> evaluate(llvm::ArrayRef<Variant> Variants,
                                   const Target &T);
  EvalResult evaluate(const Variant &V, const Target &T);
  EvalResult retime(const Variant &V, const Target &T, unsigned Repetitions);
  EvalResult verify(const Variant &V, const Target &T, unsigned Repetitions);
  CpuEvidence cpuEvidence(const Target &T);
  const EvalConfig &config() const { return Config; }
  llvm::StringRef originalText() const { return Original; }
  double processSeconds() const;
  std::string cacheKey(const Variant &V, const Target &T) const;
  unsigned feedbackTestCount() const;
  unsigned heldOutTestCount() const;
  llvm::Expected<std::vector<ApiUse>> addedCalls(llvm::StringRef VariantText,
                                                 const Target &T);
  WorkloadFacts workload() const;
  SanitizerVerdict sanitize(const Variant &V);

  // One run and how a measure makes and reads it: plain data and a
  // strategy, which MeasureRun.cpp implements outside the class.
  struct RunOutcome;
  struct RunRequest;
  /// How each measure runs a program and reads its cost (MeasureRun.cpp).
  class RunMeasure;

private:
  struct Built;
  /// What program and project mode do differently (EvaluatorImpl.h).
  class Harness;
  class ProgramHarness;
  class ProjectHarness;
  /// Program mode: a program built from the target's file, run on test
  /// pairs (ProgramHarness.cpp).
  static std::unique_ptr<Harness> makeProgramHarness(EvaluatorImpl &E);
  /// Project mode: the user's build, test and bench commands in a copy of
  /// the project (ProjectHarness.cpp).
  static std::unique_ptr<Harness> makeProjectHarness(EvaluatorImpl &E);
  EvaluatorImpl(EvalConfig Config, Executor &Exec, EvalCache *Cache);
  std::optional<std::string> screen(const Variant &V, const Target &T);
  void screenAndBuild(llvm::ArrayRef<const Variant *> Vs, const Target &T,
                      llvm::StringRef Tag,
                      std::vector<std::optional<std::string>> &Why,
                      std::vector<std::optional<Built>> &Builds);
  llvm::Expected<const VariantScreen *> screenFor(const Target &T);
  /// \p Sanitized: with the sanitizers' flags (sanitize()).
  Built build(llvm::StringRef Text, llvm::StringRef Tag,
              bool Sanitized = false);
  /// Checks and measures a built variant. \p HeldOutToo: also the held-out
  /// tests (verification).
  EvalResult checkAndMeasure(Built &B, unsigned Repetitions, bool HeldOutToo);
  /// Measures \p B against the baseline on the timed inputs of \p On.
  void measure(Built &B, unsigned Repetitions, TimingSet On, EvalResult &Out);
  /// The other measure's word on \p Out's speedup, measured on the timed
  /// inputs of \p On (those whose ratio \p Out reports).
  void crossCheck(Built &B, TimingSet On, EvalResult &Out);
  /// A variant of compiler hints only, by instructions: credited what the
  /// cross-check's wall time confirms (HintsOnly), 1.0 where it does not.
  void creditHintsByTime(const Variant &V, EvalResult &Out);
  /// A variant by instructions that adds hints beside code: its code alone
  /// is verified too, and the hints' share beyond it credited only where
  /// the cross-check's wall time confirms it (CodeRatio).
  void creditHintsApart(const Variant &V, const Target &T, unsigned Repetitions,
                        EvalResult &Out);
  /// verify and retime: every test, the ratio on held-out inputs, and with
  /// \p CrossCheck the other measure's word.
  EvalResult verification(const Variant &V, const Target &T,
                          unsigned Repetitions, llvm::StringRef Tag,
                          bool CrossCheck);
  /// A cross-check's measurements by the other measure (crossCheck).
  struct CrossCheckState;
  /// What a run of a program that does nothing costs under \p M, summed
  /// over the timed inputs of \p On: the floor no variant goes below.
  llvm::Expected<double> floorCost(MeasureMode M, TimingSet On);
  /// Runs the built program (or a project command) once, in a fresh
  /// folder, under the supervisor, in the sandbox every run of \p B gets.
  llvm::Expected<RunOutcome> runOnce(Built &B, const RunRequest &R);
  /// The name of \p R's fresh folder: the same in every process that runs
  /// the same search, numbered by how many runs of \p R came before.
  std::string runFolderName(const RunRequest &R);
  /// Fills \p S and \p P for run \p R of \p B in Out's folder: limits,
  /// environment, the program, and the CUPTI and profile folders \p R asks
  /// for.
  llvm::Error setUpRun(Built &B, const RunRequest &R, RunOutcome &Out,
                       ProcessSpec &S, SandboxPolicy &P);
  /// The sandbox every build and run shares (DESIGN section 7): the same
  /// read-only allow-list; what is writable differs.
  SandboxPolicy basePolicy(const Built &B) const;
  ProcessSpec baseSpec(const Built &B) const;
  /// The address-space limit of a run (none for CUDA programs).
  uint64_t memoryLimit() const;
  /// One metrics pass of a measured variant: \p Kernel's metrics and launch
  /// configuration into Out.Metrics (what the critic's GPU tags read).
  void collectGpuMetrics(Built &B, llvm::StringRef Kernel, EvalResult &Out);
  /// Runs \p S through the executor; the job's id, if any, is recorded with
  /// the variant \p For.
  llvm::Expected<ProcessResult> runTracked(const ProcessSpec &S, JobKind K,
                                           Built *For = nullptr);

  /// The baseline's deterministic costs and the start-up floors on the
  /// timed inputs of \p On, by measure.
  std::map<MeasureMode, std::vector<double>> &baselineCost(TimingSet On) {
    return BaselineCost[int(On)];
  }
  std::map<MeasureMode, double> &floorCosts(TimingSet On) {
    return FloorCost[int(On)];
  }
  /// Re-measures verified \p R's variant \p B on the held-out timed inputs
  /// and makes that the ratio \p R reports (rule 10), saying so when it is
  /// fast only on the inputs the search saw.
  void measureHeldOut(Built &B, unsigned Repetitions, EvalResult &R);

  EvalConfig Config;
  /// Program or project mode.
  std::unique_ptr<Harness> Mode;
  Executor &Exec;
  EvalCache *Cache;
  std::string Original;
  /// The static screen of the target, made once from the original.
  std::unique_ptr<VariantScreen> Screen;
  std::string ScreenTarget;
  std::mutex ScreenMutex;
  std::unique_ptr<Built> Baseline;
  /// The baseline's hot lines on the timed feedback inputs (instructions).
  std::vector<HotLine> BaselineHotLines;
  /// The original's findings under the sanitizers, by test (empty: clean),
  /// once sanitize() has asked; or why it cannot be checked.
  std::optional<std::vector<std::string>> BaselineFindings;
  std::string SanitizeUnavailable;
  std::mutex SanitizeMutex;
  /// What the baseline's linked program imports and holds (program mode),
  /// for the check of each variant's (BinaryCheck.h).
  std::optional<BinaryFacts> BaselineBinary;
  /// Deterministic measures of the baseline, by TimingSet and measure.
  std::map<MeasureMode, std::vector<double>> BaselineCost[2];
  std::map<MeasureMode, double> FloorCost[2];
  std::unique_ptr<Built> Null; ///< The empty program, for floorCost.
  std::string Fingerprint;
  mutable std::mutex StatsMutex;
  double ProcessTime = 0;
  /// How many jobs of each kind and text were started, so that repeated
  /// runs (timing repetitions) get keys of their own (runTracked).
  llvm::StringMap<unsigned> JobsStarted;
};

struct EvaluatorImpl::Built {
  std::optional<ScratchDir> Dir;
  std::string Text;
  std::string SourcePath; ///< The variant's file in scratch.
  std::string Exe;        ///< Program mode: the binary, read-only.
  std::string Tree;       ///< Project mode: the tree copy runs use.
  std::string Snapshot;   ///< Project mode: the tree as the build left it.
  bool TreeUsed = false;  ///< A run has used Tree since it was restored.
  EvalResult Result;      ///< Filled up to the build.
  bool Ok = false;
  /// Built with the sanitizers (EvaluatorImpl::sanitize): its runs get their
  /// options and no address-space limit (ASan reserves terabytes).
  bool Sanitized = false;
  /// The scheduler's ids of the jobs run for this variant (Slurm).
  std::vector<std::string> JobIds;
};

struct EvaluatorImpl::RunRequest {
  /// The program's command inside the run's folder ("./prog", valgrind ...,
  /// or a project command through /bin/sh).
  std::vector<std::string> Argv;
  std::string Stdin;
  JobKind Kind = JobKind::Check;
  double WallSeconds = 0;
  /// valgrind's --log-fd, which the supervisor reads.
  int LogFd = -1;
  /// Run under libmaxcode-cupti with this pass.
  std::optional<CuptiPass> Cupti;
  /// A folder of its own for callgrind's profiles, outside the run's working
  /// folder; "@PROFILE@" in Argv names it.
  bool Profile = false;
};

struct EvaluatorImpl::RunOutcome {
  ProcessResult Proc;
  SupervisorReport Report;
  /// The run's folder on this machine: its callgrind profiles, until the
  /// outcome is destroyed.
  std::optional<ScratchDir> Folder;
  std::optional<ScratchDir> CuptiDir;
  std::optional<ScratchDir> ProfileDir;
};

/// What one measure does to a run and reads from it (DESIGN section 4,
/// rule 4): the part of --measure that is the same whatever runs, a program
/// on a test's input, the empty program or a project's bench. The harness
/// chooses what runs and judges what it answers; the measure, how it runs
/// and what it cost. One per MeasureMode, and the bench's own figure.
class EvaluatorImpl::RunMeasure {
public:
  virtual ~RunMeasure();
  /// The measure of --measure=\p M.
  static const RunMeasure &of(MeasureMode M);
  /// The bench's own figure: \p Pattern (--bench-metric), whose first
  /// group or whole match must match exactly once in a run's output;
  /// \p Names name the setting in its errors.
  static std::unique_ptr<RunMeasure> benchMetric(std::string Pattern,
                                                 OptionNames Names);

  /// Makes \p R, a run of its Argv, a run of this measure, which a run
  /// ends after \p TimeoutSeconds; \p HotLines keeps what the target's hot
  /// lines are read from.
  virtual void shape(RunRequest &R, double TimeoutSeconds, bool HotLines) const;
  /// The cost \p Run measured. \p Into, when given, gets what else the run
  /// says: resource usage, the hot lines of the file \p SourceName, notes.
  virtual llvm::Expected<double> read(const RunOutcome &Run,
                                      llvm::StringRef SourceName,
                                      EvalResult *Into) const = 0;
};

/// What a program with tests and a project with commands do differently
/// (DESIGN section 4): where a variant is built and where its runs work, how
/// it is checked, what one measured run is, and what a run that does
/// nothing costs. Everything else is the Evaluator's, the same for both.
class EvaluatorImpl::Harness {
public:
  explicit Harness(EvaluatorImpl &E) : E(E) {}
  virtual ~Harness();

  /// Checks the configuration and reads what evaluations need.
  virtual llvm::Error prepare() = 0;
  /// The folders every build and run reads, and those it never sees.
  virtual void addFolders(SandboxPolicy &P) const = 0;
  /// Puts \p B's text where its build reads it and makes \p Spec its build
  /// (\p W: the worker tree it goes into, if any).
  virtual llvm::Error placeBuild(Built &B, WorkerTrees::Tree *W,
                                 ProcessSpec &Spec, SandboxPolicy &P) = 0;
  /// Keeps what a successful build of \p B made as every run must see it.
  virtual llvm::Error keepBuild(Built &B, WorkerTrees::Tree *W) = 0;
  /// The built copy a build goes into (project mode under bubblewrap,
  /// WorkerTrees.h), or none: the build makes its own folder.
  virtual llvm::Expected<WorkerTrees::Tree *> acquireTree() { return nullptr; }
  /// \p W, a worker tree a build used, back to the pool as it was.
  virtual void releaseTree(WorkerTrees::Tree &W) {}
  /// The baseline has built as \p B: what later builds may start from.
  virtual void baselineBuilt(const Built &B) {}
  /// A run's working folder and what it sees of \p B; the run's own folder
  /// is \p Host, seen as \p Inside.
  virtual llvm::Error placeRun(Built &B, const std::string &Host,
                               const std::string &Inside, ProcessSpec &S,
                               SandboxPolicy &P) = 0;
  /// The run the metrics pass makes: one of what the timed runs measure.
  virtual RunRequest metricsRun() const = 0;
  /// \p B's checks into \p Out: the feedback ones, stopping at the first
  /// failure; with \p HeldOutToo, every check, held-out ones included.
  virtual void check(Built &B, bool HeldOutToo, EvalResult &Out) = 0;
  /// What the baseline teaches once it passed its checks.
  virtual llvm::Error learnFromBaseline() = 0;
  /// One measured run of every timed input (or of the bench): their costs.
  /// \p On: which timed inputs (or bench: the held-out one, where given).
  virtual llvm::Expected<std::vector<double>>
  measureOnce(Built &B, MeasureMode M, TimingSet On, EvalResult *Into) = 0;
  /// By wall time alone, one run of \p B on \p On as the cross-check
  /// measures it; \p Cpu (where not null and known): the CPU seconds it
  /// spent.
  virtual llvm::Expected<double> measureWall(Built &B, TimingSet On,
                                             double *Cpu) = 0;
  /// What runs that do nothing cost under \p M, summed over the timed
  /// inputs of \p On: samples of the start-up floor.
  virtual llvm::Expected<std::vector<double>> floorRuns(MeasureMode M,
                                                        TimingSet On) = 0;
  /// Whether a cost is a bench's (one command, its own figure or its wall
  /// time) rather than the program's on its inputs.
  virtual bool bench() const = 0;
  /// How many inputs set \p S times (a bench is one).
  virtual size_t timedCount(TimingSet S) const = 0;
  /// Why a verification has no input the search never saw to time (one
  /// test, from which nothing could be derived; no held-out bench given);
  /// nothing when it has.
  virtual std::optional<std::string> noHeldOutTiming() const = 0;
  /// What the workload is, into \p W (EvaluatorImpl::workload).
  virtual void addWorkload(WorkloadFacts &W) const = 0;
  /// Runs \p B, built with the sanitizers, on every test: for each, the
  /// first finding its run reported, empty when none; an error when the
  /// mode cannot (project mode: the user's build command).
  virtual llvm::Expected<std::vector<std::string>>
  sanitizerFindings(Built &B) = 0;
  /// Whether the sanitizers' finding \p Test ran on an input derived from
  /// the tests (rule 13) rather than one of the user's.
  virtual bool derivedInput(size_t Test) const { return false; }
  /// How many test pairs of \p S the mode has (a project's commands are
  /// none).
  virtual unsigned testCount(TimingSet S) const { return 0; }
  /// Adds to the evaluator's fingerprint what this mode's results depend
  /// on besides the configuration (program mode: its tests' contents).
  virtual void fingerprint(llvm::SHA256 &H) const {}
  /// One run of \p B on every timed input under callgrind with the cache
  /// and branch simulation (CpuEvidence.h): the profiles, merged; an error
  /// where the mode has no lines of the program's to profile.
  virtual llvm::Expected<CallgrindProfile> simulate(Built &B) = 0;

protected:
  /// One run of \p Argv (with \p Stdin, if any) on \p B under callgrind's
  /// cache and branch simulation, its profiles merged into \p Into; \p What
  /// names the run in an error.
  llvm::Error simulateRun(Built &B, std::vector<std::string> Argv,
                          llvm::StringRef Stdin, llvm::StringRef What,
                          CallgrindProfile &Into);

  EvaluatorImpl &E;
};

namespace evaldetail {
/// Where a run's fresh folder and binary are inside bubblewrap: the same
/// path for every run, so that no run can tell itself from another.
constexpr llvm::StringLiteral RunInside = "/sandbox";
constexpr llvm::StringLiteral CuptiInside = "/maxcode-cupti";
constexpr llvm::StringLiteral ProfileInside = "/maxcode-profile";
/// glibc's thresholds above which memset and memcpy use `rep stosb` and
/// `rep movsb`, set beyond any size (docs/Evaluation.md, rule 9).
constexpr llvm::StringLiteral RepStringTunables =
    "glibc.cpu.x86_rep_stosb_threshold=0xffffffffffffffff:"
    "glibc.cpu.x86_rep_movsb_threshold=0xffffffffffffffff";

/// Feedback is bounded (DESIGN section 4, rule 5): what a proposer, a
/// critic, the store and a prompt see of a test is a few hundred bytes.
constexpr size_t FeedbackBytes = 200;

std::string bounded(llvm::StringRef S, size_t N = FeedbackBytes);

/// Why a run of a variant failed, with the status it gives the variant.
class RunFailure : public llvm::ErrorInfo<RunFailure> {
public:
  static char ID;
  RunFailure(EvalStatus Status, std::string Reason,
             std::optional<TestFailure> Failure = std::nullopt)
      : Status(Status), Reason(std::move(Reason)), Failure(std::move(Failure)) {
  }
  void log(llvm::raw_ostream &OS) const override { OS << Reason; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
  EvalStatus Status;
  std::string Reason;
  std::optional<TestFailure> Failure;
};

/// Records \p E, a failed run, into \p Out (a RunFailure keeps its status;
/// anything else is a crash).
void recordFailure(llvm::Error E, EvalResult &Out);
llvm::Error writeFile(llvm::StringRef Path, llvm::StringRef Text);
double sum(llvm::ArrayRef<double> V);
/// The per-process instruction counts of valgrind's log (--log-fd), summed.
llvm::Expected<uint64_t> instructionsFromLog(llvm::StringRef Log, int MainPid);
/// Why a run (\p What: "the program", "the test command") failed, with the
/// status it gives the variant; nothing when it exited cleanly.
std::optional<std::pair<EvalStatus, std::string>>
classifyRun(const ProcessResult &P, const SupervisorReport *Rep,
            llvm::StringRef What);
/// The failure of test \p T given its run; nothing when it passed.
/// \p HeldOut: its details stay out of the feedback. \p BaselineRuns: what
/// the unmodified program printed for it, where that holds decimals
/// (compareWithBaseline); empty for the baseline itself.
std::optional<EvalResult>
judgeTestRun(const ProcessResult &P, const SupervisorReport *Rep,
             const TestCase &T, const EvalConfig &Config, bool HeldOut,
             llvm::StringRef When, llvm::ArrayRef<std::string> BaselineRuns);
/// The argv of a callgrind run of \p Argv counting every process, its log
/// on descriptor 3, its profiles to \p OutFile; \p Options are valgrind's
/// too (simulationOptions()).
std::vector<std::string>
callgrindArgv(llvm::StringRef OutFile, std::vector<std::string> Argv,
              bool LineInfo, llvm::ArrayRef<std::string> Options = {});
/// The callgrind profiles in \p Folder (a run's profile folder), each as
/// \p Each sees it; a file that is not one is skipped.
void forEachProfile(llvm::StringRef Folder,
                    llvm::function_ref<void(const CallgrindProfile &)> Each);
/// The compiler flags of a sanitizer build (GCC and Clang spell them
/// alike), and the environment its runs get: a finding ends the run with
/// its own exit code and a report on stderr; leaks are not findings (a
/// review note says what the winner allocates and never frees).
std::vector<std::string> sanitizerFlags();
std::vector<std::pair<std::string, std::string>> sanitizerEnvironment();
/// The exit code a run with a sanitizer finding ends with.
constexpr int SanitizerExitCode = 86;
/// The first finding of a sanitizer report in \p Stderr, in one line, the
/// place named by its line in \p SourceName ("AddressSanitizer:
/// stack-buffer-overflow, READ of size 4 at line 18"); empty when there is
/// none.
std::string sanitizerFinding(llvm::StringRef Stderr,
                             llvm::StringRef SourceName);
} // namespace evaldetail

} // namespace maxcode

#endif // MAXCODE_LIB_EVAL_EVALUATORIMPL_H
