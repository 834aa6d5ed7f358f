//===-- maxcode/Rewrite/Variant.h - A candidate rewrite ---------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A Variant (DESIGN section 2) is carried as the whole edited text of the
/// target's file: every proposer (rules, LLM, a user's hand-edited copy given
/// to --evaluate) produces one, and the Rewrite layer checks it against the
/// scope rules by comparing it with the original text.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_REWRITE_VARIANT_H
#define MAXCODE_REWRITE_VARIANT_H

#include <string>
#include <vector>

namespace maxcode {

/// One place a variant changes, and how: what the one-line summary of a
/// winner says ("changed squaredResidues (const &, multiplication) and main
/// (stdio)").
struct VariantChange {
  /// The qualified name of the function changed; empty for the file around
  /// the functions (#include lines, pragmas, globals).
  std::string Where;
  /// What kind of change ("const &", "multiplication", "stdio").
  std::string What;
  /// The text its edits write, when known: how the summary of a smaller
  /// winner (minimised, tidied) tells whether the change is still in it.
  std::vector<std::string> Inserted;
};

struct Variant {
  /// The whole edited text of the target's file.
  std::string Text;
  /// One line saying what changed ("endl -> '\n' (3 places)").
  std::string Description;
  /// Ids of the rules that made it ("fast-io", "hoist-loop-invariant"); for
  /// an LLM proposal "llm", for a user's file "user".
  std::vector<std::string> Rules;
  /// Where it changes what, in order; empty when unknown (an LLM's variant,
  /// a user's file).
  std::vector<VariantChange> Changes;
};

} // namespace maxcode

#endif // MAXCODE_REWRITE_VARIANT_H
