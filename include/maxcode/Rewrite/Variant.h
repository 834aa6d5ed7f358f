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

struct Variant {
  /// The whole edited text of the target's file.
  std::string Text;
  /// One line saying what changed ("endl -> '\n' (3 places)").
  std::string Description;
  /// Ids of the rules that made it ("fast-io", "hoist-loop-invariant"); for
  /// an LLM proposal "llm", for a user's file "user".
  std::vector<std::string> Rules;
};

} // namespace maxcode

#endif // MAXCODE_REWRITE_VARIANT_H
