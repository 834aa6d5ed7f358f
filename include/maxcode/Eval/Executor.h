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

#include "maxcode/Support/Process.h"
#include "llvm/Support/Error.h"
#include <memory>

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
  /// Runs one job to completion (blocking; thread-safe).
  virtual llvm::Expected<ProcessResult> run(const ProcessSpec &Spec,
                                            JobKind Kind) = 0;
};

/// Runs jobs on this machine: up to \p Jobs builds and checks at once, timed
/// runs alone.
std::unique_ptr<Executor> createLocalExecutor(unsigned Jobs);

} // namespace maxcode

#endif // MAXCODE_EVAL_EXECUTOR_H
