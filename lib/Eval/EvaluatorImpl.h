//===-- EvaluatorImpl.h - The evaluator's parts, and its two harnesses ----===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What the files of the evaluator share (lib/Eval only): a built variant, a
/// run and its outcome, the helpers every run uses, and the harness
/// interface whose two implementations are program mode (a program and its
/// test pairs: ProgramHarness.cpp) and project mode (a project's build,
/// test and bench commands: ProjectHarness.cpp). The Evaluator orchestrates
/// (Evaluator.cpp); building (EvalBuild.cpp), running (EvalRun.cpp) and the
/// cross-check (CrossCheck.cpp) are the same for both.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_LIB_EVAL_EVALUATORIMPL_H
#define MAXCODE_LIB_EVAL_EVALUATORIMPL_H

#include "maxcode/Eval/Evaluator.h"
#include "maxcode/Frontend/Profile.h"
#include "maxcode/Support/Process.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace maxcode {

struct Evaluator::Built {
  std::optional<ScratchDir> Dir;
  std::string Text;
  std::string SourcePath; ///< The variant's file in scratch.
  std::string Exe;        ///< Program mode: the binary, read-only.
  std::string Tree;       ///< Project mode: the tree copy runs use.
  std::string Snapshot;   ///< Project mode: the tree as the build left it.
  bool TreeUsed = false;  ///< A run has used Tree since it was restored.
  EvalResult Result;      ///< Filled up to the build.
  bool Ok = false;
  /// Built with the sanitizers (Evaluator::sanitize): its runs get their
  /// options and no address-space limit (ASan reserves terabytes).
  bool Sanitized = false;
  /// The scheduler's ids of the jobs run for this variant (Slurm).
  std::vector<std::string> JobIds;
};

struct Evaluator::RunRequest {
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

struct Evaluator::RunOutcome {
  ProcessResult Proc;
  SupervisorReport Report;
  /// The run's folder on this machine: its callgrind profiles, until the
  /// outcome is destroyed.
  std::optional<ScratchDir> Folder;
  std::optional<ScratchDir> CuptiDir;
  std::optional<ScratchDir> ProfileDir;
};

/// What a program with tests and a project with commands do differently
/// (DESIGN section 4): where a variant is built and where its runs work, how
/// it is checked, what one measured run is, and what a run that does
/// nothing costs. Everything else is the Evaluator's, the same for both.
class Evaluator::Harness {
public:
  explicit Harness(Evaluator &E) : E(E) {}
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
  /// \p W, a worker tree a build used, back to the pool as it was.
  virtual void releaseTree(WorkerTrees::Tree &W) {}
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
  virtual llvm::Expected<std::vector<double>>
  measureOnce(Built &B, MeasureMode M, EvalResult *Into) = 0;
  /// By wall time alone, one run of \p B as the cross-check measures it;
  /// \p Cpu (where not null and known): the CPU seconds it spent.
  virtual llvm::Expected<double> measureWall(Built &B, double *Cpu) = 0;
  /// What runs that do nothing cost under \p M, summed over the timed
  /// inputs: samples of the start-up floor.
  virtual llvm::Expected<std::vector<double>> floorRuns(MeasureMode M) = 0;
  /// Whether a cost is a bench's (one command, its own figure or its wall
  /// time) rather than the program's on its inputs.
  virtual bool bench() const = 0;
  /// How many inputs set \p S times (a bench is one).
  virtual size_t timedCount(TimingSet S) const = 0;
  /// Why a verification has no input the search never saw to time (one
  /// test, from which nothing could be derived; no held-out bench given);
  /// nothing when it has.
  virtual std::optional<std::string> noHeldOutTiming() const = 0;
  /// What the workload is, into \p W (Evaluator::workload).
  virtual void addWorkload(WorkloadFacts &W) const = 0;
  /// Runs \p B, built with the sanitizers, on every test: for each, the
  /// first finding its run reported, empty when none; an error when the
  /// mode cannot (project mode: the user's build command).
  virtual llvm::Expected<std::vector<std::string>>
  sanitizerFindings(Built &B) = 0;
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

  Evaluator &E;
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
             const TestCase &T, double Tolerance, bool HeldOut,
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
