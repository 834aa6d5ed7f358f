//===-- maxcode/Eval/CpuEvidence.h - Why a CPU target's lines are slow -*-
// C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The CPU's counterpart of CUPTI's metrics (docs/Evaluation.md, "CPU
/// evidence"): for the lines of a target, what callgrind's cache and branch
/// simulation counts (misses and mispredicts per line), the calls each line
/// makes, and the build compiler's own optimisation remarks (a loop not
/// vectorised and why, a call not inlined), gathered once for the baseline
/// of a search. The critic and the LLM prompt read it; the JSON output and
/// the report show it.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_EVAL_CPUEVIDENCE_H
#define MAXCODE_EVAL_CPUEVIDENCE_H

#include "maxcode/Frontend/Profile.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <cstdint>
#include <string>
#include <vector>

namespace maxcode {

/// One line's events over the timed inputs, the line's own code only; its
/// calls' costs are CallInstructions.
struct LineEvidence {
  unsigned Line = 0;
  uint64_t Instructions = 0;
  uint64_t L1Misses = 0;    ///< D1mr + D1mw: first-level data cache misses.
  uint64_t LLMisses = 0;    ///< DLmr + DLmw: last-level data cache misses.
  uint64_t Branches = 0;    ///< Bc + Bi: conditional and indirect branches.
  uint64_t Mispredicts = 0; ///< Bcm + Bim.
  uint64_t Calls = 0;       ///< Calls made from the line.
  /// Instructions of the calls made from the line, callees included.
  uint64_t CallInstructions = 0;

  /// Cycles as callgrind's own estimate weighs them (Ir + 10 per L1 miss
  /// + 100 per last-level miss + 10 per mispredict), the line's and its
  /// calls'.
  double estimatedCycles() const;
};

/// An optimisation remark of the build compiler on a line of the target.
struct CompilerRemark {
  unsigned Line = 0;
  unsigned Column = 0;
  /// "vectorize", "inline", "licm", "gvn" or "loop".
  std::string Pass;
  std::string Message;
};

struct CpuEvidence {
  /// The target's lines by estimated cycles, hottest first (at most
  /// MaxEvidenceLines); empty without a simulation.
  std::vector<LineEvidence> Lines;
  /// Estimated cycles of all the target's lines, and of the whole run.
  double TargetCycles = 0;
  double TotalCycles = 0;
  std::vector<CompilerRemark> Remarks;
  /// What could not be gathered, and why.
  std::vector<std::string> Notes;
  /// Seconds spent gathering it.
  double Seconds = 0;

  bool empty() const { return Lines.empty() && Remarks.empty(); }
};

constexpr size_t MaxEvidenceLines = 10;

/// valgrind's options that add the cache and branch simulation to a
/// callgrind run.
std::vector<std::string> simulationOptions();

/// The lines [\p First, \p Last] of \p SourceName (compared by file name)
/// in \p Profile, a run with simulationOptions().
CpuEvidence lineEvidenceOf(const CallgrindProfile &Profile,
                           llvm::StringRef SourceName, unsigned First,
                           unsigned Last);

/// The flags that make the compiler of \p Argv print its missed
/// optimisations (GCC's -fopt-info, Clang's -Rpass-missed); empty for a
/// compiler that has none we read (nvcc).
std::vector<std::string> remarkFlags(llvm::ArrayRef<std::string> Argv);

/// The remarks in \p Output (the compiler's stderr) on lines [\p First,
/// \p Last] of \p File, the main file (compared by absolute path, relative
/// ones against \p Directory); each once.
std::vector<CompilerRemark> parseCompilerRemarks(llvm::StringRef Output,
                                                 llvm::StringRef File,
                                                 llvm::StringRef Directory,
                                                 unsigned First, unsigned Last);

/// Compiles \p File, unchanged, with its compile command \p Command and
/// remarkFlags() into /dev/null, in the command's folder: its remarks on
/// lines [\p First, \p Last]. Nothing is written (dependency files are
/// dropped).
llvm::Expected<std::vector<CompilerRemark>>
compilerRemarks(const clang::tooling::CompileCommand &Command,
                llvm::StringRef File, unsigned First, unsigned Last,
                double TimeoutSeconds);

llvm::json::Value toJSON(const CpuEvidence &E);

} // namespace maxcode

#endif // MAXCODE_EVAL_CPUEVIDENCE_H
