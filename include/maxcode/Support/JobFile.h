//===-- maxcode/Support/JobFile.h - A process run elsewhere -----*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A ProcessSpec written to a file, run by maxcode-job on another machine
/// (inside a Slurm job), and its ProcessResult written back beside it. The
/// limits, the sandbox user and the captured output then mean the same on a
/// cluster node as they do here.
///
/// A job's files share one stem: STEM.spec.json (the spec), STEM.result.json
/// (exit status, times), STEM.stdout and STEM.stderr (the captured output,
/// raw bytes, which JSON could not carry), and STEM.jobid (the scheduler's
/// id of the job, written by the job as it starts, so that another process
/// can find the job while it runs).
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_SUPPORT_JOBFILE_H
#define MAXCODE_SUPPORT_JOBFILE_H

#include "maxcode/Support/Process.h"
#include "llvm/Support/Error.h"
#include <string>

namespace maxcode {

/// Writes \p Spec to \p Stem.spec.json (the Cancel flag is not carried).
llvm::Error writeJobSpec(llvm::StringRef Stem, const ProcessSpec &Spec);
llvm::Expected<ProcessSpec> readJobSpec(llvm::StringRef Stem);

/// Writes \p Result to \p Stem.result.json, .stdout and .stderr; the JSON
/// file last, so that its presence means the whole result is there.
llvm::Error writeJobResult(llvm::StringRef Stem, const ProcessResult &Result);
llvm::Expected<ProcessResult> readJobResult(llvm::StringRef Stem);

/// Removes every file of the job \p Stem.
void removeJobFiles(llvm::StringRef Stem);

} // namespace maxcode

#endif // MAXCODE_SUPPORT_JOBFILE_H
