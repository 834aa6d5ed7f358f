//===-- Knobs.cpp - Integer constants to tune -----------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Knobs are found with Clang's own views of the file: the lexer (comments
// that mark a literal, unroll pragmas), the preprocessor's macro table
// (`#define TILE 16`) and the AST (const and constexpr sizes).
//
//===----------------------------------------------------------------------===//

#include "maxcode/Rules/Knobs.h"
#include "Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>

using namespace maxcode;
using namespace clang;

llvm::StringRef maxcode::knobKindName(KnobKind K) {
  switch (K) {
  case KnobKind::Marked:
    return "marked";
  case KnobKind::Constant:
    return "constant";
  case KnobKind::Unroll:
    return "unroll";
  }
  llvm_unreachable("unknown knob kind");
}

static double distance(int64_t A, int64_t B) {
  return std::abs(std::log2((double)A / (double)B));
}

std::vector<int64_t> maxcode::powerOfTwoNeighbours(int64_t Current, int64_t Min,
                                                   int64_t Max) {
  std::vector<int64_t> Out;
  if (Current <= 0)
    return Out;
  for (int64_t V : {Current / 4, Current / 2, Current * 2, Current * 4}) {
    bool Exact = V * 4 == Current || V * 2 == Current || V == Current * 2 ||
                 V == Current * 4;
    if (Exact && V >= Min && V <= Max && V != Current &&
        !llvm::is_contained(Out, V))
      Out.push_back(V);
  }
  llvm::stable_sort(Out, [&](int64_t A, int64_t B) {
    if (distance(A, Current) != distance(B, Current))
      return distance(A, Current) < distance(B, Current);
    return A < B;
  });
  return Out;
}

std::optional<std::vector<int64_t>>
maxcode::parseTuneList(llvm::StringRef Text) {
  std::vector<int64_t> Out;
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Text.split(Parts, ',');
  for (llvm::StringRef P : Parts) {
    int64_t V;
    if (P.trim().getAsInteger(10, V))
      return std::nullopt;
    if (!llvm::is_contained(Out, V))
      Out.push_back(V);
  }
  if (Out.empty())
    return std::nullopt;
  return Out;
}

/// Names that say "a size of the work decomposition", not "a size of the
/// problem": changing them keeps the meaning when the code is written
/// generically in them.
static bool isTunableName(llvm::StringRef Name) {
  std::string U = Name.upper();
  llvm::StringRef N(U);
  if (N.contains("WARP"))
    return false;
  return N.contains("TILE") || N.contains("BLOCK") || N.contains("THREAD") ||
         N.contains("UNROLL") || N.contains("CHUNK") || N.contains("BATCH") ||
         N == "BS" || N == "TB" || N == "TPB" || N.starts_with("BLK") ||
         N.ends_with("_BS");
}

static bool isPowerOfTwo(int64_t V) { return V > 0 && (V & (V - 1)) == 0; }

namespace {
/// The value of a decimal integer literal token, or none.
std::optional<int64_t> decimalValue(llvm::StringRef Spelling) {
  int64_t V;
  if (Spelling.empty() || !llvm::all_of(Spelling, llvm::isDigit) ||
      Spelling.getAsInteger(10, V))
    return std::nullopt;
  return V;
}
} // namespace

namespace {
/// Finds the knobs of one file, one view of it at a time, keeping the first
/// knob found at each offset.
class KnobFinder {
public:
  explicit KnobFinder(const RuleContext &Ctx)
      : Ctx(Ctx), SM(Ctx.getSourceManager()),
        LO(Ctx.getASTContext().getLangOpts()) {}

  /// The lexer: literals marked by a `// maxcode: tune(...)` comment on
  /// their line, and the factors of unroll pragmas.
  void findInTokens();
  /// The preprocessor: `#define TILE 16` of the main file.
  void findInMacros();
  /// The AST: const / constexpr integer variables initialised with a
  /// literal.
  void findInDeclarations();

  /// The knobs found, in the order of the file.
  std::vector<Knob> take() {
    llvm::sort(
        Out, [](const Knob &A, const Knob &B) { return A.Offset < B.Offset; });
    return std::move(Out);
  }

private:
  void add(Knob K);
  Knob knobAt(const Token &Tok, KnobKind Kind, int64_t Value) const;
  unsigned lineOf(const Token &T) const {
    return SM.getSpellingLineNumber(T.getLocation());
  }
  llvm::StringRef spelling(const Token &T) const {
    return llvm::StringRef(SM.getCharacterData(T.getLocation()), T.getLength());
  }
  /// The knob of the comment \p Toks[I], if it marks a literal.
  void findMarked(const std::vector<Token> &Toks, size_t I);
  /// The knob of the directive starting at \p Toks[I], if it is an unroll
  /// pragma.
  void findUnroll(const std::vector<Token> &Toks, size_t I);

  const RuleContext &Ctx;
  const SourceManager &SM;
  const LangOptions &LO;
  std::vector<Knob> Out;
};
} // namespace

void KnobFinder::add(Knob K) {
  if (K.Values.empty())
    return;
  auto R = Ctx.getEditRange(SourceRange(K.Loc));
  if (!R)
    return;
  for (const Knob &Old : Out)
    if (Old.Offset == K.Offset)
      return;
  Out.push_back(std::move(K));
}

Knob KnobFinder::knobAt(const Token &Tok, KnobKind Kind, int64_t Value) const {
  Knob K;
  K.Kind = Kind;
  K.Loc = Tok.getLocation();
  K.Line = SM.getSpellingLineNumber(K.Loc);
  K.Offset = SM.getFileOffset(K.Loc);
  K.Length = Tok.getLength();
  K.Current = Value;
  return K;
}

void KnobFinder::findInTokens() {
  FileID Main = SM.getMainFileID();
  Lexer Lex(Main, SM.getBufferOrFake(Main), SM, LO);
  Lex.SetCommentRetentionState(true);
  std::vector<Token> Toks;
  while (true) {
    Token Tok;
    bool Last = Lex.LexFromRawLexer(Tok);
    if (Tok.is(tok::eof))
      break;
    Toks.push_back(Tok);
    if (Last)
      break;
  }
  for (size_t I = 0; I < Toks.size(); ++I) {
    const Token &Tok = Toks[I];
    if (Tok.is(tok::comment))
      findMarked(Toks, I);
    else if (Tok.is(tok::hash) && Tok.isAtStartOfLine())
      findUnroll(Toks, I);
  }
}

void KnobFinder::findMarked(const std::vector<Token> &Toks, size_t I) {
  const Token &Tok = Toks[I];
  llvm::StringRef Text = spelling(Tok);
  size_t Mark = Text.find("maxcode: tune(");
  if (Mark == llvm::StringRef::npos)
    return;
  // The last number before the comment on its line.
  const Token *Number = nullptr;
  for (size_t J = I; J-- > 0 && lineOf(Toks[J]) == lineOf(Tok);)
    if (Toks[J].is(tok::numeric_constant)) {
      Number = &Toks[J];
      break;
    }
  llvm::StringRef List = Text.substr(Mark + 14);
  std::optional<std::vector<int64_t>> Values =
      parseTuneList(List.take_until([](char C) { return C == ')'; }));
  std::optional<int64_t> V =
      Number ? decimalValue(spelling(*Number)) : std::nullopt;
  if (!Values || !V || !List.contains(')'))
    return;
  Knob K = knobAt(*Number, KnobKind::Marked, *V);
  K.Name = llvm::formatv("marked constant at line {0}", K.Line).str();
  for (int64_t X : *Values)
    if (X != K.Current)
      K.Values.push_back(X);
  add(std::move(K));
}

void KnobFinder::findUnroll(const std::vector<Token> &Toks, size_t I) {
  // `#pragma unroll N`, `#pragma GCC unroll N`.
  std::vector<const Token *> Directive;
  for (size_t J = I + 1; J < Toks.size() && !Toks[J].isAtStartOfLine(); ++J)
    if (Toks[J].isNot(tok::comment))
      Directive.push_back(&Toks[J]);
  auto Word = [&](size_t J) -> llvm::StringRef {
    return J < Directive.size() && Directive[J]->is(tok::raw_identifier)
               ? Directive[J]->getRawIdentifier()
               : "";
  };
  size_t At = Word(1) == "GCC" ? 2 : 1;
  if (Word(0) != "pragma" || Word(At) != "unroll" ||
      Directive.size() != At + 2 ||
      !Directive[At + 1]->is(tok::numeric_constant))
    return;
  const Token &N = *Directive[At + 1];
  std::optional<int64_t> V = decimalValue(spelling(N));
  if (!V)
    return;
  Knob K = knobAt(N, KnobKind::Unroll, *V);
  K.Name = llvm::formatv("unroll at line {0}", K.Line).str();
  for (int64_t X : {2, 4, 8, 16})
    if (X != K.Current)
      K.Values.push_back(X);
  llvm::stable_sort(K.Values, [&](int64_t A, int64_t B) {
    return distance(A, K.Current) < distance(B, K.Current);
  });
  add(std::move(K));
}

void KnobFinder::findInMacros() {
  Preprocessor &PP = Ctx.getPreprocessor();
  for (const auto &M : PP.macros()) {
    const IdentifierInfo *II = M.first;
    const MacroInfo *MI = PP.getMacroInfo(II);
    if (!MI || MI->isFunctionLike() || MI->getNumTokens() != 1 ||
        !SM.isWrittenInMainFile(MI->getDefinitionLoc()) ||
        !isTunableName(II->getName()))
      continue;
    const Token &T = MI->getReplacementToken(0);
    if (!T.is(tok::numeric_constant))
      continue;
    std::optional<int64_t> V = decimalValue(
        llvm::StringRef(SM.getCharacterData(T.getLocation()), T.getLength()));
    if (!V || !isPowerOfTwo(*V))
      continue;
    Knob K = knobAt(T, KnobKind::Constant, *V);
    K.Name = II->getName().str();
    K.Values = powerOfTwoNeighbours(*V, 1, 1024);
    add(std::move(K));
  }
}

void KnobFinder::findInDeclarations() {
  struct Finder : RecursiveASTVisitor<Finder> {
    std::vector<const VarDecl *> Vars;
    bool VisitVarDecl(VarDecl *V) {
      if (!isa<ParmVarDecl>(V) && V->getType()->isIntegerType() &&
          (V->getType().isConstQualified() || V->isConstexpr()) &&
          V->getInit() && V->getIdentifier() &&
          isa<IntegerLiteral>(V->getInit()->IgnoreImplicit()))
        Vars.push_back(V);
      return true;
    }
  } F;
  F.TraverseDecl(Ctx.getASTContext().getTranslationUnitDecl());
  for (const VarDecl *V : F.Vars) {
    const auto *Lit = cast<IntegerLiteral>(V->getInit()->IgnoreImplicit());
    int64_t Value = Lit->getValue().getSExtValue();
    if (!isTunableName(V->getName()) || !isPowerOfTwo(Value) ||
        !Lit->getLocation().isFileID())
      continue;
    Token T;
    if (Lexer::getRawToken(Lit->getLocation(), T, SM, LO))
      continue;
    Knob K = knobAt(T, KnobKind::Constant, Value);
    K.Name = V->getNameAsString();
    K.Values = powerOfTwoNeighbours(Value, 1, 1024);
    add(std::move(K));
  }
}

std::vector<Knob> maxcode::findKnobs(const RuleContext &Ctx) {
  KnobFinder F(Ctx);
  F.findInTokens();
  F.findInMacros();
  F.findInDeclarations();
  return F.take();
}
