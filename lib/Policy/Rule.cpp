//===-- Rule.cpp - Rule context, registry and selection -------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Policy/Rule.h"
#include "Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringSet.h"

using namespace maxcode;
using namespace clang;

Rule::~Rule() = default;

RuleEdit Rule::makeEdit(llvm::StringRef Description, double Score) const {
  RuleEdit E;
  E.RuleId = Id;
  E.Description = Description.str();
  E.Score = Score;
  return E;
}

namespace {
/// Finds the definition whose text ends where the target's does.
class TargetFinder : public RecursiveASTVisitor<TargetFinder> {
public:
  TargetFinder(const SourceManager &SM, const LangOptions &LO, const Target &T)
      : SM(SM), LO(LO), T(T) {}
  bool shouldVisitTemplateInstantiations() const { return false; }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (Found || !FD->doesThisDeclarationHaveABody() ||
        FD->isTemplateInstantiation())
      return true;
    SourceLocation End = FD->getEndLoc();
    SourceLocation Name = FD->getLocation();
    if (!End.isFileID() || !SM.isWrittenInMainFile(End))
      return true;
    unsigned EndOff =
        SM.getFileOffset(End) + Lexer::MeasureTokenLength(End, SM, LO);
    unsigned NameOff = SM.getFileOffset(SM.getExpansionLoc(Name));
    if (EndOff == T.EndOffset && NameOff >= T.BeginOffset &&
        NameOff < T.EndOffset)
      Found = FD;
    return true;
  }

  const FunctionDecl *Found = nullptr;

private:
  const SourceManager &SM;
  const LangOptions &LO;
  const Target &T;
};
} // namespace

RuleContext::RuleContext(ParsedFile &Parsed, const Target &T,
                         const RuleOptions &Opts)
    : Parsed(Parsed), T(T), Opts(Opts) {
  const SourceManager &SM = getSourceManager();
  Code = SM.getBufferData(SM.getMainFileID());
  TargetFinder F(SM, getASTContext().getLangOpts(), T);
  F.TraverseDecl(getASTContext().getTranslationUnitDecl());
  TargetDecl = F.Found;
}

ASTContext &RuleContext::getASTContext() const {
  return Parsed.AST->getASTContext();
}

Preprocessor &RuleContext::getPreprocessor() const {
  return Parsed.AST->getPreprocessor();
}

const SourceManager &RuleContext::getSourceManager() const {
  return Parsed.AST->getSourceManager();
}

bool RuleContext::isCuda() const {
  return getASTContext().getLangOpts().CUDA;
}

bool RuleContext::isCPlusPlus() const {
  return getASTContext().getLangOpts().CPlusPlus;
}

unsigned RuleContext::getEditBegin() const {
  return Opts.Scope == EditScope::Target ? T.BeginOffset : 0;
}

unsigned RuleContext::getEditEnd() const {
  return Opts.Scope == EditScope::Target ? T.EndOffset : Code.size();
}

std::optional<unsigned>
RuleContext::getFileOffset(SourceLocation Loc) const {
  const SourceManager &SM = getSourceManager();
  if (Loc.isInvalid() || !Loc.isFileID() || !SM.isWrittenInMainFile(Loc))
    return std::nullopt;
  return SM.getFileOffset(Loc);
}

std::optional<std::pair<unsigned, unsigned>>
RuleContext::getFileRange(SourceRange R) const {
  const SourceManager &SM = getSourceManager();
  if (R.isInvalid() || !R.getBegin().isFileID() || !R.getEnd().isFileID())
    return std::nullopt;
  std::optional<unsigned> B = getFileOffset(R.getBegin());
  std::optional<unsigned> E = getFileOffset(R.getEnd());
  if (!B || !E)
    return std::nullopt;
  unsigned EndOff =
      *E + Lexer::MeasureTokenLength(R.getEnd(), SM,
                                     getASTContext().getLangOpts());
  if (EndOff < *B || EndOff > Code.size())
    return std::nullopt;
  return std::make_pair(*B, EndOff);
}

std::optional<std::pair<unsigned, unsigned>>
RuleContext::getSpelledRange(SourceRange R) const {
  if (auto FR = getFileRange(R))
    return FR;
  const SourceManager &SM = getSourceManager();
  const LangOptions &LO = getASTContext().getLangOpts();
  if (R.isInvalid())
    return std::nullopt;
  // Tokens of one macro argument map back to where the argument is written.
  CharSourceRange CR = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(R), SM, LO);
  if (CR.isValid()) {
    if (!SM.isWrittenInMainFile(CR.getBegin()))
      return std::nullopt;
    unsigned B = SM.getFileOffset(CR.getBegin());
    unsigned E = SM.getFileOffset(CR.getEnd());
    if (E < B || E > Code.size())
      return std::nullopt;
    return std::make_pair(B, E);
  }
  // Tokens of one macro body are contiguous in the #define.
  SourceLocation B = R.getBegin(), E = R.getEnd();
  if (!B.isMacroID() || !E.isMacroID() || !SM.isMacroBodyExpansion(B) ||
      !SM.isMacroBodyExpansion(E))
    return std::nullopt;
  if (SM.getImmediateExpansionRange(B).getBegin() !=
      SM.getImmediateExpansionRange(E).getBegin())
    return std::nullopt;
  SourceLocation SB = SM.getSpellingLoc(B), SE = SM.getSpellingLoc(E);
  if (!SM.isWrittenInMainFile(SB) || !SM.isWrittenInMainFile(SE))
    return std::nullopt;
  unsigned BOff = SM.getFileOffset(SB);
  unsigned EOff = SM.getFileOffset(SE) + Lexer::MeasureTokenLength(SE, SM, LO);
  if (EOff < BOff || EOff > Code.size())
    return std::nullopt;
  return std::make_pair(BOff, EOff);
}

bool RuleContext::isEditable(SourceRange R) const {
  auto FR = getFileRange(R);
  return FR && FR->first >= getEditBegin() && FR->second <= getEditEnd();
}

bool RuleContext::isInTarget(SourceRange R) const {
  auto FR = getFileRange(R);
  return FR && FR->first >= T.BeginOffset && FR->second <= T.EndOffset;
}

llvm::StringRef RuleContext::getSourceText(SourceRange R) const {
  auto FR = getFileRange(R);
  if (!FR)
    return "";
  return Code.slice(FR->first, FR->second);
}

std::string RuleContext::getFreshName(llvm::StringRef Base) const {
  // Every identifier of the file, macro names included, so that a new name
  // neither shadows nor is captured by anything the program writes.
  llvm::StringSet<> Used;
  const LangOptions &LO = getASTContext().getLangOpts();
  Lexer Lex(SourceLocation(), LO, Code.begin(), Code.begin(), Code.end());
  Lex.SetCommentRetentionState(false);
  Token Tok;
  while (!Lex.LexFromRawLexer(Tok))
    if (Tok.is(tok::raw_identifier))
      Used.insert(Tok.getRawIdentifier());
  if (Tok.is(tok::raw_identifier))
    Used.insert(Tok.getRawIdentifier());
  Preprocessor &PP = getPreprocessor();
  auto Free = [&](llvm::StringRef Name) {
    if (Used.contains(Name))
      return false;
    IdentifierInfo *II = PP.getIdentifierTable().get(Name).isKeyword(LO)
                             ? nullptr
                             : &PP.getIdentifierTable().get(Name);
    return II && !II->hasMacroDefinition();
  };
  if (Free(Base))
    return Base.str();
  for (unsigned N = 2;; ++N) {
    std::string Candidate = (Base + llvm::Twine(N)).str();
    if (Free(Candidate))
      return Candidate;
  }
}

llvm::ArrayRef<std::unique_ptr<Rule>> maxcode::getAllRules() {
  // Built on first use (no static constructors), in the order --list-rules
  // prints them. An explicit list survives static linking without anchors.
  static const std::vector<std::unique_ptr<Rule>> Rules = [] {
    std::vector<std::unique_ptr<Rule>> R;
    for (auto Create : {
             // C++: start-up and I/O first, they dominate small programs.
             createFastIORule, createPruneIncludesRule,
             createRemoveUnusedGlobalsRule, createStaticMainArraysRule,
             createEndlToNewlineRule,
             // C++: algorithmic and copy-avoiding rewrites.
             createMemoizeRecursionRule, createHoistLoopInvariantRule,
             createSubstrCompareRule, createConstRefParamRule,
             createRangeForCopyRule, createMapToUnorderedMapRule,
             createPowToMultiplyRule, createReserveBeforePushBackRule,
             // C++: directions to the compiler.
             createGccPragmasRule, createLoopUnrollPragmaRule,
             createRestrictPointerParamsRule,
             // CUDA: restructuring first, then local rewrites.
             createCudaSharedMemoryTilingRule, createCudaWarpReduceRule,
             createCudaVectorizeFloat4Rule, createCudaLaunchConfigRule,
             createCudaLaunchBoundsRule, createCudaFastMathRule,
             createCudaRestrictLdgRule, createCudaGridStrideRule,
             createCudaUnrollRule,
             // Knobs.
             createTuneConstantsRule})
      R.push_back(Create());
    return R;
  }();
  return Rules;
}

const Rule *maxcode::findRule(llvm::StringRef Id) {
  for (const std::unique_ptr<Rule> &R : getAllRules())
    if (R->getId() == Id)
      return R.get();
  return nullptr;
}

RuleSelection::RuleSelection() {
  Entries.push_back({cantFail(llvm::GlobPattern::create("*")), true});
}

llvm::Expected<RuleSelection> RuleSelection::parse(llvm::StringRef Globs) {
  RuleSelection S;
  if (Globs.trim().empty())
    return S;
  S.Entries.clear();
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Globs.split(Parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (llvm::StringRef Part : Parts) {
    Part = Part.trim();
    if (Part.empty())
      continue;
    bool Positive = !Part.consume_front("-");
    Part = Part.trim();
    if (Part.empty())
      return llvm::createStringError("empty rule glob in '" + Globs.str() +
                                     "'");
    auto Pattern = llvm::GlobPattern::create(Part);
    if (!Pattern)
      return llvm::createStringError("bad rule glob '" + Part.str() +
                                     "': " + toString(Pattern.takeError()));
    S.Entries.push_back({std::move(*Pattern), Positive});
  }
  return S;
}

bool RuleSelection::isEnabled(llvm::StringRef Id) const {
  bool On = false;
  for (const Entry &E : Entries)
    if (E.Pattern.match(Id))
      On = E.Positive;
  return On;
}

std::vector<const Rule *> RuleSelection::getEnabledRules() const {
  std::vector<const Rule *> Out;
  for (const std::unique_ptr<Rule> &R : getAllRules())
    if (isEnabled(R->getId()))
      Out.push_back(R.get());
  return Out;
}
