//===-- maxcode/Eval/CuptiRun.h - Running programs under CUPTI --*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What it takes to run an unmodified CUDA program under libmaxcode-cupti
/// (docs/CUDA.md): the environment that injects it, the devices a sandbox
/// must let through, and the merged report of every process the run
/// started. Used by --measure=cuda-kernel and by --profile-cmd on CUDA
/// programs.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_EVAL_CUPTIRUN_H
#define MAXCODE_EVAL_CUPTIRUN_H

#include "maxcode/Eval/CuptiReport.h"
#include "maxcode/Frontend/Profile.h"
#include "maxcode/Support/Options.h"
#include <string>
#include <utility>
#include <vector>

namespace maxcode {

/// The variables that load \p Library into every CUDA process of a run and
/// send one report per process (`%p`) into \p OutputDir.
std::vector<std::pair<std::string, std::string>>
cuptiEnvironment(llvm::StringRef Library, llvm::StringRef OutputDir,
                 CuptiPass Pass);

/// The NVIDIA device nodes of this machine (/dev/nvidia*); empty when no
/// driver is loaded.
std::vector<std::string> nvidiaDevices();

/// Fails, saying why, unless a GPU can be used here and \p Library exists:
/// the check --measure=cuda-kernel makes before anything is built. \p Names
/// name the settings in the error.
llvm::Error checkCudaMeasurable(llvm::StringRef Library, OptionNames Names);

/// Every report in \p OutputDir, merged (a run may start several CUDA
/// programs). An empty folder is an error: the library never loaded.
llvm::Expected<CuptiReport> readCuptiReports(llvm::StringRef OutputDir);

/// The cost --measure=cuda-kernel gives a run: its kernel time in
/// nanoseconds, summed over every kernel and stream. A run that launched no
/// kernel, or whose kernel list is incomplete, cannot be measured.
llvm::Expected<double> cudaKernelCost(const CuptiReport &R);

/// Runs \p Command (through /bin/sh, placed by \p Place as
/// runUnderCallgrind's) under the timing pass and returns each kernel's GPU
/// time, most first (--profile-cmd).
llvm::Expected<std::vector<KernelTime>>
profileKernels(llvm::StringRef Command, const CommandPlacement &Place,
               llvm::StringRef Library, double TimeoutSeconds);

} // namespace maxcode

#endif // MAXCODE_EVAL_CUPTIRUN_H
