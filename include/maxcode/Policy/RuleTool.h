//===-- maxcode/Policy/RuleTool.h - The rules, for the tool ----*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What `--list-variants` and `--critique` compute, and what every caller of
/// the rules proposer asks of the machine: the variants the rules make for
/// one target, and the rules critic's view of a stored evaluation. The tool
/// prints them through lib/Report (RuleOutput.h).
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_POLICY_RULETOOL_H
#define MAXCODE_POLICY_RULETOOL_H

#include "maxcode/Frontend/NvccAdjuster.h"
#include "maxcode/Frontend/Target.h"
#include "maxcode/Policy/CritiqueTags.h"
#include "maxcode/Policy/VariantCheck.h"
#include "maxcode/Rewrite/Variant.h"
#include "maxcode/Rules/Rule.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <optional>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace maxcode {

/// The instruction-set extensions a GCC target pragma may name ("avx2",
/// "bmi2", "popcnt", ...), as --allow-isa allows them: none by default (a
/// variant tied to an instruction set crashes on the user's other
/// machines); "native": this machine's; a list: those of it this machine
/// has (the variants run here).
std::vector<std::string>
allowedPragmaFeatures(llvm::ArrayRef<std::string> AllowIsa);

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
  ScopeSetting Scope = ScopeSetting::Default; ///< As scopeOf() reads it.
  /// A project's build command was given (--build-cmd): the default scope
  /// is the search's in project mode.
  bool ProjectMode = false;
  unsigned MaxCount = 16;
  uint64_t Seed = 0;
  std::vector<std::string> AllowIsa; ///< --allow-isa.
  /// When set, each variant is also written there as variant-N.<ext>.
  std::string WriteDir;
};

/// The variants the rules make for the chosen target of one file.
struct VariantListing {
  Target T;
  std::string File; ///< Absolute.
  std::string Code; ///< The file as parsed.
  /// Variants that change the target, then (under --scope=file only) those
  /// that change only the rest of the file.
  std::vector<Variant> OfTarget, Elsewhere;
  /// Variants the build compiler rejected (dropVariantsTheCompilerRejects),
  /// neither listed nor counted.
  std::vector<RejectedVariant> Rejected;
  /// Variants nvcc builds to the original's code, neither listed nor
  /// counted either.
  std::vector<RejectedVariant> Unchanged;
};

/// --list-variants: parses the one source, picks the target and asks the
/// rules for variants. Warnings (a source missing from the database, parse
/// errors outside the target) go to \p Diag.
llvm::Expected<VariantListing> listVariants(const ListVariantsOptions &Opts,
                                            llvm::raw_ostream &Diag);

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

/// --critique: the rules critic's view of one stored evaluation.
llvm::Expected<Critique> critiqueEvaluation(const CritiqueOptions &Opts);

} // namespace maxcode

#endif // MAXCODE_POLICY_RULETOOL_H
