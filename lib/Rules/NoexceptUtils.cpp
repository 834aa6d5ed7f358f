//===-- NoexceptUtils.cpp - What the noexcept rules share -----------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The noexcept rules (noexcept-move-constructor, noexcept-swap,
// noexcept-destructor) add `noexcept` only where nothing the function runs
// can throw, so that the specification (which turns an escaping exception
// into std::terminate) changes nothing but the library's choices. Whether a
// call can throw is read from its callee's exception specification as Clang
// resolved it, never guessed from the callee's name. The special-member
// questions several rules share (does a class move better than it copies,
// which destructor may be edited) are answered here too.
//
//===----------------------------------------------------------------------===//

#include "Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Lex/Lexer.h"

using namespace maxcode;
using namespace clang;

bool maxcode::isNothrow(const FunctionDecl *FD, const AssumedSet *Assumed) {
  if (!FD)
    return false;
  if (FD->isTrivial() || FD->hasAttr<NoThrowAttr>() ||
      (Assumed && Assumed->count(FD->getCanonicalDecl())))
    return true;
  // Clang resolves a specification only where it needs it; an unresolved
  // one may still turn out to throw.
  const auto *FPT = FD->getType()->getAs<FunctionProtoType>();
  return FPT && !isUnresolvedExceptionSpec(FPT->getExceptionSpecType()) &&
         FPT->isNothrow();
}

bool maxcode::movesBetterThanCopies(const CXXRecordDecl *RD) {
  if (!RD || !RD->hasDefinition() || !RD->hasNonTrivialMoveConstructor())
    return false;
  bool Declared = false;
  for (const CXXConstructorDecl *C : RD->ctors()) {
    if (!C->isMoveConstructor())
      continue;
    if (C->isDeleted() || C->getAccess() != AS_public ||
        C->getParamDecl(0)->getType()->getPointeeType().isConstQualified())
      return false;
    Declared = true;
  }
  return Declared || (RD->needsImplicitMoveConstructor() &&
                      !RD->defaultedMoveConstructorIsDeleted());
}

const CXXDestructorDecl *maxcode::editableDestructor(const CXXRecordDecl *RD) {
  const CXXDestructorDecl *Dtor = RD->getDestructor();
  if (!Dtor || Dtor->isImplicit() || Dtor->isDeleted() || Dtor->isVirtual())
    return nullptr;
  return Dtor;
}

bool maxcode::destroysWithoutThrowing(QualType T, const ASTContext &AST) {
  const CXXRecordDecl *RD =
      AST.getBaseElementType(T.getNonReferenceType())->getAsCXXRecordDecl();
  return !RD || !RD->hasDefinition() || RD->hasTrivialDestructor() ||
         isNothrow(RD->getDestructor());
}

namespace {

/// Finds what may throw in a statement: a throw, a new, a dynamic_cast to a
/// reference, a typeid of an object, and calls (constructors, destructors of
/// temporaries and locals, deleted objects' destructors included) of
/// functions that are not non-throwing. The assumed set applies to calls
/// and constructions only: the rules prove it for move operations and
/// swaps, never for destructors or inherited constructors.
class ThrowFinder : public RecursiveASTVisitor<ThrowFinder> {
public:
  ThrowFinder(const ASTContext &AST, const AssumedSet *Assumed)
      : AST(AST), Assumed(Assumed) {}
  bool Throws = false;

  bool VisitCXXThrowExpr(CXXThrowExpr *) { return found(); }
  bool VisitCXXNewExpr(CXXNewExpr *) { return found(); }
  bool VisitCXXDynamicCastExpr(CXXDynamicCastExpr *E) {
    return E->getTypeAsWritten()->isReferenceType() ? found() : true;
  }
  bool VisitCXXTypeidExpr(CXXTypeidExpr *E) {
    return E->isTypeOperand() ? true : found();
  }
  bool VisitCallExpr(CallExpr *E) {
    return isNothrow(E->getDirectCallee(), Assumed) ? true : found();
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    return isNothrow(E->getConstructor(), Assumed) ? true : found();
  }
  bool VisitCXXInheritedCtorInitExpr(CXXInheritedCtorInitExpr *E) {
    return isNothrow(E->getConstructor()) ? true : found();
  }
  bool VisitCXXBindTemporaryExpr(CXXBindTemporaryExpr *E) {
    return isNothrow(E->getTemporary()->getDestructor()) ? true : found();
  }
  bool VisitCXXDeleteExpr(CXXDeleteExpr *E) {
    if (!destroysWithoutThrowing(E->getDestroyedType(), AST) ||
        (E->getOperatorDelete() && !isNothrow(E->getOperatorDelete())))
      return found();
    return true;
  }
  bool VisitVarDecl(VarDecl *V) {
    return destroysWithoutThrowing(V->getType(), AST) ? true : found();
  }
  // Default arguments and default member initialisers are evaluated where
  // they are used, but are not children of the use.
  bool VisitCXXDefaultArgExpr(CXXDefaultArgExpr *E) {
    return TraverseStmt(E->getExpr());
  }
  bool VisitCXXDefaultInitExpr(CXXDefaultInitExpr *E) {
    return TraverseStmt(E->getExpr());
  }

private:
  bool found() {
    Throws = true;
    return false;
  }
  const ASTContext &AST;
  const AssumedSet *Assumed;
};

} // namespace

bool maxcode::mayThrow(const FunctionDecl *Def, const ASTContext &AST,
                       const AssumedSet *Assumed) {
  // A defaulted function Clang did not define has nothing to look at.
  if (!Def->getBody())
    return true;
  ThrowFinder F(AST, Assumed);
  // A constructor's initialisers, the implicit ones included, run before
  // its body but are not part of it.
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Def))
    for (const CXXCtorInitializer *I : Ctor->inits())
      if (I->getInit() && !F.TraverseStmt(const_cast<Expr *>(I->getInit())))
        return true;
  F.TraverseStmt(Def->getBody());
  return F.Throws;
}

AssumedSet
maxcode::provenNothrow(llvm::ArrayRef<const FunctionDecl *> Candidates,
                       const ASTContext &AST) {
  // Start from all of them and drop those that may throw until none does:
  // the greatest fixed point, so that candidates calling each other (even
  // recursively) are all kept when nothing else in them throws.
  AssumedSet Assumed;
  for (const FunctionDecl *FD : Candidates)
    Assumed.insert(FD->getCanonicalDecl());
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const FunctionDecl *FD : Candidates)
      if (Assumed.count(FD->getCanonicalDecl()) &&
          mayThrow(FD->getDefinition(), AST, &Assumed)) {
        Assumed.erase(FD->getCanonicalDecl());
        Changed = true;
      }
  }
  return Assumed;
}

WrittenSpec maxcode::writtenSpec(const FunctionDecl *D) {
  const auto *FPT = D->getType()->getAs<FunctionProtoType>();
  if (!FPT)
    return WrittenSpec::Other;
  if (D->getExceptionSpecSourceRange().isInvalid())
    return FPT->getExceptionSpecType() == EST_None ? WrittenSpec::None
                                                   : WrittenSpec::Other;
  if (FPT->getExceptionSpecType() != EST_NoexceptFalse)
    return WrittenSpec::Other;
  // `noexcept(false)` says the user means it.
  const Expr *E = FPT->getNoexceptExpr();
  if (!E || isa<CXXBoolLiteralExpr, IntegerLiteral>(E->IgnoreParenImpCasts()))
    return WrittenSpec::Other;
  return WrittenSpec::FalseExpr;
}

std::optional<SourceLocation> maxcode::noexceptLocation(const RuleContext &Ctx,
                                                        const FunctionDecl *D) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getASTContext().getLangOpts();
  FunctionTypeLoc FTL = D->getFunctionTypeLoc();
  if (!FTL || FTL.getRParenLoc().isInvalid())
    return std::nullopt;
  // The type loc ends at the `)`; the qualifiers after it are only tokens.
  SourceLocation Last = FTL.getRParenLoc();
  for (;;) {
    std::optional<Token> Next = Lexer::findNextToken(Last, SM, LO);
    if (!Next)
      break;
    bool Qualifier = Next->isOneOf(tok::amp, tok::ampamp) ||
                     (Next->is(tok::raw_identifier) &&
                      (Next->getRawIdentifier() == "const" ||
                       Next->getRawIdentifier() == "volatile"));
    if (!Qualifier)
      break;
    Last = Next->getLocation();
  }
  if (!Ctx.getEditRange(SourceRange(FTL.getLParenLoc(), Last)))
    return std::nullopt;
  return Lexer::getLocForEndOfToken(Last, 0, SM, LO);
}

bool maxcode::makeNoexcept(RuleEdit &E, const RuleContext &Ctx,
                           const FunctionDecl *FD,
                           std::vector<unsigned> &Lines) {
  // The declarations must agree; one edit for all of them keeps them so.
  std::optional<WrittenSpec> Kind;
  for (const FunctionDecl *D : FD->redecls()) {
    WrittenSpec K = writtenSpec(D);
    if (K == WrittenSpec::Other || (Kind && *Kind != K))
      return false;
    Kind = K;
  }
  for (const FunctionDecl *D : FD->redecls()) {
    if (*Kind == WrittenSpec::None) {
      std::optional<SourceLocation> Loc = noexceptLocation(Ctx, D);
      if (!Loc || !insertText(E, Ctx, *Loc, " noexcept"))
        return false;
    } else {
      auto R = Ctx.getEditRange(D->getExceptionSpecSourceRange());
      if (!R || !addReplacement(E, Ctx, *R, "noexcept"))
        return false;
    }
    Lines.push_back(Ctx.getUserLine(D->getLocation()));
  }
  return true;
}
