//===-- MaxcodeJob.cpp - Run one evaluation process inside a job ----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// maxcode-job STEM
///
/// The Slurm executor's job step: reads the ProcessSpec in STEM.spec.json,
/// runs it with its limits (process group, rlimits, wall-clock deadline,
/// sandbox user, output cap) on the node the job was given, and writes the
/// ProcessResult beside it (maxcode/Support/JobFile.h). Exits 0 once the
/// result is written, whatever the program did, so that Slurm's own state of
/// the job speaks only of the job (cancelled, timed out, node lost).
///
/// When Slurm ends the job (scancel, time limit) it sends SIGTERM first: the
/// program's whole process group is then killed and the result says
/// cancelled, so the program never outlives its job.
///
//===----------------------------------------------------------------------===//

#include "maxcode/Support/JobFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <csignal>
#include <cstdlib>

using namespace maxcode;

static std::atomic<bool> Stop{false};

static void onStopSignal(int) { Stop.store(true); }

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: maxcode-job STEM (runs STEM.spec.json, writes "
                    "STEM.result.json)\n";
    return 125;
  }
  static_assert(std::atomic<bool>::is_always_lock_free,
                "the signal handler must not take a lock");
  for (int Sig : {SIGTERM, SIGINT, SIGHUP})
    std::signal(Sig, onStopSignal);
  // What escapes the program's supervisor comes back here and is killed.
  becomeSubreaper();
  llvm::StringRef Stem = argv[1];
  auto Spec = readJobSpec(Stem);
  if (!Spec) {
    llvm::WithColor::error(llvm::errs(), "maxcode-job")
        << llvm::toString(Spec.takeError()) << "\n";
    return 125;
  }
  // Which job this is, for a resumed search that looks for it while it
  // runs (the process that submitted it may be gone).
  if (const char *Id = std::getenv("SLURM_JOB_ID")) {
    std::error_code EC;
    llvm::raw_fd_ostream OS((Stem + ".jobid").str(), EC);
    if (!EC)
      OS << Id << "\n";
  }
  Spec->Cancel = &Stop;
  auto R = runProcess(*Spec);
  if (!R) {
    llvm::WithColor::error(llvm::errs(), "maxcode-job")
        << llvm::toString(R.takeError()) << "\n";
    return 125;
  }
  // Slurm signals every process of the step, the program included, so a
  // program killed by that signal was cancelled with its job.
  if (Stop.load())
    R->Cancelled = true;
  if (llvm::Error E = writeJobResult(Stem, *R)) {
    llvm::WithColor::error(llvm::errs(), "maxcode-job")
        << llvm::toString(std::move(E)) << "\n";
    return 125;
  }
  return 0;
}
