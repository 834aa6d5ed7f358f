//===-- maxcode/Policy/RuleTool.h - Command-line modes for rules -*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What `--list-rules` and `--list-variants` do, so that the tool only parses
/// options: the rules with their summaries, and the variants the rules
/// proposer makes for one target, each shown as a unified diff.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_POLICY_RULETOOL_H
#define MAXCODE_POLICY_RULETOOL_H

#include "maxcode/Frontend/NvccAdjuster.h"
#include "maxcode/Policy/Rule.h"
#include "clang/Tooling/CompilationDatabase.h"
#include <memory>
#include <optional>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace maxcode {

/// Prints every rule, one per line: id, then its summary; rules \p Selection
/// turns off are marked.
void printRuleList(const RuleSelection &Selection, llvm::raw_ostream &OS);

/// The instruction-set extensions of this machine a GCC target pragma may
/// name ("avx2", "bmi2", "popcnt", ...).
std::vector<std::string> getHostPragmaFeatures();

/// True when the evaluator builds variants of \p File, whose command is
/// \p Command, with GCC: the command's own compiler, or g++ for the flags
/// given after `--` (which name none). What the GCC-only rules ask.
bool buildsWithGcc(const clang::tooling::CompileCommand &Command,
                   llvm::StringRef File);

struct ListVariantsOptions {
  std::vector<std::string> Sources; ///< Exactly one.
  std::string BuildPath;
  std::shared_ptr<clang::tooling::CompilationDatabase> FlagsAfterDashDash;
  ParseSettings Parse;
  std::string TargetNames; ///< Empty: the top-ranked target.
  std::string Rules;       ///< Globs, "" for all.
  /// The rules' options, "rule-id.Key" -> value.
  std::map<std::string, std::string> CheckOptions;
  std::optional<EditScope> Scope; ///< Unset: file for C++, target for CUDA.
  unsigned MaxCount = 16;
  uint64_t Seed = 0;
  /// When set, each variant is also written there as variant-N.<ext>.
  std::string WriteDir;
};

/// --list-variants: prints `variant N [rule,...]: description` and the
/// unified diff against the file for each variant. Returns the exit code.
int listVariantsMain(const ListVariantsOptions &Opts, llvm::raw_ostream &Out,
                     llvm::raw_ostream &Err);

struct CritiqueOptions {
  /// An evaluation as `--evaluate --format=json` prints it.
  std::string EvaluationJSON;
  /// The variant that was evaluated (a whole file).
  std::string VariantFile;
  /// The file the variant was made from; empty if unknown.
  std::string BaseFile;
  /// The rules that made the variant, comma-separated.
  std::string Rules;
};

/// --critique: prints the rules critic's text for one evaluation, then its
/// tags and the rules it blames. Returns the exit code.
int critiqueMain(const CritiqueOptions &Opts, llvm::raw_ostream &Out,
                 llvm::raw_ostream &Err);

} // namespace maxcode

#endif // MAXCODE_POLICY_RULETOOL_H
