//===-- SlurmExecutor.cpp - Builds and runs as Slurm jobs -----------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Each job is one `srun` of maxcode-job, which runs the ProcessSpec (already
/// wrapped in the sandbox by the evaluator) on the node with its limits and
/// writes the result to the shared folder. srun blocks, so a job in flight is
/// a thread of ours waiting on its srun; -j bounds them. What srun cannot
/// say (why a job ended without a result) comes from the controller.
///
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/Executor.h"
#include "maxcode/Support/Debug.h"
#include "maxcode/Support/JobFile.h"
#include "maxcode/Support/Options.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <mutex>
#include <optional>
#include <thread>

#define DEBUG_TYPE "maxcode-slurm"

using namespace maxcode;

namespace {

/// What the controller says of a job that has ended.
struct JobState {
  std::string State;  ///< CANCELLED, TIMEOUT, NODE_FAIL, FAILED, ...
  std::string Reason; ///< Slurm's reason field; "None" when it gave none.
};

llvm::StringRef jobKindName(JobKind K) {
  switch (K) {
  case JobKind::Build:
    return "build";
  case JobKind::Check:
    return "check";
  case JobKind::Timed:
    return "timed";
  }
  llvm_unreachable("unknown job kind");
}

/// The last non-empty lines of \p Text, joined with "; " (srun's errors).
std::string lastLines(llvm::StringRef Text, unsigned Count) {
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Text.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  std::string Out;
  size_t From = Lines.size() > Count ? Lines.size() - Count : 0;
  for (size_t I = From; I < Lines.size(); ++I) {
    if (!Out.empty())
      Out += "; ";
    Out += Lines[I].trim().str();
  }
  return Out;
}

/// The job id srun was given: `srun: jobid 12: nodes(1)...` with --verbose,
/// or `srun: job 12 queued and waiting for resources`.
std::string parseJobId(llvm::StringRef SrunStderr) {
  static const llvm::Regex Granted("srun: jobid ([0-9]+)");
  static const llvm::Regex Queued("srun: job ([0-9]+) (queued|has been)");
  llvm::SmallVector<llvm::StringRef, 3> M;
  if (Granted.match(SrunStderr, &M) || Queued.match(SrunStderr, &M))
    return M[1].str();
  return "";
}

bool isFinalState(llvm::StringRef State) {
  return !State.empty() &&
         !llvm::is_contained({"PENDING", "RUNNING", "COMPLETING", "CONFIGURING",
                              "SUSPENDED", "REQUEUED", "RESIZING", "SIGNALING",
                              "STAGE_OUT", "STOPPED"},
                             State);
}

class SlurmExecutor : public Executor {
public:
  SlurmExecutor(unsigned Jobs, SlurmOptions Opts, std::string JobDir)
      : Width(Jobs ? Jobs : 1), Opts(std::move(Opts)),
        JobDir(std::move(JobDir)), Local(createLocalExecutor(Width)) {}
  ~SlurmExecutor() override {
    (void)llvm::sys::fs::remove_directories(JobDir);
    // Empty once every keyed job was seen to its end; an interrupted run
    // leaves it for --resume.
    if (!RunDir.empty() && !llvm::sys::fs::remove(RunDir))
      (void)llvm::sys::fs::remove(llvm::sys::path::parent_path(RunDir));
  }

  llvm::StringRef name() const override { return "slurm"; }
  unsigned parallelism() const override { return Width; }

  void attachRun(llvm::StringRef RunKey, bool Resume) override {
    llvm::SmallString<256> Dir(Opts.SharedDir);
    llvm::sys::path::append(Dir, "maxcode-runs", RunKey);
    if (llvm::sys::fs::create_directories(Dir))
      return; // Jobs stay anonymous: nothing to re-attach to later.
    RunDir = std::string(Dir);
    Resuming = Resume;
  }

  llvm::Expected<ProcessResult> run(const ProcessSpec &Spec, JobKind Kind,
                                    llvm::StringRef Key) override {
    if (Kind == JobKind::Build && !Opts.Builds)
      return Local->run(Spec, Kind, Key);
    {
      std::unique_lock<std::mutex> L(SlotsMutex);
      SlotFree.wait(L, [&] { return InFlight < Width; });
      ++InFlight;
    }
    auto Release = [&] {
      {
        std::lock_guard<std::mutex> L(SlotsMutex);
        --InFlight;
      }
      SlotFree.notify_one();
    };
    llvm::SmallString<256> Stem;
    if (!Key.empty() && !RunDir.empty()) {
      Stem = RunDir;
      llvm::sys::path::append(Stem, Key);
      if (Resuming)
        if (std::optional<ProcessResult> R = reattach(Stem, Kind, Spec)) {
          Release();
          return std::move(*R);
        }
    } else {
      Stem = JobDir;
      llvm::sys::path::append(Stem, "job-" + std::to_string(NextJob++));
    }
    // A job lost with its node is not the variant's doing: it is tried once
    // more before it counts.
    bool NodeLost = false;
    std::string LostJob;
    auto R = runJob(Spec, Kind, Stem, NodeLost, LostJob);
    if (!R && NodeLost) {
      std::string Lost = LostJob;
      llvm::Error E = R.takeError();
      MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": job " << Lost
                                 << " lost with its node, trying once more: "
                                 << llvm::toString(std::move(E)) << "\n");
      llvm::consumeError(std::move(E));
      R = runJob(Spec, Kind, Stem, NodeLost, LostJob);
      if (R)
        R->LostJobIds.push_back(Lost);
    }
    Release();
    return R;
  }

private:
  /// One srun of the job; \p NodeLost and \p JobId say, when it fails,
  /// whether Slurm lost it with its node and which job it was.
  llvm::Expected<ProcessResult> runJob(const ProcessSpec &Spec, JobKind Kind,
                                       llvm::StringRef Stem, bool &NodeLost,
                                       std::string &JobId);
  /// The srun that runs the job \p Stem, of kind \p Kind.
  ProcessSpec srunCommand(const ProcessSpec &Spec, JobKind Kind,
                          llvm::StringRef Stem) const;
  /// Ends job \p JobId, which we stopped on our side.
  void cancelJob(llvm::StringRef JobId) const;
  /// What became of job \p JobId, which ended without a result of the
  /// program: Slurm ended it (\p Srun is what srun said).
  llvm::Expected<ProcessResult> endedBySlurm(llvm::StringRef JobId,
                                             const ProcessResult &Srun,
                                             bool &NodeLost);
  /// A resumed run's job \p Stem, started by the interrupted process: waits
  /// for it if it still runs, and gives its result if it has one. A timed
  /// run's result is never taken (a measurement counts only beside the
  /// baseline runs interleaved with it, and its files were in the other
  /// process's scratch folder), but a timed job still running is waited for,
  /// so that measured runs never share a node. None: submit the job anew.
  std::optional<ProcessResult> reattach(llvm::StringRef Stem, JobKind Kind,
                                        const ProcessSpec &Spec);
  JobState queryState(llvm::StringRef JobId);
  /// The controller's view of a job right now; empty when it cannot say.
  JobState queryOnce(llvm::StringRef JobId);

  unsigned Width;
  SlurmOptions Opts;
  std::string JobDir;
  std::unique_ptr<Executor> Local;
  /// Keyed jobs of the search's run (attachRun); empty: all are anonymous.
  std::string RunDir;
  bool Resuming = false;
  std::atomic<unsigned> NextJob{0};
  std::mutex SlotsMutex;
  std::condition_variable SlotFree;
  unsigned InFlight = 0;
};

} // namespace

JobState SlurmExecutor::queryState(llvm::StringRef JobId) {
  // srun can return while the controller still says COMPLETING; it settles
  // within a few seconds.
  auto Deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (true) {
    JobState S = queryOnce(JobId);
    if (isFinalState(S.State) || std::chrono::steady_clock::now() > Deadline)
      return S;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

JobState SlurmExecutor::queryOnce(llvm::StringRef JobId) {
  static const llvm::Regex StateRe("JobState=([A-Z_]+)");
  static const llvm::Regex ReasonRe("Reason=([^ ]+)");
  JobState S;
  ProcessSpec Q;
  Q.PassEnv = {"SLURM_*", "MUNGE_*"};
  Q.Argv = {Opts.Scontrol, "-o", "show", "job", JobId.str()};
  Q.Limits.WallSeconds = 30;
  auto R = runProcess(Q);
  llvm::SmallVector<llvm::StringRef, 2> M;
  if (R && R->succeeded() && StateRe.match(R->Stdout, &M)) {
    S.State = M[1].str();
    if (ReasonRe.match(R->Stdout, &M))
      S.Reason = M[1].str();
  } else {
    if (!R) {
      llvm::Error E = R.takeError();
      MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": job " << JobId
                                 << ": scontrol failed, asking sacct: "
                                 << llvm::toString(std::move(E)) << "\n");
      llvm::consumeError(std::move(E));
    }
    // The controller has forgotten the job (MinJobAge): ask accounting.
    ProcessSpec A;
    A.PassEnv = {"SLURM_*", "MUNGE_*"};
    A.Argv = {Opts.Sacct,
              "-j",
              JobId.str(),
              "-X",
              "-n",
              "-P",
              "--format=State,Reason"};
    A.Limits.WallSeconds = 30;
    auto AR = runProcess(A);
    if (AR && AR->succeeded()) {
      llvm::StringRef Line = llvm::StringRef(AR->Stdout).split('\n').first;
      auto [State, Reason] = Line.split('|');
      // "CANCELLED by 1000": the state is the first word.
      S.State = State.split(' ').first.trim().str();
      S.Reason = Reason.trim().str();
    } else if (!AR) {
      llvm::Error E = AR.takeError();
      MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": job " << JobId
                                 << ": sacct failed, state unknown: "
                                 << llvm::toString(std::move(E)) << "\n");
      llvm::consumeError(std::move(E));
    }
  }
  return S;
}

std::optional<ProcessResult> SlurmExecutor::reattach(llvm::StringRef Stem,
                                                     JobKind Kind,
                                                     const ProcessSpec &Spec) {
  std::string JobId;
  if (auto Buf = llvm::MemoryBuffer::getFile(Stem + ".jobid"))
    JobId = (*Buf)->getBuffer().trim().str();
  if (JobId.empty())
    return std::nullopt; // Never started: nothing to attach to.
  // Still queued or running: wait for it, as its srun would have.
  while (!llvm::sys::fs::exists(Stem + ".result.json")) {
    if (Spec.Cancel && Spec.Cancel->load())
      return std::nullopt;
    JobState S = queryOnce(JobId);
    if (S.State.empty() || isFinalState(S.State)) {
      // Ended: its result, if it wrote one, is there by now.
      if (!llvm::sys::fs::exists(Stem + ".result.json"))
        std::this_thread::sleep_for(std::chrono::seconds(1));
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  if (Kind == JobKind::Timed) {
    removeJobFiles(Stem);
    return std::nullopt;
  }
  auto R = readJobResult(Stem);
  removeJobFiles(Stem);
  if (!R) {
    // Lost with its node, cancelled, or killed before it wrote anything.
    llvm::Error E = R.takeError();
    MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": job " << JobId
                               << " left no result, submitting anew: "
                               << llvm::toString(std::move(E)) << "\n");
    llvm::consumeError(std::move(E));
    return std::nullopt;
  }
  if (R->Cancelled)
    return std::nullopt;
  R->JobId = JobId;
  return std::move(*R);
}

ProcessSpec SlurmExecutor::srunCommand(const ProcessSpec &Spec, JobKind Kind,
                                       llvm::StringRef Stem) const {
  ProcessSpec Srun;
  // Slurm's own configuration, nothing else: srun passes its
  // environment on to the job.
  Srun.PassEnv = {"SLURM_*", "MUNGE_*"};
  // --verbose makes srun print the job id as soon as it has one.
  Srun.Argv = {Opts.Srun, "--verbose",
               "--job-name=maxcode-" + jobKindName(Kind).str()};
  // The user's words come after the job name (so they may rename the jobs)
  // and before what the executor needs, which they may not change.
  Srun.Argv.insert(Srun.Argv.end(), Opts.ExtraArgs.begin(),
                   Opts.ExtraArgs.end());
  Srun.Argv.insert(Srun.Argv.end(),
                   {"--nodes=1", "--ntasks=1", "--chdir=" + JobDir});
  // A measured run has its node to itself (DESIGN section 5).
  if (Kind == JobKind::Timed)
    Srun.Argv.push_back("--exclusive");
  Srun.Argv.push_back(Opts.JobRunner);
  Srun.Argv.push_back(Stem.str());
  // No deadline here: the job's own limits (the spec's, inside the job, and
  // --time) end it; time in the queue is not the program's.
  Srun.Limits.OutputBytes = 1 << 20;
  Srun.Cancel = Spec.Cancel;
  return Srun;
}

void SlurmExecutor::cancelJob(llvm::StringRef JobId) const {
  ProcessSpec Cancel;
  Cancel.PassEnv = {"SLURM_*", "MUNGE_*"};
  Cancel.Argv = {Opts.Scancel, JobId.str()};
  Cancel.Limits.WallSeconds = 30;
  if (auto CR = runProcess(Cancel); !CR) {
    llvm::Error E = CR.takeError();
    MAXCODE_DEBUG(llvm::dbgs()
                  << DEBUG_TYPE << ": job " << JobId << " not cancelled: "
                  << llvm::toString(std::move(E)) << "\n");
    llvm::consumeError(std::move(E));
  }
}

llvm::Expected<ProcessResult>
SlurmExecutor::endedBySlurm(llvm::StringRef JobId, const ProcessResult &Srun,
                            bool &NodeLost) {
  JobState S = queryState(JobId);
  std::string Why = S.Reason.empty() || S.Reason == "None"
                        ? ""
                        : " (reason: " + S.Reason + ")";
  std::string Job = "Slurm job " + JobId.str();
  if (S.State == "TIMEOUT") {
    ProcessResult Out;
    Out.TimedOut = true;
    Out.WallSeconds = Srun.WallSeconds;
    Out.Stderr = Job + " reached its time limit (--time)";
    Out.JobId = JobId.str();
    return Out;
  }
  if (S.State == "CANCELLED")
    return llvm::createStringError(Job + " was cancelled" + Why);
  if (S.State == "NODE_FAIL" || S.State == "BOOT_FAIL") {
    NodeLost = true;
    return llvm::createStringError(Job + " was lost with its node (" + S.State +
                                   ")" + Why);
  }
  if (S.State == "OUT_OF_MEMORY")
    return llvm::createStringError(Job + " ran out of memory" + Why);
  return llvm::createStringError(
      Job + " ended " + (S.State.empty() ? "in an unknown state" : S.State) +
      Why + " without a result: " + lastLines(Srun.Stderr, 3));
}

llvm::Expected<ProcessResult> SlurmExecutor::runJob(const ProcessSpec &Spec,
                                                    JobKind Kind,
                                                    llvm::StringRef Stem,
                                                    bool &NodeLost,
                                                    std::string &JobId) {
  NodeLost = false;
  // Left by an earlier process that was not resumed, or by the lost try.
  removeJobFiles(Stem);
  if (llvm::Error E = writeJobSpec(Stem, Spec))
    return E;
  auto Cleanup = [&] { removeJobFiles(Stem); };

  auto R = runProcess(srunCommand(Spec, Kind, Stem));
  if (!R) {
    Cleanup();
    return llvm::createStringError("cannot run srun: " +
                                   llvm::toString(R.takeError()));
  }
  JobId = parseJobId(R->Stderr);
  if (R->Cancelled) {
    // Stopped on our side (an editor's "stop"): the job goes too.
    if (!JobId.empty())
      cancelJob(JobId);
    Cleanup();
    ProcessResult Out;
    Out.Cancelled = true;
    Out.JobId = JobId;
    return Out;
  }

  auto Result = readJobResult(Stem);
  if (Result && !Result->Cancelled) {
    Cleanup();
    Result->JobId = JobId;
    // scancel signals the job's processes (SIGTERM, then SIGKILL): the
    // runner may see its program die of it and write that down before it
    // goes itself. What Slurm says of the job is then the cause.
    if ((Result->Signal == SIGTERM || Result->Signal == SIGKILL) &&
        !JobId.empty() && queryState(JobId).State == "CANCELLED")
      return endedBySlurm(JobId, *R, NodeLost);
    return Result;
  }
  if (!Result) {
    // What Slurm says of the job, below, is what the user is told.
    llvm::Error E = Result.takeError();
    MAXCODE_DEBUG(llvm::dbgs()
                  << DEBUG_TYPE << ": job '" << JobId << "' left no result: "
                  << llvm::toString(std::move(E)) << "\n");
    llvm::consumeError(std::move(E));
  }
  Cleanup();
  if (JobId.empty())
    return llvm::createStringError("srun started no job (" + R->describe() +
                                   "): " + lastLines(R->Stderr, 3));
  return endedBySlurm(JobId, *R, NodeLost);
}

llvm::Expected<std::unique_ptr<Executor>>
maxcode::createSlurmExecutor(unsigned Jobs, const SlurmOptions &Opts) {
  if (Opts.SharedDir.empty())
    return llvm::createStringError(Opts.Names("Executor") + "=slurm needs " +
                                   Opts.Names("SharedDir") +
                                   "=<dir>, a folder that every node "
                                   "of the cluster sees at the same path");
  if (!llvm::sys::path::is_absolute(Opts.SharedDir))
    return llvm::createStringError(Opts.Names("SharedDir") + " '" +
                                   Opts.SharedDir +
                                   "' must be an absolute path");
  if (!llvm::sys::fs::is_directory(Opts.SharedDir))
    return llvm::createStringError(Opts.Names("SharedDir") + " '" +
                                   Opts.SharedDir + "' is not a folder");
  if (Opts.JobRunner.empty() || !llvm::sys::fs::can_execute(Opts.JobRunner))
    return llvm::createStringError(
        "maxcode-job, which runs each job on the node, is not installed "
        "beside clang-maxcode" +
        (Opts.JobRunner.empty() ? "" : " ('" + Opts.JobRunner + "')"));
  // The controller must answer before anything is written or searched.
  ProcessSpec Ping;
  Ping.PassEnv = {"SLURM_*", "MUNGE_*"};
  Ping.Argv = {Opts.Scontrol, "ping"};
  Ping.Limits.WallSeconds = 20;
  auto P = runProcess(Ping);
  if (!P)
    return llvm::createStringError(
        "cannot run '" + Opts.Scontrol +
        "' (is Slurm installed?): " + llvm::toString(P.takeError()));
  if (!P->succeeded() || !llvm::StringRef(P->Stdout).contains("is UP"))
    return llvm::createStringError(
        "the Slurm controller does not answer (scontrol ping: " +
        (P->TimedOut ? P->describe()
                     : llvm::StringRef(P->Stdout + P->Stderr)
                           .trim()
                           .split('\n')
                           .first.trim()
                           .str()) +
        "); start slurmctld or point SLURM_CONF at a running cluster");

  llvm::SmallString<256> Model(Opts.SharedDir);
  llvm::sys::path::append(Model, "maxcode-jobs");
  llvm::SmallString<256> Dir;
  if (std::error_code EC = llvm::sys::fs::createUniqueDirectory(Model, Dir))
    return llvm::createStringError("cannot make a folder in " +
                                   Opts.Names("SharedDir") + " '" +
                                   Opts.SharedDir + "': " + EC.message());
  return std::make_unique<SlurmExecutor>(Jobs, Opts, std::string(Dir));
}
