//===-- maxcode/Rules/Rule.h - Rewrite rules --------------------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The built-in policy's rules, in the manner of clang-tidy checks: one class
/// per rule (one file each under lib/Rules/Cpp/ and lib/Rules/Cuda/) with a
/// stable kebab-case id, AST matchers over the parsed file, and a function
/// turning matches into edits: tooling::Replacements built from the AST's
/// source ranges. The rules proposer (RulesProposer.h) combines the edits of
/// the selected rules into variants, cleans up around them and formats the
/// lines they changed with the project's .clang-format (clang::format), so that
/// no rule indents or lays out text by hand.
///
/// A rule that is not sure its edit keeps the program's meaning does not
/// propose it: macro expansions it cannot rewrite in the macro's own text,
/// code outside the main file, and anything whose effects it cannot see.
/// Where Clang itself can decide (does the function still compile with a
/// `const &` parameter?), the rule asks Clang, with one parse of the edited
/// text, before any build.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_RULES_RULE_H
#define MAXCODE_RULES_RULE_H

#include "maxcode/Frontend/Target.h"
#include "maxcode/Rewrite/Scope.h"
#include "clang/Basic/SourceLocation.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/BitmaskEnum.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/GlobPattern.h"
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class Decl;
class FunctionDecl;
class Preprocessor;
class SourceManager;
class Stmt;
} // namespace clang

namespace maxcode {

/// The languages of the files a rule rewrites. A file CUDA compiles is
/// CUDA, not C++: device code has rules of its own.
enum class RuleLanguages : unsigned {
  C = 1,
  CPlusPlus = 2,
  Cuda = 4,
  /// What runs on the host alone (C and C++, not CUDA).
  Host = C | CPlusPlus,
  /// C++'s library and classes: C++ and CUDA.
  CPlusPlusAndCuda = CPlusPlus | Cuda,
  All = C | CPlusPlus | Cuda,
  LLVM_MARK_AS_BITMASK_ENUM(/*LargestValue=*/Cuda)
};

/// "C", "C++" or "CUDA" for one language; the names joined with "/" for
/// several.
std::string describeLanguages(RuleLanguages L);

/// Facts about the build and the machine that decide what is safe, and the
/// rules' own options.
struct RuleOptions {
  /// The compiler that builds variants is GCC (g++): GCC pragmas are allowed.
  bool CompilerIsGCC = true;
  /// What a variant may edit (Scope.h). Under EditScope::Target only the
  /// target, declarations placed right before it and #include lines change.
  EditScope Scope = EditScope::File;
  /// Instruction-set extensions of the machine that runs the variants
  /// ("avx2", "bmi2", ...); a target pragma is proposed only for these.
  std::vector<std::string> HostFeatures;
  /// Per-rule options as clang-tidy's CheckOptions spell them:
  /// "rule-id.Key" -> value ("string-to-char-buffer.BufferSize" -> "1000001").
  /// docs/rules/<id>.md lists each rule's keys.
  std::map<std::string, std::string> CheckOptions;
};

/// Parses `key=value` option assignments (`--rule-option`) into \p Into; an
/// assignment without `=` or with a key that is not `rule-id.Key` of a known
/// rule is an error naming it.
llvm::Error parseRuleOptionAssignment(llvm::StringRef Assignment,
                                      std::map<std::string, std::string> &Into);

class Rule;

/// What a rule sees: one parsed file, the target in it and the options.
class RuleContext {
public:
  /// \p OriginalText is the user's file when \p Parsed is a variant of it
  /// (descriptions name the user's lines); empty when \p Parsed is the
  /// user's file itself.
  RuleContext(ParsedFile &Parsed, const Target &T, const RuleOptions &Opts,
              llvm::StringRef OriginalText = "");
  ~RuleContext();

  clang::ASTContext &getASTContext() const;
  clang::Preprocessor &getPreprocessor() const;
  const clang::SourceManager &getSourceManager() const;
  /// The main file's text.
  llvm::StringRef getCode() const { return Code; }
  /// The absolute path replacements name.
  llvm::StringRef getFilePath() const { return T.File; }
  const Target &getTarget() const { return T; }
  const RuleOptions &getOptions() const { return Opts; }
  const ParsedFile &getParsed() const { return Parsed; }
  /// The target's definition in the AST; null when it is not found (the
  /// text changed since the target was discovered).
  const clang::FunctionDecl *getTargetDecl() const { return TargetDecl; }

  /// An analysis of the file that more than one rule needs (the strings
  /// string-to-char-buffer turns into buffers, which fast-io then reads and
  /// writes with stdio), made once per context: \p Key names it (the
  /// address of an object of its own), \p Compute makes it on first use.
  template <typename T>
  const T &getSharedAnalysis(const void *Key,
                             llvm::function_ref<T()> Compute) const {
    std::shared_ptr<void> &Slot = SharedAnalyses[Key];
    if (!Slot)
      Slot = std::make_shared<T>(Compute());
    return *static_cast<const T *>(Slot.get());
  }
  bool isCuda() const;
  bool isCPlusPlus() const;
  /// The file's language: one of C, C++, CUDA.
  RuleLanguages getLanguage() const;

  /// The functions local rules rewrite: the target, and the functions
  /// defined inside it (members of local classes). `--target` restricts the
  /// rules to the target; what they would do elsewhere is another target's
  /// search.
  std::vector<const clang::FunctionDecl *> getFunctions() const;
  /// Every function the scope lets rules edit, the target first: where the
  /// whole-file rules (I/O, start-up, globals of main) look. Their edits
  /// outside the target are proposals of their own, which the search may
  /// combine with the target's.
  std::vector<const clang::FunctionDecl *> getFileFunctions() const;

  /// The main-file range a rewrite of \p R edits: tokens written directly in
  /// the main file, or inside one macro argument (they map back to where the
  /// argument is written). None for anything else: macro bodies, headers,
  /// text outside the edit scope.
  std::optional<clang::CharSourceRange>
  getEditRange(clang::CharSourceRange R) const;
  std::optional<clang::CharSourceRange>
  getEditRange(clang::SourceRange TokenRange) const;
  /// Like getEditRange, but a range whose tokens all come from one macro's
  /// body maps to the body in the #define (an edit there changes every
  /// expansion, which the caller must have checked).
  std::optional<clang::CharSourceRange>
  getSpelledRange(clang::SourceRange TokenRange) const;
  /// The text of a range getEditRange or getSpelledRange returned.
  llvm::StringRef getText(clang::CharSourceRange FileRange) const;
  /// The text \p S is spelled with (getSpelledRange), or "" when it is not
  /// one piece of the main file.
  llvm::StringRef getSourceText(const clang::Stmt *S) const;
  /// True when \p R (written in the main file) is inside the target.
  bool isInTarget(clang::SourceRange R) const;
  /// True when the tokens of \p R are written directly in the main file and
  /// inside what the scope lets rules edit.
  bool isEditable(clang::SourceRange R) const;

  /// The line of the user's file that \p Loc (in the current text) comes
  /// from, for descriptions: lines of a variant map back through its diff
  /// with the user's file.
  unsigned getUserLine(clang::SourceLocation Loc) const;

  /// Whether the line of \p Loc is the user's: unchanged from the user's
  /// file, or changed only in its numbers (a constant tuned before). A line
  /// a rule added (an unroll pragma, a helper) is not.
  bool isUserCode(clang::SourceLocation Loc) const;

  /// A name for a new declaration: \p Base, or Base2, Base3, ... whichever is
  /// not an identifier of the file or a macro.
  std::string getFreshName(llvm::StringRef Base) const;

  /// The value of option \p Key of rule \p R (RuleOptions::CheckOptions
  /// "<id>.<Key>"), or \p Default.
  std::string getOption(const Rule &R, llvm::StringRef Key,
                        llvm::StringRef Default) const;
  int64_t getOption(const Rule &R, llvm::StringRef Key, int64_t Default) const;

  /// Parses \p NewText (the main file with edits applied) with the same
  /// command as the current text and returns where its errors are: the
  /// offset into \p NewText of each error in the main file, or, for an error
  /// in a header, of the first note in the main file that leads to it (the
  /// template instantiation or call that made the header fail). How a rule
  /// lets Clang decide whether an edit still compiles.
  llvm::Expected<std::vector<unsigned>>
  findErrorsIn(llvm::StringRef NewText) const;

private:
  ParsedFile &Parsed;
  const Target &T;
  const RuleOptions &Opts;
  llvm::StringRef Code;
  const clang::FunctionDecl *TargetDecl = nullptr;
  mutable std::map<const void *, std::shared_ptr<void>> SharedAnalyses;
  /// Line of the current text -> line of the user's file (index = line - 1);
  /// empty when the current text is the user's file.
  std::vector<unsigned> UserLines;
  /// Lines of the current text inside a hunk of its diff with the user's
  /// file (index = line - 1), and the user's file itself.
  std::vector<bool> ChangedLines;
  std::string OriginalText;
};

/// One edit a rule proposes.
struct RuleEdit {
  std::string RuleId;
  /// What it does, in a few words, naming the user's lines ("pass Values of
  /// squaredResidues by const reference (line 16)").
  std::string Description;
  /// What kind of change it is, for the one-line summary of a winner
  /// ("const &", "multiplication", "stdio"); the rule's label by default.
  std::string Label;
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

/// Adds the replacement of \p FileRange (from RuleContext::getEditRange or
/// getSpelledRange) by \p Text to \p E. An identical replacement already
/// there is not added twice. Returns false when it overlaps a different one
/// (the edit must then be dropped).
bool addReplacement(RuleEdit &E, const RuleContext &Ctx,
                    clang::CharSourceRange FileRange, llvm::StringRef Text);
/// Inserts \p Text at \p Loc (a main-file location, not in a macro).
bool insertText(RuleEdit &E, const RuleContext &Ctx, clang::SourceLocation Loc,
                llvm::StringRef Text);
/// Asks for `#include <Header>` (\p Header is "<cstdio>" or "\"x.h\""):
/// clang::format's cleanup puts it where the file's includes are, once.
bool addHeader(RuleEdit &E, const RuleContext &Ctx, llvm::StringRef Header);
/// Asks for every `#include` of \p Header to go.
bool removeHeader(RuleEdit &E, const RuleContext &Ctx, llvm::StringRef Header);

/// A rewrite rule. Subclasses are stateless; one instance serves every
/// file.
class Rule {
public:
  Rule(llvm::StringRef Id, llvm::StringRef Summary, llvm::StringRef Label,
       RuleLanguages Languages = RuleLanguages::All)
      : Id(Id), Summary(Summary), Label(Label), Languages(Languages) {}
  virtual ~Rule();

  /// The stable kebab-case id ("fast-io", "cuda-launch-bounds").
  llvm::StringRef getId() const { return Id; }
  /// One line for --list-rules.
  llvm::StringRef getSummary() const { return Summary; }
  /// A few words for the summary of a winner ("const &").
  llvm::StringRef getLabel() const { return Label; }
  /// The languages of the files this rule rewrites; the engine runs it on
  /// no other.
  RuleLanguages getLanguages() const { return Languages; }
  /// False for a retired rule: one in no verified winner on any suite the
  /// project measures (docs/Rules.md, "Retired rules"). It stays built and
  /// tested, and only a --rules entry naming it exactly turns it on.
  bool isOnByDefault() const;
  /// The keys of this rule's options (docs/rules/<id>.md), with defaults.
  virtual std::vector<std::pair<std::string, std::string>>
  getOptionDefaults() const {
    return {};
  }

  /// Appends this rule's edits for \p Ctx to \p Out.
  virtual void propose(const RuleContext &Ctx,
                       std::vector<RuleEdit> &Out) const = 0;

protected:
  /// An edit of this rule, with replacements to be filled in.
  RuleEdit makeEdit(llvm::StringRef Description, double Score) const;

private:
  std::string Id;
  std::string Summary;
  std::string Label;
  RuleLanguages Languages;
};

/// Every built-in rule, in a fixed order: C++ rules, CUDA rules, knobs.
llvm::ArrayRef<std::unique_ptr<Rule>> getAllRules();

/// The rule with id \p Id, or null.
const Rule *findRule(llvm::StringRef Id);

/// Which rules are on, from comma-separated globs as clang-tidy's -checks
/// takes them: "*", "-cuda-*", "fast-io,endl-*". Later globs override
/// earlier ones; an empty list means "*". A wildcard never turns a retired
/// rule on (as clang-tidy's "*" leaves the analyzer's alpha checks off);
/// its exact id does.
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
    /// The glob is a plain id, with no wildcard.
    bool Exact;
  };
  std::vector<Entry> Entries;
};

/// Adds every replacement of \p From to \p Into; false on any conflict,
/// leaving \p Into partly merged (callers merge into a copy).
bool mergeReplacements(clang::tooling::Replacements &Into,
                       const clang::tooling::Replacements &From);

} // namespace maxcode

#endif // MAXCODE_RULES_RULE_H
