//===-- maxcode/Search/RunOutput.h - What a finished search writes -*- C++ -*-//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Step 5 of a run (DESIGN section 1): the winner written in place
/// (--apply), exported as clang-apply-replacements fixes (--export-fixes) or
/// shown as a diff, and the report (--report). docs/Output.md describes
/// what the user sees.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_SEARCH_RUNOUTPUT_H
#define MAXCODE_SEARCH_RUNOUTPUT_H

#include "maxcode/LLM/LLMClient.h"
#include "maxcode/Report/SearchReport.h"
#include "maxcode/Rewrite/Apply.h"
#include "maxcode/Rewrite/Review.h"
#include "maxcode/Search/Engine.h"
#include <optional>

namespace maxcode {

struct RunOptions;

/// A finished search, as the driver holds it.
struct FinishedSearch {
  const RunOptions &Opts;
  const SearchResult &Result;
  const Target &T;
  llvm::ArrayRef<Target> Targets;
  std::string File;
  std::string Original; ///< The file's bytes as read at the start.
  EditScope Scope;
  std::string Sandbox;   ///< The sandbox builds and runs had.
  std::string Integrity; ///< integrityOf() that sandbox.
  std::string StorePath;
  int64_t Run = -1;
  bool Improved = false;
  /// Improved, but below --min-speedup: never applied or exported.
  bool BelowMinSpeedup = false;
  uint64_t LLMCalls = 0; ///< Calls to the LLM, by every role.
  TokenUsage LLMTokens;
  /// The winner's review notes and diff size, for the report.
  std::vector<ReviewNote> Review;
  std::optional<DiffSize> Size;
  /// Improved, but it adds mutable static state and --allow-static-state
  /// was not given: never applied or exported.
  bool StaticStateRefused = false;
};

/// What the winner of \p R changed: the description of every step on its
/// path from the original, first step first (a winner is often a rule
/// applied on top of others, and its own description names only the last).
std::string winnerDescription(const SearchResult &R);

/// What the winner of \p R changed, in one line, when every step says where
/// it changed what (the rules' variants do): "changed squaredResidues
/// (const &, multiplication) and main (stdio)", or "squaredResidues
/// unchanged; the speedup came from main (stdio)". Empty otherwise.
std::string winnerSummary(const SearchResult &R, llvm::StringRef TargetName);

/// The report of \p S (winner diff \p Diff, output mode from the options).
SearchReport makeSearchReport(const FinishedSearch &S, llvm::StringRef Diff);

/// What --apply / --export-fixes did, for the summary.
struct WrittenOutput {
  std::optional<FixSet> Fixes; ///< Set when the winner was turned into fixes.
  bool Applied = false;
  bool Exported = false;
};

/// Turns the winner of \p S into fixes, then carries out --export-fixes,
/// --report and --apply, in that order (the report and the fixes exist even
/// when the apply is refused). Fails when the file changed since it was
/// read (the user's error), or with an InternalError when something could
/// not be written.
llvm::Error writeRunOutputs(const FinishedSearch &S, WrittenOutput &W);

} // namespace maxcode

#endif // MAXCODE_SEARCH_RUNOUTPUT_H
