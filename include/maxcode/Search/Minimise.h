//===-- maxcode/Search/Minimise.h - The smallest winning diff ---*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Minimising a verified winner (docs/Search.md): delta debugging over the
/// hunks of its diff, so that what a reviewer is asked to merge holds only
/// the edits its speedup needs.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_SEARCH_MINIMISE_H
#define MAXCODE_SEARCH_MINIMISE_H

#include "maxcode/Eval/EvalResult.h"
#include "maxcode/Rewrite/Minimisation.h"
#include "maxcode/Support/Options.h"
#include "llvm/ADT/StringRef.h"

namespace maxcode {

class EvaluationBackend;
struct Target;
struct Variant;

struct MinimiseInput {
  llvm::StringRef Original;
  /// The verified winner: its text as verified (finalForm), the node's
  /// variant (its rules and description), its search evaluation (the
  /// reference each smaller candidate is measured against) and its
  /// verification.
  llvm::StringRef WinnerText;
  const Variant *Winner = nullptr;
  const EvalResult *Searched = nullptr;
  const EvalResult *Verified = nullptr;
  /// Candidates evaluated at most, the final verification not counted
  /// (--minimise-budget).
  unsigned Budget = optdefault::MinimiseBudget;
  unsigned VerifyRepetitions = 10;
};

struct MinimiseOutcome {
  Minimisation M;
  /// Set when edits were dropped and the smaller winner held up on
  /// verification: its text and its verification replace the winner's.
  std::string Text;
  std::optional<EvalResult> Verification;
};

/// Whether \p Candidate, a smaller form of a winner, keeps the speedup
/// \p Reference measured, within the noise of both.
bool keepsSpeedup(const EvalResult &Candidate, const EvalResult &Reference);

/// Removes every edit of the winner whose removal keeps its speedup within
/// the noise (ddmin's finest pass over the diff's hunks, one evaluation
/// each),
/// and every edit that adds a compiler warning on its own lines when the
/// speedup holds without it. Each candidate is evaluated as the search
/// evaluates (built, checked, measured, cached); the smaller winner is then
/// verified as the winner was.
MinimiseOutcome minimiseWinner(EvaluationBackend &Backend, const Target &T,
                               const MinimiseInput &In);

} // namespace maxcode

#endif // MAXCODE_SEARCH_MINIMISE_H
