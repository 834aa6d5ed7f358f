//===-- maxcode/Eval/Executor.h - Where builds and runs happen --*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Every build and run of the evaluator goes through one Executor (DESIGN
/// section 7). Nothing above Eval knows which one: `local` (a process pool
/// with the sandbox; the default) or a cluster scheduler.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_EVAL_EXECUTOR_H
#define MAXCODE_EVAL_EXECUTOR_H

#include "maxcode/Support/Options.h"
#include "maxcode/Support/Process.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>
#include <vector>

namespace maxcode {

enum class JobKind {
  Build, ///< Compiles; many at once.
  Check, ///< Runs whose time is not measured; many at once.
  Timed, ///< Measured runs: never overlap one another or any other job.
};

class Executor {
public:
  virtual ~Executor();
  virtual llvm::StringRef name() const = 0;
  /// How many jobs may be in flight at once.
  virtual unsigned parallelism() const = 0;
  /// Runs one job to completion (blocking; thread-safe). \p Key, when not
  /// empty, names the job the same way in every process that runs the same
  /// search (see attachRun); jobs without one are anonymous.
  virtual llvm::Expected<ProcessResult>
  run(const ProcessSpec &Spec, JobKind Kind, llvm::StringRef Key) = 0;
  /// Says which run of the store the jobs belong to, once it is known.
  /// \p Resume: the run continues one that was interrupted, whose keyed jobs
  /// may still be running or may have finished unseen. Jobs that outlive
  /// the process (Slurm's) are then re-attached to; the local executor's die
  /// with it, so it has nothing to do.
  virtual void attachRun(llvm::StringRef RunKey, bool Resume) {}
};

/// Runs jobs on this machine: up to \p Jobs builds and checks at once, timed
/// runs alone.
std::unique_ptr<Executor> createLocalExecutor(unsigned Jobs);

/// How the Slurm executor submits its jobs (docs/Slurm.md).
struct SlurmOptions {
  /// A folder every node sees at the same path: the executor's job files
  /// (and the evaluator's scratch folders) go there.
  std::string SharedDir;
  /// Words added to every srun (partition, account, --gres, --time, ...).
  std::vector<std::string> ExtraArgs;
  /// Builds run as Slurm jobs too; otherwise they run on this machine.
  bool Builds = false;
  /// maxcode-job, which runs one ProcessSpec inside a job; it must be at
  /// the same path on the nodes.
  std::string JobRunner;
  /// Slurm's commands (looked up on PATH when they have no slash).
  std::string Srun = "srun", Scontrol = "scontrol", Sacct = "sacct",
              Scancel = "scancel";
  /// How its errors name the settings.
  OptionNames Names;
};

/// Runs jobs on a Slurm cluster through srun, up to \p Jobs in flight; timed
/// runs get a node of their own (--exclusive). Fails, without writing
/// anything, when the options are incomplete or the controller does not
/// answer.
llvm::Expected<std::unique_ptr<Executor>>
createSlurmExecutor(unsigned Jobs, const SlurmOptions &Opts);

} // namespace maxcode

#endif // MAXCODE_EVAL_EXECUTOR_H
