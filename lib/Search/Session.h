//===-- Session.h - What every mode that evaluates needs --------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Private to lib/Search: the database, the parsed file, the chosen target,
/// the evaluator and the store of one run (Session.cpp), which the modes of
/// Driver.cpp share.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_LIB_SEARCH_SESSION_H
#define MAXCODE_LIB_SEARCH_SESSION_H

#include "maxcode/Eval/EvalCache.h"
#include "maxcode/Frontend/CompilationDatabase.h"
#include "maxcode/Frontend/Discovery.h"
#include "maxcode/Search/Driver.h"
#include "maxcode/Support/SQLiteFile.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <optional>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace maxcode {
namespace driver {

/// What every mode that evaluates needs: the database, the parsed file, the
/// chosen target, the evaluator and the store.
struct Session {
  std::optional<LoadedDatabase> DB;
  std::string File;
  ResolvedCommand RC;
  std::vector<Target> Targets;
  Target T;
  std::shared_ptr<SQLiteFile> StoreFile;
  std::unique_ptr<EvalCache> Cache;
  std::unique_ptr<Executor> Exec;
  std::unique_ptr<Evaluator> Eval;
  SandboxMode Sandbox = SandboxMode::None; ///< The one chosen.
};

/// The compile database of the run's options.
llvm::Expected<LoadedDatabase> loadDatabase(const RunOptions &Opts);

/// The targets of the sources, ranked by --profile-cmd when given: by GPU
/// time under CUPTI when the sources define kernels (the CPU cost of a CUDA
/// program says little about its kernels), else by callgrind's cost.
llvm::Expected<std::vector<Target>>
discoverTargetsFor(const RunOptions &Opts, const LoadedDatabase &DB,
                   llvm::raw_ostream &Err, DiscoveryReport *Report = nullptr);

/// Loads, parses, discovers and ranks; picks the target; makes the
/// evaluator and checks the baseline (\p UseStore: with the store).
llvm::Error openSession(const RunOptions &Opts, Session &S,
                        llvm::raw_ostream &Err, bool UseStore);

/// The tree project mode copies when --project-root does not say: the
/// source's git root, else the database's folder or one or two above it
/// that holds \p File, else \p File's folder.
std::string defaultProjectRoot(llvm::StringRef File, llvm::StringRef Build);

} // namespace driver
} // namespace maxcode

#endif // MAXCODE_LIB_SEARCH_SESSION_H
