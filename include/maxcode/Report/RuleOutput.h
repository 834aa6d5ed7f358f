//===-- maxcode/Report/RuleOutput.h - What rules modes print ---*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// --list-rules, --list-variants and --critique (docs/Rules.md): the rule
/// catalogue, the variants the rules make for one target as unified diffs,
/// and the rules critic's view of one evaluation.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_REPORT_RULEOUTPUT_H
#define MAXCODE_REPORT_RULEOUTPUT_H

#include "maxcode/Policy/CritiqueTags.h"
#include "maxcode/Policy/RuleTool.h"
#include "maxcode/Rules/Rule.h"
#include "llvm/Support/Error.h"

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace maxcode {

/// Every rule, one per line: id, then its summary; rules \p Selection turns
/// off are marked.
void printRuleList(const RuleSelection &Selection, llvm::raw_ostream &OS);

/// `target NAME (kind, file:lines): N variants`, then for each variant
/// `variant N [rule,...]: description` and its unified diff against the
/// file, named \p ShownName in the diff's headers; the variants that touch
/// only the rest of the file come after, as a section of their own.
void printVariantListing(const VariantListing &L, llvm::StringRef ShownName,
                         llvm::raw_ostream &OS);

/// The same listing as one JSON document (docs/JSONOutput.md): the target,
/// each variant with its number, rules, description, whether it changes the
/// target or only the rest of the file, its changes and its diff, and the
/// variants the compiler rejected.
void printVariantListingJSON(const VariantListing &L, llvm::StringRef ShownName,
                             llvm::raw_ostream &OS);

/// Writes variant N of \p L (numbered as printVariantListing numbers them)
/// to \p Dir as variant-N.<the file's extension>, creating \p Dir.
llvm::Error writeVariantFiles(const VariantListing &L, llvm::StringRef Dir);

/// The critique's text, then `tags:` and `blamed:` lines.
void printCritique(const Critique &C, llvm::raw_ostream &OS);

} // namespace maxcode

#endif // MAXCODE_REPORT_RULEOUTPUT_H
