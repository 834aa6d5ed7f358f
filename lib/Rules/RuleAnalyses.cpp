//===-- RuleAnalyses.cpp - What rules decide with -------------------------===//
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
#include "llvm/ADT/FoldingSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"
#include <set>

using namespace maxcode;
using namespace clang;

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

bool maxcode::hasAliases(const VarDecl *V, const Stmt *Scope) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *V;
    bool Found = false;
    explicit Finder(const VarDecl *V) : V(V) {}
    bool VisitLambdaExpr(LambdaExpr *L) {
      for (const LambdaCapture &C : L->captures())
        if (C.capturesVariable() && C.getCapturedVar() == V &&
            C.getCaptureKind() == LCK_ByRef)
          Found = true;
      // The captures list what a lambda captures implicitly too; only a
      // generic or dependent one may capture more when instantiated.
      if (L->getCaptureDefault() == LCD_ByRef &&
          (L->isGenericLambda() || L->getLambdaClass()->isDependentContext()))
        Found = true;
      return true;
    }
    bool VisitVarDecl(VarDecl *D) {
      QualType T = D->getType();
      if (!T->isReferenceType() && !T->isPointerType())
        return true;
      if (T->isReferenceType() && T.getNonReferenceType().isConstQualified())
        return true;
      if (const Expr *Init = D->getInit())
        Found |= referencedVars(Init).count(V) != 0;
      return true;
    }
    bool VisitUnaryOperator(UnaryOperator *U) {
      if (U->getOpcode() == UO_AddrOf)
        if (const auto *D =
                dyn_cast<DeclRefExpr>(U->getSubExpr()->IgnoreParenImpCasts()))
          Found |= D->getDecl() == V;
      return true;
    }
  } F(V);
  F.TraverseStmt(const_cast<Stmt *>(Scope));
  return F.Found;
}

bool maxcode::sameExpr(const Expr *A, const Expr *B, const ASTContext &AST) {
  llvm::FoldingSetNodeID IA, IB;
  A->IgnoreParenImpCasts()->Profile(IA, AST, /*Canonical=*/true);
  B->IgnoreParenImpCasts()->Profile(IB, AST, /*Canonical=*/true);
  return IA == IB;
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

unsigned maxcode::countReferences(const VarDecl *V, const Stmt *S) {
  struct Counter : RecursiveASTVisitor<Counter> {
    const VarDecl *V;
    unsigned N = 0;
    explicit Counter(const VarDecl *V) : V(V) {}
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      N += E->getDecl() == V;
      return true;
    }
  } C(V);
  C.TraverseStmt(const_cast<Stmt *>(S));
  return C.N;
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

bool maxcode::callWritesNothing(const CallExpr *C, ASTContext &AST) {
  const FunctionDecl *FD = C->getDirectCallee();
  if (!FD || FD->isNoReturn())
    return false;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    return isReadOnlyStdMember(MD);
  if (FD->hasAttr<PureAttr>() || FD->hasAttr<ConstAttr>())
    return true;
  // The C and C++ math functions (builtins, or declared in a system header)
  // take and return numbers: they can write nothing but errno.
  bool Library = FD->getBuiltinID() ||
                 AST.getSourceManager().isInSystemHeader(FD->getLocation());
  return Library && FD->getReturnType()->isArithmeticType() &&
         llvm::all_of(FD->parameters(), [](const ParmVarDecl *P) {
           return P->getType()->isArithmeticType();
         });
}

namespace {
/// The walk behind isPureFunction: \p Visiting holds the functions on the
/// call path (recursion is not followed, and counts as impure).
bool isPureBody(const FunctionDecl *FD, ASTContext &AST,
                llvm::SmallPtrSetImpl<const FunctionDecl *> &Visiting,
                const ParmVarDecl *Fills = nullptr) {
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def || !Def->getBody() || Visiting.size() > 4 ||
      !Visiting.insert(Def).second)
    return false;
  // The definition's own parameter: a declaration's are other objects.
  if (Fills) {
    unsigned Index = Fills->getFunctionScopeIndex();
    if (Index >= Def->getNumParams() ||
        !Def->getParamDecl(Index)->getType()->isPointerType())
      return false;
    Fills = Def->getParamDecl(Index);
  }
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Def); MD && MD->isVirtual())
    return false;
  bool IsConstructor = isa<CXXConstructorDecl>(Def);
  struct Finder : RecursiveASTVisitor<Finder> {
    const FunctionDecl *Def;
    ASTContext &AST;
    llvm::SmallPtrSetImpl<const FunctionDecl *> &Visiting;
    bool IsConstructor;
    const ParmVarDecl *Fills;
    /// The names of Fills that are an element's base.
    llvm::SmallPtrSet<const Expr *, 8> ElementBases;
    bool Pure = true;
    Finder(const FunctionDecl *Def, ASTContext &AST,
           llvm::SmallPtrSetImpl<const FunctionDecl *> &Visiting, bool IsCtor,
           const ParmVarDecl *Fills)
        : Def(Def), AST(AST), Visiting(Visiting), IsConstructor(IsCtor),
          Fills(Fills) {}
    /// \p Base names Fills: its element is the filled array's.
    bool isFilled(const Expr *Base) {
      const auto *D = dyn_cast<DeclRefExpr>(Base->IgnoreParenImpCasts());
      return Fills && D && D->getDecl() == Fills;
    }
    /// A store's target: a local of the function (a by-value parameter
    /// included), or a field of the object a constructor builds.
    bool isOwnStorage(const Expr *E) {
      for (;;) {
        E = E->IgnoreParenImpCasts();
        if (const auto *ME = dyn_cast<MemberExpr>(E)) {
          if (isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()))
            return IsConstructor;
          if (ME->isArrow())
            return false;
          E = ME->getBase();
        } else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
          if (isFilled(AS->getBase()))
            return true;
          if (!AS->getBase()->IgnoreParenImpCasts()->getType()->isArrayType())
            return false;
          E = AS->getBase();
        } else if (const auto *U = dyn_cast<UnaryOperator>(E);
                   U && U->getOpcode() == UO_Deref) {
          return isFilled(U->getSubExpr());
        } else if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
          const auto *V = dyn_cast<VarDecl>(D->getDecl());
          return V && V->getDeclContext() == Def && !V->isStaticLocal() &&
                 !V->getType()->isReferenceType();
        } else {
          return false;
        }
      }
    }
    bool VisitStmt(Stmt *S) {
      if (const auto *AS = dyn_cast<ArraySubscriptExpr>(S);
          AS && isFilled(AS->getBase()))
        ElementBases.insert(AS->getBase()->IgnoreParenImpCasts());
      if (const auto *U = dyn_cast<UnaryOperator>(S);
          U && U->getOpcode() == UO_Deref && isFilled(U->getSubExpr()))
        ElementBases.insert(U->getSubExpr()->IgnoreParenImpCasts());
      // Named otherwise (copied, moved, handed to a call), the array could
      // be written where this walk does not look.
      if (const auto *D = dyn_cast<DeclRefExpr>(S);
          D && Fills && D->getDecl() == Fills && !ElementBases.contains(D))
        Pure = false;
      if (isa<CXXThrowExpr>(S) || isa<CXXNewExpr>(S) || isa<CXXDeleteExpr>(S) ||
          isa<AsmStmt>(S) || isa<LambdaExpr>(S) || isa<CoreturnStmt>(S) ||
          isa<GotoStmt>(S))
        Pure = false;
      // An integer division may trap where the original never divided
      // (a hoisted call runs even when the loop does not).
      if (const auto *B = dyn_cast<BinaryOperator>(S);
          B &&
          (B->getOpcode() == BO_Div || B->getOpcode() == BO_Rem ||
           B->getOpcode() == BO_DivAssign || B->getOpcode() == BO_RemAssign) &&
          B->getType()->isIntegerType() &&
          !B->getRHS()->isIntegerConstantExpr(AST))
        Pure = false;
      if (const auto *B = dyn_cast<BinaryOperator>(S);
          B && B->isAssignmentOp() && !isOwnStorage(B->getLHS()))
        Pure = false;
      if (const auto *U = dyn_cast<UnaryOperator>(S);
          U && U->isIncrementDecrementOp() && !isOwnStorage(U->getSubExpr()))
        Pure = false;
      if (const auto *C = dyn_cast<CallExpr>(S))
        Pure &= callWritesNothing(C, AST) ||
                (C->getDirectCallee() &&
                 isPureBody(C->getDirectCallee(), AST, Visiting));
      if (const auto *C = dyn_cast<CXXConstructExpr>(S))
        Pure &= C->getConstructor()->isTrivial() ||
                isPureBody(C->getConstructor(), AST, Visiting);
      if (const auto *D = dyn_cast<DeclRefExpr>(S))
        if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
          Pure &= !V->getType().isVolatileQualified() &&
                  (!V->hasGlobalStorage() || V->getType().isConstQualified());
      return Pure;
    }
    bool VisitVarDecl(VarDecl *V) {
      Pure &= !V->isStaticLocal();
      if (const auto *RD = V->getType()->getAsCXXRecordDecl())
        Pure &=
            !RD->hasDefinition() || RD->hasTrivialDestructor() || isInStd(RD);
      return Pure;
    }
  } F(Def, AST, Visiting, IsConstructor, Fills);
  F.TraverseStmt(Def->getBody());
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Def))
    for (const CXXCtorInitializer *I : Ctor->inits())
      if (F.Pure && I->getInit())
        F.TraverseStmt(I->getInit());
  Visiting.erase(Def);
  return F.Pure;
}
} // namespace

bool maxcode::isPureFunction(const FunctionDecl *FD, ASTContext &AST,
                             const ParmVarDecl *Fills) {
  llvm::SmallPtrSet<const FunctionDecl *, 8> Visiting;
  return FD && isPureBody(FD, AST, Visiting, Fills);
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

const ClassTemplateSpecializationDecl *
maxcode::stdSpecialization(QualType T, llvm::StringRef Name) {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T.getCanonicalType()->getAsCXXRecordDecl());
  if (!Spec || !Spec->getIdentifier() ||
      (!Name.empty() && Spec->getName() != Name) || !isInStd(Spec))
    return nullptr;
  return Spec;
}

bool maxcode::isStdTemplateOf(const TemplateArgument &T, llvm::StringRef Name,
                              QualType Arg) {
  const ClassTemplateSpecializationDecl *Spec =
      T.getKind() == TemplateArgument::Type
          ? stdSpecialization(T.getAsType(), Name)
          : nullptr;
  if (!Spec)
    return false;
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  return Args.size() == 1 && Args[0].getKind() == TemplateArgument::Type &&
         Args[0].getAsType().getCanonicalType() == Arg.getCanonicalType();
}

bool maxcode::integerConvertsExactly(QualType From, QualType To,
                                     const ASTContext &AST) {
  From = From.getCanonicalType().getUnqualifiedType();
  To = To.getCanonicalType().getUnqualifiedType();
  if (!From->isIntegerType() || !To->isIntegerType() ||
      From->isEnumeralType() || To->isEnumeralType())
    return false;
  unsigned FW = AST.getIntWidth(From), TW = AST.getIntWidth(To);
  bool FS = From->isSignedIntegerType(), TS = To->isSignedIntegerType();
  return (FS == TS && FW <= TW) || (!FS && TS && FW < TW);
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

bool FunctionEdit::tryChange(SourceLocation At,
                             llvm::function_ref<bool(RuleEdit &)> Change) {
  RuleEdit Trial = E;
  if (!Change(Trial))
    return false;
  E = std::move(Trial);
  Lines.push_back(Ctx.getUserLine(At));
  return true;
}

bool FunctionEdit::replace(SourceLocation At,
                           std::optional<CharSourceRange> FileRange,
                           llvm::StringRef Text) {
  return FileRange && tryChange(At, [&](RuleEdit &T) {
           return addReplacement(T, Ctx, *FileRange, Text);
         });
}

void FunctionEdit::addTo(std::vector<RuleEdit> &Out, const llvm::Twine &What) {
  if (Lines.empty())
    return;
  E.Description =
      (What + " in " + describeFunction(FD) + " (" + describeLines(Lines) + ")")
          .str();
  Out.push_back(std::move(E));
}
