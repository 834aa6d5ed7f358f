//===-- RuleUtils.cpp - What the rule implementations share ---------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/AST/TypeLoc.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Basic/CharInfo.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/Inclusions/StandardLibrary.h"
#include "clang/Tooling/Transformer/SourceCode.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"
#include <set>

using namespace maxcode;
using namespace clang;

bool maxcode::mergeReplacements(tooling::Replacements &Into,
                                const tooling::Replacements &From) {
  for (const tooling::Replacement &R : From) {
    if (llvm::is_contained(Into, R))
      continue;
    if (llvm::Error Err = Into.add(R)) {
      // A conflict is the answer asked for; the callers say what it cost.
      llvm::consumeError(std::move(Err));
      return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Statements and lines.
//===----------------------------------------------------------------------===//

std::optional<CharSourceRange> maxcode::statementRange(const RuleContext &Ctx,
                                                       const Stmt *S) {
  return statementsRange(Ctx, S, S);
}

std::optional<CharSourceRange> maxcode::statementsRange(const RuleContext &Ctx,
                                                        const Stmt *First,
                                                        const Stmt *Last) {
  ASTContext &AST = Ctx.getASTContext();
  const SourceManager &SM = Ctx.getSourceManager();
  // A statement written with a macro (`rep(i, n) ...`) starts at the
  // macro's name: the expansion range, then the semicolon expression
  // statements leave out.
  SourceLocation B = SM.getExpansionRange(First->getBeginLoc()).getBegin();
  SourceLocation E = SM.getExpansionRange(Last->getEndLoc()).getEnd();
  CharSourceRange R = tooling::maybeExtendRange(
      CharSourceRange::getTokenRange(B, E), tok::semi, AST);
  std::optional<CharSourceRange> FR = Ctx.getEditRange(R);
  return FR;
}

/// The first token on \p Line of \p FID, if any.
static std::optional<Token> firstTokenOfLine(const RuleContext &Ctx, FileID FID,
                                             unsigned Line) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Start = SM.translateLineCol(FID, Line, 1);
  Token Tok;
  if (Start.isInvalid() ||
      Lexer::getRawToken(Start, Tok, SM, Ctx.getASTContext().getLangOpts(),
                         /*IgnoreWhiteSpace=*/true))
    return std::nullopt;
  return Tok;
}

/// True when line \p Line of \p FID is a pragma: `#pragma ...` or
/// `_Pragma(...)` first on it.
static bool isPragmaLine(const RuleContext &Ctx, FileID FID, unsigned Line) {
  std::optional<Token> First = firstTokenOfLine(Ctx, FID, Line);
  if (!First)
    return false;
  if (First->is(tok::raw_identifier))
    return First->getRawIdentifier() == "_Pragma";
  if (First->isNot(tok::hash))
    return false;
  Token Next;
  const SourceManager &SM = Ctx.getSourceManager();
  return !Lexer::getRawToken(First->getEndLoc(), Next, SM,
                             Ctx.getASTContext().getLangOpts(),
                             /*IgnoreWhiteSpace=*/true) &&
         Next.is(tok::raw_identifier) && Next.getRawIdentifier() == "pragma" &&
         SM.getSpellingLineNumber(Next.getLocation()) == Line;
}

bool maxcode::followsPragma(const RuleContext &Ctx, const Stmt *S) {
  std::optional<CharSourceRange> R = statementRange(Ctx, S);
  if (!R)
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  unsigned Line = SM.getSpellingLineNumber(R->getBegin());
  return Line > 1 && isPragmaLine(Ctx, SM.getFileID(R->getBegin()), Line - 1);
}

bool maxcode::startsLine(const RuleContext &Ctx, SourceLocation Loc) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (Loc.isInvalid() || !Loc.isFileID())
    return false;
  std::optional<Token> First =
      firstTokenOfLine(Ctx, SM.getFileID(Loc), SM.getSpellingLineNumber(Loc));
  return First && First->getLocation() == Loc;
}

CharSourceRange maxcode::wholeLines(const RuleContext &Ctx, CharSourceRange R) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getASTContext().getLangOpts();
  CharSourceRange C = Lexer::getAsCharRange(R, SM, LO);
  if (C.isInvalid() || !C.getBegin().isFileID() ||
      !startsLine(Ctx, C.getBegin()))
    return C;
  FileID FID = SM.getFileID(C.getBegin());
  unsigned EndLine = SM.getSpellingLineNumber(C.getEnd());
  // Nothing after it on its last line: the next token is on a later line
  // (comments are not tokens here, so a trailing comment goes with it).
  Token Next;
  bool AtEnd = Lexer::getRawToken(C.getEnd(), Next, SM, LO,
                                  /*IgnoreWhiteSpace=*/true);
  if (!AtEnd && Next.isNot(tok::eof) &&
      SM.getSpellingLineNumber(Next.getLocation()) == EndLine)
    return C;
  SourceLocation LineStart =
      SM.translateLineCol(FID, SM.getSpellingLineNumber(C.getBegin()), 1);
  SourceLocation NextLine = SM.translateLineCol(FID, EndLine + 1, 1);
  // translateLineCol clamps past the last line to the end of the file.
  if (NextLine.isInvalid() || SM.getSpellingLineNumber(NextLine) == EndLine)
    NextLine = SM.getLocForEndOfFile(FID);
  return CharSourceRange::getCharRange(LineStart, NextLine);
}

bool maxcode::removeStatement(RuleEdit &E, const RuleContext &Ctx,
                              const Stmt *S) {
  std::optional<CharSourceRange> R = statementRange(Ctx, S);
  return R && addReplacement(E, Ctx, wholeLines(Ctx, *R), "");
}

bool maxcode::insertLineBefore(RuleEdit &E, const RuleContext &Ctx,
                               const Stmt *S, llvm::StringRef Line) {
  std::optional<CharSourceRange> R = statementRange(Ctx, S);
  if (!R || !startsLine(Ctx, R->getBegin()))
    return false;
  // The new line goes in at the start of the statement's line with the
  // statement's indentation, so that the statement's own line is left as
  // the user wrote it (inserted before the statement, the statement would
  // lose its indentation and be reformatted: a respaced line in the diff).
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Begin = R->getBegin();
  // Above the pragmas that apply to the statement (`#pragma omp parallel
  // for`, `#pragma GCC unroll 4`): between them it would take their place.
  unsigned Top = SM.getSpellingLineNumber(Begin);
  while (Top > 1 && isPragmaLine(Ctx, SM.getFileID(Begin), Top - 1))
    --Top;
  if (Top != SM.getSpellingLineNumber(Begin)) {
    SourceLocation Above = SM.translateLineCol(SM.getFileID(Begin), Top, 1);
    std::optional<Token> First =
        firstTokenOfLine(Ctx, SM.getFileID(Begin), Top);
    if (Above.isInvalid() || !First)
      return false;
    llvm::StringRef Indent = Lexer::getSourceText(
        CharSourceRange::getCharRange(Above, First->getLocation()), SM,
        Ctx.getASTContext().getLangOpts());
    return insertText(E, Ctx, Above, (Indent + Line + "\n").str());
  }
  SourceLocation LineStart = SM.translateLineCol(
      SM.getFileID(Begin), SM.getSpellingLineNumber(Begin), 1);
  llvm::StringRef Indent =
      Lexer::getSourceText(CharSourceRange::getCharRange(LineStart, Begin), SM,
                           Ctx.getASTContext().getLangOpts());
  if (LineStart.isInvalid() ||
      !llvm::all_of(Indent, [](char C) { return isHorizontalWhitespace(C); }))
    return insertText(E, Ctx, Begin, (Line + "\n").str());
  return insertText(E, Ctx, LineStart, (Indent + Line + "\n").str());
}

std::vector<const Stmt *> maxcode::loopsIn(const Stmt *S) {
  struct Finder : RecursiveASTVisitor<Finder> {
    std::vector<const Stmt *> Loops;
    bool VisitForStmt(ForStmt *L) { return Loops.push_back(L), true; }
    bool VisitWhileStmt(WhileStmt *L) { return Loops.push_back(L), true; }
    bool VisitDoStmt(DoStmt *L) { return Loops.push_back(L), true; }
    bool VisitCXXForRangeStmt(CXXForRangeStmt *L) {
      return Loops.push_back(L), true;
    }
  } F;
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Loops;
}

const Stmt *maxcode::loopBody(const Stmt *Loop) {
  if (const auto *F = dyn_cast<ForStmt>(Loop))
    return F->getBody();
  if (const auto *W = dyn_cast<WhileStmt>(Loop))
    return W->getBody();
  if (const auto *D = dyn_cast<DoStmt>(Loop))
    return D->getBody();
  if (const auto *R = dyn_cast<CXXForRangeStmt>(Loop))
    return R->getBody();
  return nullptr;
}

const Stmt *maxcode::onlyStatement(const Stmt *S) {
  if (const auto *CS = dyn_cast_or_null<CompoundStmt>(S))
    return CS->size() == 1 ? CS->body_front() : nullptr;
  return S;
}

bool maxcode::hasLoopHint(ASTContext &AST, const Stmt *Loop) {
  const auto *A = dyn_cast_or_null<AttributedStmt>(parentStmt(AST, Loop));
  return A && llvm::any_of(A->getAttrs(), [](const Attr *At) {
           return isa<LoopHintAttr>(At);
         });
}

bool maxcode::hasPragma(const RuleContext &Ctx,
                        llvm::ArrayRef<llvm::StringRef> Words) {
  const SourceManager &SM = Ctx.getSourceManager();
  FileID Main = SM.getMainFileID();
  Lexer Lex(Main, SM.getBufferOrFake(Main), SM,
            Ctx.getASTContext().getLangOpts());
  Token Tok;
  bool AtEnd = false;
  while (!AtEnd) {
    AtEnd = Lex.LexFromRawLexer(Tok);
    if (!Tok.is(tok::hash) || !Tok.isAtStartOfLine())
      continue;
    Token Name;
    AtEnd = Lex.LexFromRawLexer(Name);
    if (!Name.is(tok::raw_identifier) || Name.getRawIdentifier() != "pragma")
      continue;
    bool Match = true;
    for (llvm::StringRef W : Words) {
      Token Next;
      AtEnd = Lex.LexFromRawLexer(Next);
      if (Next.isAtStartOfLine() || !Next.is(tok::raw_identifier) ||
          Next.getRawIdentifier() != W) {
        Match = false;
        break;
      }
    }
    if (Match)
      return true;
  }
  return false;
}

const Stmt *maxcode::parentStmt(ASTContext &AST, const Stmt *S) {
  DynTypedNodeList Parents = AST.getParents(*S);
  if (Parents.size() != 1)
    return nullptr;
  return Parents[0].get<Stmt>();
}

const Stmt *maxcode::enclosingStmt(ASTContext &AST, const Stmt *S) {
  DynTypedNodeList Parents = AST.getParents(*S);
  while (Parents.size() == 1) {
    if (const auto *P = Parents[0].get<Stmt>())
      return P;
    const auto *D = Parents[0].get<Decl>();
    if (!D || isa<FunctionDecl>(D))
      return nullptr;
    Parents = AST.getParents(*D);
  }
  return nullptr;
}

const CompoundStmt *maxcode::compoundParent(ASTContext &AST, const Stmt *S) {
  return dyn_cast_or_null<CompoundStmt>(parentStmt(AST, S));
}

const FunctionDecl *maxcode::enclosingFunction(ASTContext &AST, const Stmt *S) {
  DynTypedNodeList Parents = AST.getParents(*S);
  while (!Parents.empty()) {
    // A lambda's body is reached both from the expression and from its
    // class's call operator: the expression is where it is written.
    DynTypedNode Next = Parents[0];
    for (const DynTypedNode &P : Parents)
      if (P.get<LambdaExpr>())
        Next = P;
    if (const auto *L = Next.get<LambdaExpr>()) {
      if (L->getCallOperator()->isDependentContext())
        return nullptr;
    } else if (const auto *FD = Next.get<FunctionDecl>()) {
      const auto *MD = dyn_cast<CXXMethodDecl>(FD);
      if (!MD || !MD->getParent()->isLambda())
        return FD;
      if (MD->isDependentContext())
        return nullptr;
    } else if (Parents.size() != 1) {
      return nullptr;
    }
    Parents = AST.getParents(Next);
  }
  return nullptr;
}
