//===-- maxcode/Policy/RulesProposer.h - The built-in policy ----*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The rules proposer (`--policy=rules`): runs the selected rules on the
/// current text (the incumbent, which may itself be a rewritten variant: the
/// rules compose), orders their edits by promise as the critiques of earlier
/// evaluations adjust it, and builds variants: every compatible edit at
/// once, then each edit alone, then the most promising few together. Knob
/// values are offered one at a time. Deterministic for a given seed.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_POLICY_RULESPROPOSER_H
#define MAXCODE_POLICY_RULESPROPOSER_H

#include "maxcode/Policy/CritiqueTags.h"
#include "maxcode/Rewrite/Variant.h"
#include "maxcode/Rules/Rule.h"
#include <cstdint>

namespace maxcode {

struct RuleRequest {
  /// The current text, parsed; the rules read its AST.
  ParsedFile *Parsed = nullptr;
  /// The target, with offsets into the current text.
  const Target *T = nullptr;
  /// The user's file when the current text is a variant of it: descriptions
  /// name the user's lines. Empty when the current text is the user's file.
  llvm::StringRef OriginalText;
  RuleSelection Selection;
  RuleOptions Options;
  /// Critiques of the evaluations on the path to the current node, oldest
  /// first: blamed rules are demoted, tags promote the rules that address
  /// them (io-bound -> fast-io, memory-bound -> vectorised loads, ...).
  llvm::ArrayRef<Critique> Critiques;
  /// At most this many variants.
  unsigned MaxCount = 16;
  /// Orders edits of equal promise.
  uint64_t Seed = 0;
};

/// An edit with the places it changes.
struct PlacedEdit {
  RuleEdit Edit;
  /// The functions its replacements are in (qualified names); "" for
  /// replacements outside every function (includes, pragmas, globals).
  std::vector<std::string> Places;
  /// True when it changes the target.
  bool InTarget = false;
};

/// The edits of every selected rule, most promising first, scores adjusted
/// by the critiques; the target's edits before the others at equal promise.
std::vector<PlacedEdit> collectRuleEdits(const RuleRequest &R);

/// Applies \p Replaces to \p Code the way every variant is made: header
/// insertions and removals resolved and the code around the edits cleaned up
/// (clang::format::cleanupAroundReplacements), then the changed lines
/// formatted with the style of \p File (its .clang-format, else the file's
/// own indentation on LLVM's style). Fails when the replacements do not
/// apply.
llvm::Expected<std::string>
applyRuleReplacements(llvm::StringRef Code, llvm::StringRef File,
                      const clang::tooling::Replacements &Replaces);

/// The variants for \p R, most promising first, each a whole edited file
/// that passes the scope rules, none equal to the current text or to each
/// other: every compatible edit at once, then the target's edits together,
/// then each edit alone, then the most promising few together.
std::vector<Variant> proposeWithRules(const RuleRequest &R);

/// How much the critiques move a rule's score: a factor, 1 when they say
/// nothing about it.
double critiqueFactor(llvm::StringRef RuleId,
                      llvm::ArrayRef<Critique> Critiques);

} // namespace maxcode

#endif // MAXCODE_POLICY_RULESPROPOSER_H
