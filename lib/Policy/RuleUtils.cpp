//===-- RuleUtils.cpp - What the rule implementations share ---------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/Inclusions/StandardLibrary.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"
#include <set>

using namespace maxcode;
using namespace clang;

bool maxcode::addReplacement(RuleEdit &E, const RuleContext &Ctx,
                             unsigned Offset, unsigned Length,
                             llvm::StringRef Text) {
  tooling::Replacement R(Ctx.getTarget().File, Offset, Length, Text);
  for (const tooling::Replacement &Old : E.Replaces)
    if (Old == R)
      return true;
  if (llvm::Error Err = E.Replaces.add(R)) {
    llvm::consumeError(std::move(Err));
    return false;
  }
  return true;
}

bool maxcode::mergeReplacements(tooling::Replacements &Into,
                                const tooling::Replacements &From) {
  for (const tooling::Replacement &R : From) {
    if (llvm::is_contained(Into, R))
      continue;
    if (llvm::Error Err = Into.add(R)) {
      llvm::consumeError(std::move(Err));
      return false;
    }
  }
  return true;
}

namespace {
/// A preprocessor directive of the main file: its name and line.
struct Directive {
  llvm::StringRef Name; ///< "include", "define", "pragma", ...
  unsigned LineBegin;
  unsigned LineEnd; ///< After the newline (continuations followed).
};

std::vector<Directive> lexDirectives(const RuleContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  FileID Main = SM.getMainFileID();
  llvm::StringRef Code = Ctx.getCode();
  Lexer Lex(Main, SM.getBufferOrFake(Main), SM,
            Ctx.getASTContext().getLangOpts());
  std::vector<Directive> Out;
  unsigned SkipUntil = 0;
  Token Tok;
  while (true) {
    bool AtEnd = Lex.LexFromRawLexer(Tok);
    if (Tok.is(tok::eof))
      break;
    unsigned Off = SM.getFileOffset(Tok.getLocation());
    if (Off >= SkipUntil && Tok.is(tok::hash) && Tok.isAtStartOfLine() &&
        !AtEnd) {
      Token Name;
      AtEnd = Lex.LexFromRawLexer(Name);
      if (Name.is(tok::raw_identifier) && !Name.isAtStartOfLine()) {
        Directive D;
        D.Name = Name.getRawIdentifier();
        size_t NL = Code.rfind('\n', Off);
        D.LineBegin = NL == llvm::StringRef::npos ? 0 : NL + 1;
        size_t End = Off;
        while (true) {
          size_t Next = Code.find('\n', End);
          if (Next == llvm::StringRef::npos) {
            End = Code.size();
            break;
          }
          // A backslash-newline continues the directive.
          bool Continued =
              Code.slice(End, Next).rtrim(" \t\r").ends_with("\\");
          End = Next + 1;
          if (!Continued)
            break;
        }
        D.LineEnd = End;
        SkipUntil = End;
        Out.push_back(D);
      }
    }
    if (AtEnd)
      break;
  }
  return Out;
}
} // namespace

std::vector<IncludeLine> maxcode::findIncludeLines(const RuleContext &Ctx) {
  std::vector<IncludeLine> Out;
  llvm::StringRef Code = Ctx.getCode();
  for (const Directive &D : lexDirectives(Ctx)) {
    if (D.Name != "include")
      continue;
    llvm::StringRef Line = Code.slice(D.LineBegin, D.LineEnd);
    size_t At = Line.find("include") + 7;
    llvm::StringRef Rest = Line.drop_front(At).ltrim(" \t");
    IncludeLine I;
    I.LineBegin = D.LineBegin;
    I.LineEnd = D.LineEnd;
    if (Rest.consume_front("<")) {
      I.Angled = true;
      I.Name = Rest.take_until([](char C) { return C == '>'; }).trim().str();
    } else if (Rest.consume_front("\"")) {
      I.Name = Rest.take_until([](char C) { return C == '"'; }).str();
    } else {
      continue; // A macro names the header: leave it alone.
    }
    Out.push_back(I);
  }
  return Out;
}

std::optional<unsigned>
maxcode::findHelperInsertionPoint(const RuleContext &Ctx) {
  std::optional<unsigned> LastInclude;
  for (const Directive &D : lexDirectives(Ctx)) {
    if (D.Name == "include")
      LastInclude = D.LineEnd;
    else if (D.Name == "define" && LastInclude)
      break;
  }
  if (!LastInclude)
    return std::nullopt;
  return LastInclude;
}

bool maxcode::helperIsMacroSafe(const RuleContext &Ctx,
                                llvm::StringRef HelperText, unsigned Offset) {
  Preprocessor &PP = Ctx.getPreprocessor();
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getASTContext().getLangOpts();
  Lexer Lex(SourceLocation(), LO, HelperText.begin(), HelperText.begin(),
            HelperText.end());
  Token Tok;
  bool More = true;
  llvm::StringSet<> Seen;
  while (More) {
    More = !Lex.LexFromRawLexer(Tok);
    if (!Tok.is(tok::raw_identifier))
      continue;
    llvm::StringRef Name = Tok.getRawIdentifier();
    if (!Seen.insert(Name).second)
      continue;
    IdentifierInfo *II = PP.getIdentifierInfo(Name);
    if (!II || !II->hadMacroDefinition())
      continue;
    for (const MacroDirective *MD = PP.getLocalMacroDirectiveHistory(II); MD;
         MD = MD->getPrevious()) {
      SourceLocation L = MD->getLocation();
      if (L.isValid() && SM.isWrittenInMainFile(L) &&
          SM.getFileOffset(SM.getExpansionLoc(L)) < Offset)
        return false;
    }
  }
  return true;
}

/// libstdc++'s internal headers and the public header that declares what
/// they hold, for declarations the standard library table does not name.
static llvm::StringRef publicHeaderForInternal(llvm::StringRef Base) {
  static const std::pair<const char *, const char *> Table[] = {
      {"basic_string.h", "<string>"},     {"basic_string.tcc", "<string>"},
      {"char_traits.h", "<string>"},      {"stringfwd.h", "<string>"},
      {"stl_algobase.h", "<algorithm>"},  {"stl_algo.h", "<algorithm>"},
      {"stl_heap.h", "<algorithm>"},      {"ranges_algo.h", "<algorithm>"},
      {"stl_pair.h", "<utility>"},        {"move.h", "<utility>"},
      {"stl_vector.h", "<vector>"},       {"stl_bvector.h", "<vector>"},
      {"vector.tcc", "<vector>"},         {"stl_function.h", "<functional>"},
      {"functional_hash.h", "<functional>"},
      {"stl_queue.h", "<queue>"},         {"stl_stack.h", "<stack>"},
      {"stl_deque.h", "<deque>"},         {"stl_list.h", "<list>"},
      {"stl_map.h", "<map>"},             {"stl_multimap.h", "<map>"},
      {"stl_tree.h", "<map>"},            {"stl_set.h", "<set>"},
      {"stl_multiset.h", "<set>"},        {"unordered_map.h", "<unordered_map>"},
      {"unordered_set.h", "<unordered_set>"},
      {"hashtable.h", "<unordered_map>"}, {"stl_numeric.h", "<numeric>"},
      {"stl_iterator.h", "<iterator>"},   {"range_access.h", "<iterator>"},
      {"stl_iterator_base_funcs.h", "<iterator>"},
      {"stl_iterator_base_types.h", "<iterator>"},
      {"unique_ptr.h", "<memory>"},       {"shared_ptr.h", "<memory>"},
      {"shared_ptr_base.h", "<memory>"},  {"stl_tempbuf.h", "<memory>"},
      {"allocator.h", "<memory>"},        {"std_abs.h", "<cmath>"},
      {"specfun.h", "<cmath>"},           {"stl_uninitialized.h", "<memory>"},
      {"random.h", "<random>"},           {"chrono.h", "<chrono>"},
      {"sstream.tcc", "<sstream>"},       {"istream.tcc", "<istream>"},
      {"ostream.tcc", "<ostream>"},       {"string_view.tcc", "<string_view>"},
      {"utility.h", "<utility>"},         {"invoke.h", "<functional>"},
      {"refwrap.h", "<functional>"},      {"std_function.h", "<functional>"},
      {"exception.h", "<exception>"},     {"cpp_type_traits.h", "<type_traits>"},
      {"stl_construct.h", "<memory>"},    {"postypes.h", "<ios>"},
      {"locale_facets.h", "<locale>"},    {"ios_base.h", "<ios>"},
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
      "assert", "ctype",  "errno",  "float",  "inttypes", "limits",
      "locale", "math",   "setjmp", "signal", "stdarg",   "stddef",
      "stdint", "stdio",  "stdlib", "string", "time",     "wchar",
      "wctype", "uchar",  "fenv",   "iso646", "stdbool",  "complex"};
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
    add(TL.getTypedefNameDecl(), TL.getBeginLoc());
    return true;
  }
  bool VisitTagTypeLoc(TagTypeLoc TL) {
    add(TL.getDecl(), TL.getBeginLoc());
    return true;
  }
  bool VisitUsingTypeLoc(UsingTypeLoc TL) {
    add(TL.getFoundDecl(), TL.getBeginLoc());
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

std::vector<std::string> maxcode::findHeadersNeededWithout(
    const RuleContext &Ctx, llvm::ArrayRef<IncludeLine> Includes,
    llvm::ArrayRef<unsigned> Removed,
    llvm::function_ref<bool(const Decl *, SourceLocation)> Ignore) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::set<std::string> Headers;

  // The main-file include a location's file came in through, as an index
  // into Includes.
  auto DirectIncludeOf = [&](SourceLocation Loc) -> std::optional<unsigned> {
    Loc = SM.getExpansionLoc(Loc);
    if (Loc.isInvalid())
      return std::nullopt;
    FileID FID = SM.getFileID(Loc);
    while (FID.isValid() && FID != SM.getMainFileID()) {
      SourceLocation IncLoc = SM.getIncludeLoc(FID);
      if (IncLoc.isInvalid())
        return std::nullopt;
      if (SM.isWrittenInMainFile(IncLoc)) {
        unsigned Off = SM.getFileOffset(IncLoc);
        for (unsigned I = 0; I < Includes.size(); ++I)
          if (Off >= Includes[I].LineBegin && Off < Includes[I].LineEnd)
            return I;
        return std::nullopt;
      }
      FID = SM.getFileID(SM.getExpansionLoc(IncLoc));
    }
    return std::nullopt;
  };
  auto IsRemoved = [&](SourceLocation Loc) {
    std::optional<unsigned> I = DirectIncludeOf(Loc);
    return I && llvm::is_contained(Removed, *I);
  };
  // The first public header on the include chain of a location's file,
  // counting from the declaring file upward.
  auto PublicAncestor = [&](SourceLocation Loc) -> std::string {
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
  };

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
        !IsRemoved(Loc))
      continue;
    std::string Header;
    if (std::optional<tooling::stdlib::Symbol> Sym =
            Recognize(recognizableDecl(D)))
      if (std::optional<tooling::stdlib::Header> H = Sym->header())
        Header = H->name().str();
    if (Header.empty())
      Header = PublicAncestor(Loc);
    if (Header.empty() || Header == "<iostream>" || Header == "<bits/stdc++.h>")
      continue;
    Headers.insert(Header);
  }

  // Macros of the removed headers that the file uses (INT_MAX, EOF, ...).
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
    if (Def.isInvalid() || SM.isWrittenInMainFile(Def) || !IsRemoved(Def))
      continue;
    std::string Header = PublicAncestor(Def);
    if (!Header.empty() && Header != "<iostream>")
      Headers.insert(Header);
  }

  // Headers the file keeps are not added again.
  for (unsigned I = 0; I < Includes.size(); ++I)
    if (!llvm::is_contained(Removed, I) && Includes[I].Angled)
      Headers.erase("<" + Includes[I].Name + ">");
  return std::vector<std::string>(Headers.begin(), Headers.end());
}

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

std::vector<const FunctionDecl *>
maxcode::editableFunctions(const RuleContext &Ctx) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const RuleContext &Ctx;
    std::vector<const FunctionDecl *> Found;
    explicit Finder(const RuleContext &Ctx) : Ctx(Ctx) {}
    bool VisitFunctionDecl(FunctionDecl *FD) {
      if (!FD->doesThisDeclarationHaveABody() || FD->isImplicit() ||
          FD->isTemplateInstantiation() || !FD->getBody())
        return true;
      // `__global__` and other attribute macros start the declaration in a
      // header; its expansion is where the text starts.
      const SourceManager &SM = Ctx.getSourceManager();
      auto R = Ctx.getFileRange(SourceRange(SM.getExpansionLoc(FD->getBeginLoc()),
                                            SM.getExpansionLoc(FD->getEndLoc())));
      if (R && R->first >= Ctx.getEditBegin() && R->second <= Ctx.getEditEnd())
        Found.push_back(FD);
      return true;
    }
  } F(Ctx);
  F.TraverseDecl(Ctx.getASTContext().getTranslationUnitDecl());
  const FunctionDecl *T = Ctx.getTargetDecl();
  std::stable_partition(F.Found.begin(), F.Found.end(),
                        [T](const FunctionDecl *FD) { return FD == T; });
  return F.Found;
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

/// True when \p Body assigns through \p P (`P[i] = `, `*P = `, `P[i] += `).
bool maxcode::writesThrough(const ParmVarDecl *P, const Stmt *Body) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const ParmVarDecl *P;
    bool Found = false;
    explicit Finder(const ParmVarDecl *P) : P(P) {}
    void check(const Expr *LHS) {
      LHS = LHS->IgnoreParenImpCasts();
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
    }
    bool VisitBinaryOperator(BinaryOperator *B) {
      if (B->isAssignmentOp())
        check(B->getLHS());
      return true;
    }
    bool VisitCompoundAssignOperator(CompoundAssignOperator *B) {
      check(B->getLHS());
      return true;
    }
    bool VisitUnaryOperator(UnaryOperator *U) {
      if (U->isIncrementDecrementOp())
        check(U->getSubExpr());
      return true;
    }
  } F(P);
  F.TraverseStmt(const_cast<Stmt *>(Body));
  return F.Found;
}


std::optional<std::pair<unsigned, unsigned>>
maxcode::statementFileRange(const RuleContext &Ctx, const Stmt *First,
                            const Stmt *Last) {
  const SourceManager &SM = Ctx.getSourceManager();
  // A statement written with a macro (`rep(i, n) ...`) starts at the
  // macro's name.
  auto F = Ctx.getFileRange(
      SourceRange(SM.getExpansionRange(First->getBeginLoc()).getBegin(),
                  SM.getExpansionRange(First->getEndLoc()).getEnd()));
  auto L = Ctx.getFileRange(
      SourceRange(SM.getExpansionRange(Last->getBeginLoc()).getBegin(),
                  SM.getExpansionRange(Last->getEndLoc()).getEnd()));
  if (!F || !L)
    return std::nullopt;
  unsigned End = L->second;
  // A statement that does not end in a block ends at its semicolon, which
  // expression ranges leave out (also at the end of an if or a loop).
  llvm::StringRef Before = Ctx.getText(F->first, End).rtrim();
  if (!Before.ends_with(";") && !Before.ends_with("}")) {
    llvm::StringRef Code = Ctx.getCode();
    size_t Semi = End;
    while (Semi < Code.size() && llvm::isSpace(Code[Semi]))
      ++Semi;
    if (Semi >= Code.size() || Code[Semi] != ';')
      return std::nullopt;
    End = Semi + 1;
  }
  return std::make_pair(F->first, End);
}
