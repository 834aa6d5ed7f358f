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

//===----------------------------------------------------------------------===//
// Includes.
//===----------------------------------------------------------------------===//

std::vector<MainInclude> maxcode::findMainIncludes(const RuleContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<MainInclude> Out;
  for (unsigned I = 0, N = SM.local_sloc_entry_size(); I < N; ++I) {
    const SrcMgr::SLocEntry &Entry = SM.getLocalSLocEntry(I);
    if (!Entry.isFile())
      continue;
    SourceLocation At = Entry.getFile().getIncludeLoc();
    if (At.isInvalid() || !SM.isWrittenInMainFile(At) || !At.isFileID())
      continue;
    FileID FID = SM.getFileID(SourceLocation::getFromRawEncoding(
        static_cast<SourceLocation::UIntTy>(Entry.getOffset())));
    OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID);
    if (!FE)
      continue;
    Out.push_back({FID, FE->getName().str(), At});
  }
  llvm::sort(Out, [&](const MainInclude &A, const MainInclude &B) {
    return SM.isBeforeInTranslationUnit(A.IncludedAt, B.IncludedAt);
  });
  return Out;
}

llvm::StringRef maxcode::streamHeaderSpelling(const MainInclude &I) {
  llvm::StringRef P(I.Path);
  if (llvm::sys::path::filename(P) == "iostream")
    return "<iostream>";
  if (P.ends_with("bits/stdc++.h"))
    return "<bits/stdc++.h>";
  return "";
}

/// libstdc++'s internal headers and the public header that declares what
/// they hold, for declarations the standard library table does not name.
static llvm::StringRef publicHeaderForInternal(llvm::StringRef Base) {
  static const std::pair<const char *, const char *> Table[] = {
      {"basic_string.h", "<string>"},
      {"basic_string.tcc", "<string>"},
      {"char_traits.h", "<string>"},
      {"stringfwd.h", "<string>"},
      {"stl_algobase.h", "<algorithm>"},
      {"stl_algo.h", "<algorithm>"},
      {"stl_heap.h", "<algorithm>"},
      {"ranges_algo.h", "<algorithm>"},
      {"stl_pair.h", "<utility>"},
      {"move.h", "<utility>"},
      {"stl_vector.h", "<vector>"},
      {"stl_bvector.h", "<vector>"},
      {"vector.tcc", "<vector>"},
      {"stl_function.h", "<functional>"},
      {"functional_hash.h", "<functional>"},
      {"stl_queue.h", "<queue>"},
      {"stl_stack.h", "<stack>"},
      {"stl_deque.h", "<deque>"},
      {"stl_list.h", "<list>"},
      {"stl_map.h", "<map>"},
      {"stl_multimap.h", "<map>"},
      {"stl_tree.h", "<map>"},
      {"stl_set.h", "<set>"},
      {"stl_multiset.h", "<set>"},
      {"unordered_map.h", "<unordered_map>"},
      {"unordered_set.h", "<unordered_set>"},
      {"hashtable.h", "<unordered_map>"},
      {"stl_numeric.h", "<numeric>"},
      {"stl_iterator.h", "<iterator>"},
      {"range_access.h", "<iterator>"},
      {"stl_iterator_base_funcs.h", "<iterator>"},
      {"stl_iterator_base_types.h", "<iterator>"},
      {"unique_ptr.h", "<memory>"},
      {"shared_ptr.h", "<memory>"},
      {"shared_ptr_base.h", "<memory>"},
      {"stl_tempbuf.h", "<memory>"},
      {"allocator.h", "<memory>"},
      {"std_abs.h", "<cmath>"},
      {"specfun.h", "<cmath>"},
      {"stl_uninitialized.h", "<memory>"},
      {"random.h", "<random>"},
      {"chrono.h", "<chrono>"},
      {"sstream.tcc", "<sstream>"},
      {"istream.tcc", "<istream>"},
      {"ostream.tcc", "<ostream>"},
      {"string_view.tcc", "<string_view>"},
      {"utility.h", "<utility>"},
      {"invoke.h", "<functional>"},
      {"refwrap.h", "<functional>"},
      {"std_function.h", "<functional>"},
      {"exception.h", "<exception>"},
      {"cpp_type_traits.h", "<type_traits>"},
      {"stl_construct.h", "<memory>"},
      {"postypes.h", "<ios>"},
      {"locale_facets.h", "<locale>"},
      {"ios_base.h", "<ios>"},
  };
  for (const auto &[Internal, Public] : Table)
    if (Base == Internal)
      return Public;
  return "";
}

/// C headers by the C++ name that declares the same things.
static std::string publicNameOf(llvm::StringRef Path) {
  llvm::StringRef Base = llvm::sys::path::filename(Path);
  static const char *const CHeaders[] = {
      "assert", "ctype", "errno",  "float",  "inttypes", "limits",
      "locale", "math",  "setjmp", "signal", "stdarg",   "stddef",
      "stdint", "stdio", "stdlib", "string", "time",     "wchar",
      "wctype", "uchar", "fenv",   "iso646", "stdbool",  "complex"};
  if (Base.consume_back(".h")) {
    for (const char *C : CHeaders)
      if (Base == C)
        return ("<c" + Base + ">").str();
    return "";
  }
  if (Base.contains('.'))
    return "";
  return ("<" + Base + ">").str();
}

namespace {
/// Declarations the main file refers to, with where they are referred to.
class UseCollector : public RecursiveASTVisitor<UseCollector> {
public:
  UseCollector(const SourceManager &SM) : SM(SM) {}

  bool TraverseDecl(Decl *D) {
    if (!D)
      return true;
    if (!isa<TranslationUnitDecl>(D) && !isa<NamespaceDecl>(D) &&
        !isa<LinkageSpecDecl>(D)) {
      SourceLocation L = SM.getExpansionLoc(D->getLocation());
      if (L.isInvalid() || !SM.isWrittenInMainFile(L))
        return true;
    }
    return RecursiveASTVisitor::TraverseDecl(D);
  }

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    add(E->getDecl(), E->getLocation());
    return true;
  }
  bool VisitUnresolvedLookupExpr(UnresolvedLookupExpr *E) {
    // Operators are found by argument-dependent lookup through the types'
    // own headers; a named overload set needs the header of its name, which
    // any one of its declarations gives.
    if (E->getName().isIdentifier() && E->decls_begin() != E->decls_end())
      add(*E->decls_begin(), E->getNameLoc());
    return true;
  }
  bool VisitTypedefTypeLoc(TypedefTypeLoc TL) {
    add(TL.getDecl(), TL.getBeginLoc());
    return true;
  }
  bool VisitTagTypeLoc(TagTypeLoc TL) {
    add(TL.getDecl(), TL.getBeginLoc());
    return true;
  }
  bool VisitUsingTypeLoc(UsingTypeLoc TL) {
    add(TL.getDecl(), TL.getBeginLoc());
    return true;
  }
  bool VisitTemplateSpecializationTypeLoc(TemplateSpecializationTypeLoc TL) {
    if (TemplateDecl *TD =
            TL.getTypePtr()->getTemplateName().getAsTemplateDecl())
      add(TD, TL.getTemplateNameLoc());
    return true;
  }
  bool VisitDeducedTemplateSpecializationTypeLoc(
      DeducedTemplateSpecializationTypeLoc TL) {
    if (TemplateDecl *TD =
            TL.getTypePtr()->getTemplateName().getAsTemplateDecl())
      add(TD, TL.getTemplateNameLoc());
    return true;
  }
  bool VisitUsingDecl(UsingDecl *D) {
    for (const UsingShadowDecl *S : D->shadows())
      add(S->getTargetDecl(), D->getLocation());
    return true;
  }

  /// Each declaration named, and where.
  std::vector<std::pair<const Decl *, SourceLocation>> Uses;

private:
  void add(const Decl *D, SourceLocation Loc) {
    if (D)
      Uses.push_back({D, Loc});
  }
  const SourceManager &SM;
};
} // namespace

/// The declaration the standard library table knows: a class for its
/// members, the primary template for a specialization.
static const Decl *recognizableDecl(const Decl *D) {
  if (const auto *FD = dyn_cast<FunctionDecl>(D))
    if (FunctionTemplateDecl *P = FD->getPrimaryTemplate())
      return P->getTemplatedDecl();
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(D))
    return Spec->getSpecializedTemplate()->getTemplatedDecl();
  if (const auto *TD = dyn_cast<TemplateDecl>(D))
    if (TD->getTemplatedDecl())
      return TD->getTemplatedDecl();
  if (isa<CXXMethodDecl>(D) || isa<FieldDecl>(D) || isa<EnumConstantDecl>(D))
    if (const auto *Parent = dyn_cast<Decl>(D->getDeclContext()))
      return recognizableDecl(Parent);
  return D;
}

namespace {
/// The include chains that bring declarations and macros into the main
/// file, and which of its includes are to be removed.
class IncludeChains {
public:
  IncludeChains(const SourceManager &SM, llvm::ArrayRef<FileID> Removed)
      : SM(SM), Removed(Removed) {}

  /// The file the main file included that brought a location in.
  FileID directIncludeOf(SourceLocation Loc) const {
    Loc = SM.getExpansionLoc(Loc);
    if (Loc.isInvalid())
      return FileID();
    FileID FID = SM.getFileID(Loc);
    while (FID.isValid() && FID != SM.getMainFileID()) {
      SourceLocation IncLoc = SM.getIncludeLoc(FID);
      if (IncLoc.isInvalid())
        return FileID();
      if (SM.isWrittenInMainFile(IncLoc))
        return FID;
      FID = SM.getFileID(SM.getExpansionLoc(IncLoc));
    }
    return FileID();
  }

  /// True when a location came in through a removed include.
  bool isRemoved(SourceLocation Loc) const {
    FileID F = directIncludeOf(Loc);
    return F.isValid() && llvm::is_contained(Removed, F);
  }

  /// The first public header on the include chain of a location's file,
  /// counting from the declaring file upward.
  std::string publicAncestor(SourceLocation Loc) const {
    FileID FID = SM.getFileID(SM.getExpansionLoc(Loc));
    while (FID.isValid() && FID != SM.getMainFileID()) {
      OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID);
      if (!FE)
        return "";
      llvm::StringRef Path = FE->getName();
      llvm::StringRef Base = llvm::sys::path::filename(Path);
      bool Internal = Path.contains("/bits/") || Path.contains("/ext/") ||
                      Path.contains("/debug/");
      if (Internal) {
        llvm::StringRef Known = publicHeaderForInternal(Base);
        if (!Known.empty())
          return Known.str();
      } else if (Base != "stdc++.h") {
        std::string Name = publicNameOf(Path);
        if (!Name.empty())
          return Name;
      }
      SourceLocation IncLoc = SM.getIncludeLoc(FID);
      if (IncLoc.isInvalid() || SM.isWrittenInMainFile(IncLoc))
        return "";
      FID = SM.getFileID(SM.getExpansionLoc(IncLoc));
    }
    return "";
  }

private:
  const SourceManager &SM;
  llvm::ArrayRef<FileID> Removed;
};
} // namespace

/// Adds to \p Headers the headers of the declarations the main file uses
/// that came in through a removed include, but those \p Ignore names.
static void
addHeadersOfDecls(const RuleContext &Ctx, const IncludeChains &Chains,
                  llvm::function_ref<bool(const Decl *, SourceLocation)> Ignore,
                  std::set<std::string> &Headers) {
  const SourceManager &SM = Ctx.getSourceManager();
  tooling::stdlib::Recognizer Recognize;
  UseCollector Uses(SM);
  Uses.TraverseDecl(Ctx.getASTContext().getTranslationUnitDecl());
  llvm::DenseSet<const Decl *> Done;
  for (const auto &[D, UseLoc] : Uses.Uses) {
    if (Done.contains(D) || D->isImplicit() || Ignore(D, UseLoc))
      continue;
    Done.insert(D);
    if (isa<NamespaceDecl>(D))
      continue;
    SourceLocation Loc = D->getLocation();
    if (Loc.isInvalid() || SM.isWrittenInMainFile(SM.getExpansionLoc(Loc)) ||
        !Chains.isRemoved(Loc))
      continue;
    std::string Header;
    if (std::optional<tooling::stdlib::Symbol> Sym =
            Recognize(recognizableDecl(D)))
      if (std::optional<tooling::stdlib::Header> H = Sym->header())
        Header = H->name().str();
    if (Header.empty())
      Header = Chains.publicAncestor(Loc);
    if (Header.empty() || Header == "<iostream>" || Header == "<bits/stdc++.h>")
      continue;
    Headers.insert(Header);
  }
}

/// Adds to \p Headers the headers of the macros the file uses (INT_MAX,
/// EOF, ...) that came in through a removed include.
static void addHeadersOfMacros(const RuleContext &Ctx,
                               const IncludeChains &Chains,
                               std::set<std::string> &Headers) {
  const SourceManager &SM = Ctx.getSourceManager();
  Preprocessor &PP = Ctx.getPreprocessor();
  llvm::StringRef Code = Ctx.getCode();
  const LangOptions &LO = Ctx.getASTContext().getLangOpts();
  Lexer Lex(SourceLocation(), LO, Code.begin(), Code.begin(), Code.end());
  Token Tok;
  bool More = true;
  llvm::StringSet<> SeenMacros;
  while (More) {
    More = !Lex.LexFromRawLexer(Tok);
    if (!Tok.is(tok::raw_identifier))
      continue;
    llvm::StringRef Name = Tok.getRawIdentifier();
    if (!SeenMacros.insert(Name).second)
      continue;
    IdentifierInfo *II = PP.getIdentifierInfo(Name);
    if (!II || !II->hadMacroDefinition())
      continue;
    const MacroInfo *MI = PP.getMacroInfo(II);
    if (!MI)
      continue;
    SourceLocation Def = MI->getDefinitionLoc();
    if (Def.isInvalid() || SM.isWrittenInMainFile(Def) ||
        !Chains.isRemoved(Def))
      continue;
    std::string Header = Chains.publicAncestor(Def);
    if (!Header.empty() && Header != "<iostream>")
      Headers.insert(Header);
  }
}

std::vector<std::string> maxcode::findHeadersNeededWithout(
    const RuleContext &Ctx, llvm::ArrayRef<FileID> Removed,
    llvm::function_ref<bool(const Decl *, SourceLocation)> Ignore) {
  IncludeChains Chains(Ctx.getSourceManager(), Removed);
  std::set<std::string> Headers;
  addHeadersOfDecls(Ctx, Chains, Ignore, Headers);
  // Macros of the removed headers that the file uses (INT_MAX, EOF, ...).
  addHeadersOfMacros(Ctx, Chains, Headers);

  // Headers the file keeps are not added again.
  for (const MainInclude &I : findMainIncludes(Ctx))
    if (!llvm::is_contained(Removed, I.File)) {
      std::string Name = publicNameOf(I.Path);
      if (!Name.empty())
        Headers.erase(Name);
    }
  return std::vector<std::string>(Headers.begin(), Headers.end());
}

//===----------------------------------------------------------------------===//
// Analyses.
//===----------------------------------------------------------------------===//

bool maxcode::isMutatedIn(const VarDecl *Var, const Stmt *Scope,
                          ASTContext &AST) {
  if (!Var || !Scope)
    return true;
  ExprMutationAnalyzer Analyzer(*Scope, AST);
  return Analyzer.isMutated(Var);
}

bool maxcode::isSimpleSideEffectFree(const Expr *E, ASTContext &AST) {
  if (!E || E->HasSideEffects(AST, /*IncludePossibleEffects=*/true))
    return false;
  E = E->IgnoreParenImpCasts();
  if (isa<IntegerLiteral>(E) || isa<FloatingLiteral>(E) ||
      isa<CharacterLiteral>(E) || isa<CXXBoolLiteralExpr>(E))
    return true;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (isa<EnumConstantDecl>(DRE->getDecl()))
      return true;
    const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
    return VD && !VD->getType().isVolatileQualified();
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E))
    return (UO->getOpcode() == UO_Minus || UO->getOpcode() == UO_Plus ||
            UO->getOpcode() == UO_Not || UO->getOpcode() == UO_LNot) &&
           isSimpleSideEffectFree(UO->getSubExpr(), AST);
  if (const auto *BO = dyn_cast<BinaryOperator>(E))
    return !BO->isAssignmentOp() && !BO->isCommaOp() &&
           isSimpleSideEffectFree(BO->getLHS(), AST) &&
           isSimpleSideEffectFree(BO->getRHS(), AST);
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return !ME->isArrow() && isa<FieldDecl>(ME->getMemberDecl()) &&
           isSimpleSideEffectFree(ME->getBase(), AST);
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
    return isSimpleSideEffectFree(AS->getBase(), AST) &&
           isSimpleSideEffectFree(AS->getIdx(), AST);
  return false;
}

/// Member functions of standard containers and strings that read and change
/// nothing (their non-const overloads too: `v[i]` on a non-const vector).
static bool isReadOnlyStdMember(const CXXMethodDecl *MD) {
  if (!MD || (!MD->getIdentifier() && !MD->isOverloadedOperator()))
    return false;
  if (!isInStd(MD->getParent()))
    return false;
  if (MD->isOverloadedOperator())
    return MD->getOverloadedOperator() == OO_Subscript;
  return llvm::is_contained({"size", "length", "empty", "at", "front", "back",
                             "first", "second", "data", "c_str", "count",
                             "real", "imag"},
                            MD->getName());
}

bool maxcode::isRepeatable(const Expr *E, ASTContext &AST) {
  if (!E)
    return false;
  E = E->IgnoreParenImpCasts();
  if (isSimpleSideEffectFree(E, AST))
    return true;
  if (isa<IntegerLiteral>(E) || isa<FloatingLiteral>(E) ||
      isa<CharacterLiteral>(E) || isa<CXXBoolLiteralExpr>(E))
    return true;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
    return isa<EnumConstantDecl>(DRE->getDecl()) ||
           (VD && !VD->getType().isVolatileQualified());
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E))
    return (UO->getOpcode() == UO_Minus || UO->getOpcode() == UO_Plus ||
            UO->getOpcode() == UO_Not || UO->getOpcode() == UO_LNot ||
            UO->getOpcode() == UO_Deref) &&
           isRepeatable(UO->getSubExpr(), AST);
  if (const auto *BO = dyn_cast<BinaryOperator>(E))
    return !BO->isAssignmentOp() && !BO->isCommaOp() &&
           isRepeatable(BO->getLHS(), AST) && isRepeatable(BO->getRHS(), AST);
  if (const auto *CO = dyn_cast<ConditionalOperator>(E))
    return isRepeatable(CO->getCond(), AST) &&
           isRepeatable(CO->getTrueExpr(), AST) &&
           isRepeatable(CO->getFalseExpr(), AST);
  if (const auto *C = dyn_cast<ExplicitCastExpr>(E))
    return !C->getType()->isRecordType() && isRepeatable(C->getSubExpr(), AST);
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return isa<FieldDecl>(ME->getMemberDecl()) &&
           isRepeatable(ME->getBase(), AST);
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
    return isRepeatable(AS->getBase(), AST) && isRepeatable(AS->getIdx(), AST);
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee());
    if (!isReadOnlyStdMember(MD))
      return false;
    return llvm::all_of(Op->arguments(),
                        [&](const Expr *A) { return isRepeatable(A, AST); });
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    if (!isReadOnlyStdMember(MC->getMethodDecl()))
      return false;
    return isRepeatable(MC->getImplicitObjectArgument(), AST) &&
           llvm::all_of(MC->arguments(),
                        [&](const Expr *A) { return isRepeatable(A, AST); });
  }
  if (const auto *C = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = C->getDirectCallee();
    // Functions declared pure or const, Clang's const builtins and the
    // standard math functions (which only set errno).
    bool Pure =
        FD &&
        (FD->hasAttr<PureAttr>() || FD->hasAttr<ConstAttr>() ||
         (FD->getBuiltinID() && AST.BuiltinInfo.isConst(FD->getBuiltinID())));
    if (FD && FD->getIdentifier() && isInStd(FD))
      Pure |= llvm::is_contained({"abs", "min", "max", "sqrt", "fabs"},
                                 FD->getName());
    return Pure && llvm::all_of(C->arguments(), [&](const Expr *A) {
             return isRepeatable(A, AST);
           });
  }
  return false;
}

llvm::SmallPtrSet<const VarDecl *, 8> maxcode::referencedVars(const Stmt *S) {
  struct Finder : RecursiveASTVisitor<Finder> {
    llvm::SmallPtrSet<const VarDecl *, 8> Vars;
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      if (const auto *VD = dyn_cast<VarDecl>(E->getDecl()))
        Vars.insert(VD);
      return true;
    }
  } F;
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Vars;
}

/// The variable an argument expression designates the storage of: `a`,
/// `&a[0]`, `a + 1`, `v.data()`.
const VarDecl *maxcode::storageVariable(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    if (U->getOpcode() == UO_AddrOf)
      E = U->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *A = dyn_cast<ArraySubscriptExpr>(E))
    E = A->getBase()->IgnoreParenImpCasts();
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    if (B->isAdditiveOp())
      E = (B->getLHS()->getType()->isPointerType() ? B->getLHS() : B->getRHS())
              ->IgnoreParenImpCasts();
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E))
    if (MC->getMethodDecl() && MC->getMethodDecl()->getIdentifier() &&
        MC->getMethodDecl()->getName() == "data")
      E = MC->getImplicitObjectArgument()->IgnoreParenImpCasts();
  const auto *DRE = dyn_cast<DeclRefExpr>(E);
  if (!DRE)
    return nullptr;
  const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
  // A pointer variable may point anywhere; only arrays and containers are
  // known to be distinct objects.
  if (!V || V->getType()->isPointerType() || V->getType()->isReferenceType())
    return nullptr;
  return V;
}

void maxcode::forEachStore(const Stmt *S,
                           llvm::function_ref<void(const Expr *)> OnStore) {
  struct Finder : RecursiveASTVisitor<Finder> {
    llvm::function_ref<void(const Expr *)> OnStore;
    // Compound assignments are BinaryOperators too, and visited as such.
    bool VisitBinaryOperator(BinaryOperator *B) {
      if (B->isAssignmentOp())
        OnStore(B->getLHS()->IgnoreParenImpCasts());
      return true;
    }
    bool VisitUnaryOperator(UnaryOperator *U) {
      if (U->isIncrementDecrementOp())
        OnStore(U->getSubExpr()->IgnoreParenImpCasts());
      return true;
    }
  } F;
  F.OnStore = OnStore;
  F.TraverseStmt(const_cast<Stmt *>(S));
}

bool maxcode::writesThrough(const ParmVarDecl *P, const Stmt *Body) {
  bool Found = false;
  forEachStore(Body, [&](const Expr *LHS) {
    const Expr *Base = nullptr;
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(LHS))
      Base = A->getBase();
    else if (const auto *U = dyn_cast<UnaryOperator>(LHS);
             U && U->getOpcode() == UO_Deref)
      Base = U->getSubExpr();
    if (!Base)
      return;
    if (const auto *D = dyn_cast<DeclRefExpr>(Base->IgnoreParenImpCasts()))
      Found |= D->getDecl() == P;
  });
  return Found;
}

bool maxcode::isInStd(const Decl *D) {
  const DeclContext *DC = D->getDeclContext();
  while (DC && !DC->isStdNamespace()) {
    if (DC->isTranslationUnit())
      return false;
    DC = DC->getParent();
  }
  return DC != nullptr;
}

bool maxcode::paramTakesNonConstLvalue(const FunctionDecl *F, unsigned Index) {
  const ParmVarDecl *P = nullptr;
  for (unsigned I = 0, N = F->getNumParams(); I < N && !P; ++I)
    if (I == Index || F->getParamDecl(I)->isParameterPack())
      P = F->getParamDecl(I);
  if (!P)
    return false;
  QualType T = P->getType();
  if (const auto *Pack = T->getAs<PackExpansionType>())
    T = Pack->getPattern();
  return T->isReferenceType() && !T->getPointeeType().isConstQualified() &&
         (T->isLValueReferenceType() || T->getPointeeType()->isDependentType());
}

std::vector<const CXXRecordDecl *>
maxcode::mainFileClasses(const RuleContext &Ctx) {
  using namespace ast_matchers;
  std::vector<const CXXRecordDecl *> Out;
  if (!Ctx.isCPlusPlus())
    return Out;
  for (const BoundNodes &N :
       match(cxxRecordDecl(isExpansionInMainFile(), isDefinition(),
                           unless(isImplicit()))
                 .bind("record"),
             Ctx.getASTContext())) {
    const auto *RD = N.getNodeAs<CXXRecordDecl>("record");
    if (!RD->isLambda() && !RD->isDependentContext() &&
        !isa<ClassTemplateSpecializationDecl>(RD) && !isInStd(RD))
      Out.push_back(RD);
  }
  return Out;
}

bool maxcode::isExpensiveToCopy(QualType T, const ASTContext &AST) {
  T = T.getCanonicalType();
  if (T->isReferenceType() || T->isDependentType() || T->isIncompleteType())
    return false;
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition())
    return false;
  if (!RD->hasTrivialCopyConstructor() || !RD->hasTrivialDestructor())
    return true;
  return AST.getTypeSize(T) > 2 * AST.getTypeSize(AST.VoidPtrTy);
}

bool maxcode::makeConstReference(RuleEdit &E, const RuleContext &Ctx,
                                 const VarDecl *V) {
  if (!V->getTypeSourceInfo())
    return false;
  const LangOptions &LO = Ctx.getASTContext().getLangOpts();
  TypeLoc TL = V->getTypeSourceInfo()->getTypeLoc();
  auto TypeR = Ctx.getEditRange(TL.getSourceRange());
  // The name must follow the type directly (not `int a, b` or `T (x)`).
  std::optional<Token> Next =
      Lexer::findNextToken(TL.getEndLoc(), Ctx.getSourceManager(), LO);
  if (!TypeR || !Next || Next->getLocation() != V->getLocation())
    return false;
  RuleEdit Trial = E;
  if ((!V->getType().isConstQualified() &&
       !insertText(Trial, Ctx, TypeR->getBegin(), "const ")) ||
      !insertText(Trial, Ctx, V->getLocation(), "&"))
    return false;
  E = std::move(Trial);
  return true;
}

bool maxcode::isStdString(QualType T) {
  T = T.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T->getAsCXXRecordDecl());
  if (!Spec || !Spec->getIdentifier() || Spec->getName() != "basic_string" ||
      !isInStd(Spec) || Spec->getTemplateArgs().size() < 1)
    return false;
  const TemplateArgument &Arg = Spec->getTemplateArgs()[0];
  return Arg.getKind() == TemplateArgument::Type &&
         (Arg.getAsType()->isSpecificBuiltinType(BuiltinType::Char_S) ||
          Arg.getAsType()->isSpecificBuiltinType(BuiltinType::Char_U));
}

std::vector<const FunctionDecl *>
maxcode::instantiationsOf(const FunctionDecl *FD) {
  std::vector<const FunctionDecl *> Out;
  if (const FunctionTemplateDecl *TD = FD->getDescribedFunctionTemplate()) {
    for (const FunctionDecl *S : TD->specializations())
      if (S->getBody())
        Out.push_back(S);
    return Out;
  }
  // A member of a class template: the instantiated classes hold the
  // instantiated members.
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  const ClassTemplateDecl *CTD =
      MD ? MD->getParent()->getDescribedClassTemplate() : nullptr;
  if (!CTD)
    return Out;
  for (const ClassTemplateSpecializationDecl *CS : CTD->specializations())
    for (const Decl *D : CS->decls())
      if (const auto *M = dyn_cast<FunctionDecl>(D))
        if (M->getTemplateInstantiationPattern() == FD && M->getBody())
          Out.push_back(M);
  return Out;
}

std::string maxcode::describeFunction(const FunctionDecl *FD) {
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD);
      MD && MD->getParent()->isLambda()) {
    const auto *Outer = dyn_cast_or_null<FunctionDecl>(
        MD->getParent()->getParentFunctionOrMethod());
    return Outer ? "a lambda in " + describeFunction(Outer) : "a lambda";
  }
  return FD->getQualifiedNameAsString();
}

std::string maxcode::describeLines(std::vector<unsigned> Lines) {
  llvm::sort(Lines);
  Lines.erase(std::unique(Lines.begin(), Lines.end()), Lines.end());
  if (Lines.empty())
    return "";
  if (Lines.size() == 1)
    return "line " + std::to_string(Lines.front());
  std::string Out = "lines ";
  for (size_t I = 0; I < Lines.size(); ++I) {
    if (I)
      Out += I + 1 == Lines.size() ? " and " : ", ";
    Out += std::to_string(Lines[I]);
  }
  return Out;
}
