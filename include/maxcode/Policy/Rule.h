//===-- maxcode/Policy/Rule.h - Rewrite rules of the rules policy -*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The built-in policy's rules, in the manner of clang-tidy checks: one class
/// per rule with a stable kebab-case id, AST matchers over the parsed file,
/// and a function turning matches into edits (tooling::Replacements on the
/// current text). The rules proposer (RulesProposer.h) combines the edits of
/// the selected rules into variants.
///
/// A rule that is not sure its edit keeps the program's meaning does not
/// propose it: macro expansions it cannot rewrite in the macro's own text,
/// code outside the main file, and anything whose effects it cannot see.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_POLICY_RULE_H
#define MAXCODE_POLICY_RULE_H

#include "maxcode/Frontend/Target.h"
#include "maxcode/Rewrite/Scope.h"
#include "clang/Basic/SourceLocation.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/GlobPattern.h"
#include <memory>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
class Preprocessor;
class SourceManager;
} // namespace clang

namespace maxcode {

/// Facts about the build and the machine that decide what is safe.
struct RuleOptions {
  /// The compiler that builds variants is GCC (g++): GCC pragmas are allowed.
  bool CompilerIsGCC = true;
  /// What a variant may edit (Scope.h). Under EditScope::Target only the
  /// target, declarations placed right before it and #include lines change.
  EditScope Scope = EditScope::File;
  /// Instruction-set extensions of the machine that runs the variants
  /// ("avx2", "bmi2", ...); a target pragma is proposed only for these.
  std::vector<std::string> HostFeatures;
};

/// What a rule sees: one parsed file, the target in it and the options.
/// Offsets are into the main file's current text.
class RuleContext {
public:
  RuleContext(ParsedFile &Parsed, const Target &T, const RuleOptions &Opts);

  clang::ASTContext &getASTContext() const;
  clang::Preprocessor &getPreprocessor() const;
  const clang::SourceManager &getSourceManager() const;
  /// The main file's text.
  llvm::StringRef getCode() const { return Code; }
  const Target &getTarget() const { return T; }
  const RuleOptions &getOptions() const { return Opts; }
  /// The target's definition in the AST; null when it is not found (the
  /// text changed since the target was discovered).
  const clang::FunctionDecl *getTargetDecl() const { return TargetDecl; }
  bool isCuda() const;
  bool isCPlusPlus() const;

  /// The byte range rules may edit besides the whole-file places (includes,
  /// pragmas, declarations before the target): the target's definition
  /// under EditScope::Target, the whole file under EditScope::File.
  unsigned getEditBegin() const;
  unsigned getEditEnd() const;

  /// The file offset of \p Loc when it is written in the main file (not in a
  /// macro expansion).
  std::optional<unsigned> getFileOffset(clang::SourceLocation Loc) const;
  /// The byte range of the tokens \p R covers when both ends are written in
  /// the main file outside macros, in order.
  std::optional<std::pair<unsigned, unsigned>>
  getFileRange(clang::SourceRange R) const;
  /// Where the tokens of \p R are spelled when that is one contiguous run of
  /// the main file: written directly, or all inside one macro's definition
  /// (edits there change every expansion, which the caller must have
  /// checked).
  std::optional<std::pair<unsigned, unsigned>>
  getSpelledRange(clang::SourceRange R) const;
  /// True when \p R is in the main file outside macros and inside
  /// [getEditBegin(), getEditEnd()).
  bool isEditable(clang::SourceRange R) const;
  /// True when \p R is inside the target's definition.
  bool isInTarget(clang::SourceRange R) const;

  /// The text of the byte range [Begin, End).
  llvm::StringRef getText(unsigned Begin, unsigned End) const {
    return Code.slice(Begin, End);
  }
  /// The source text of \p R's tokens, or "" when it is not in the main file.
  llvm::StringRef getSourceText(clang::SourceRange R) const;

  /// A name for a new declaration: \p Base, or Base2, Base3, ... whichever is
  /// not an identifier of the file or a macro.
  std::string getFreshName(llvm::StringRef Base) const;

private:
  ParsedFile &Parsed;
  const Target &T;
  const RuleOptions &Opts;
  llvm::StringRef Code;
  const clang::FunctionDecl *TargetDecl = nullptr;
};

/// One edit a rule proposes.
struct RuleEdit {
  std::string RuleId;
  /// What it does, in a few words ("endl -> '\n' (3 places)").
  std::string Description;
  clang::tooling::Replacements Replaces;
  /// How promising the edit is, 0 to 100; the critique moves it and the
  /// proposer orders by it.
  double Score = 50;
  /// Edits with the same non-empty group are alternatives (two ways of doing
  /// fast I/O, the values of one knob): a combined variant takes at most one.
  std::string Group;
  /// False for knob values: they are tried one at a time, never folded into
  /// the variant combining every rule.
  bool Combinable = true;
};

/// A rewrite rule. Subclasses are stateless; one instance serves every
/// file.
class Rule {
public:
  Rule(llvm::StringRef Id, llvm::StringRef Summary) : Id(Id), Summary(Summary) {}
  virtual ~Rule();

  /// The stable kebab-case id ("fast-io", "cuda-launch-bounds").
  llvm::StringRef getId() const { return Id; }
  /// One line for --list-rules.
  llvm::StringRef getSummary() const { return Summary; }
  /// True for rules that only apply to CUDA code.
  virtual bool isCudaOnly() const { return false; }

  /// Appends this rule's edits for \p Ctx to \p Out.
  virtual void propose(const RuleContext &Ctx,
                       std::vector<RuleEdit> &Out) const = 0;

protected:
  /// An edit of this rule, with replacements to be filled in.
  RuleEdit makeEdit(llvm::StringRef Description, double Score) const;

private:
  std::string Id;
  std::string Summary;
};

/// Every built-in rule, in a fixed order: C++ rules, CUDA rules, knobs.
llvm::ArrayRef<std::unique_ptr<Rule>> getAllRules();

/// The rule with id \p Id, or null.
const Rule *findRule(llvm::StringRef Id);

/// Which rules are on, from comma-separated globs as clang-tidy's -checks
/// takes them: "*", "-cuda-*", "fast-io,endl-*". Later globs override
/// earlier ones; an empty list means "*".
class RuleSelection {
public:
  static llvm::Expected<RuleSelection> parse(llvm::StringRef Globs);
  /// Every rule on.
  RuleSelection();

  bool isEnabled(llvm::StringRef Id) const;
  /// The enabled rules among getAllRules(), in its order.
  std::vector<const Rule *> getEnabledRules() const;

private:
  struct Entry {
    llvm::GlobPattern Pattern;
    bool Positive;
  };
  std::vector<Entry> Entries;
};

} // namespace maxcode

#endif // MAXCODE_POLICY_RULE_H
