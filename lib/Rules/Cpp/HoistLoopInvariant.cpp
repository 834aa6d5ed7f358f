//===-- HoistLoopInvariant.cpp - size()/strlen() out of loop conditions ---===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `for (i = 0; i < strlen(s); ++i)` computes the length on every iteration;
// `v.size()` may be reloaded each time when the body writes memory. When
// the loop does not modify what the call reads, the value is computed once
// into a `const auto` before the loop.
//
// A declaration in a loop body whose initialiser calls pure code (a const
// member function whose body this file holds, a math function) on values the
// loop does not change (`Mat3 inv = M.inverse();` per pixel) is moved before
// the outermost loop it does not depend on. The compiler cannot do it when
// the call is not inlined, or when the loop's stores may reach what the call
// reads; the rule asks the types (a store of an `unsigned` pixel cannot
// change a matrix of doubles).
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;

namespace {

/// Calls in \p S to functions whose effects the rules cannot see: anything
/// but the standard library, builtins and the implicit member functions of
/// standard types.
bool callsUnknownCode(const Stmt *S) {
  struct Finder : RecursiveASTVisitor<Finder> {
    bool Found = false;
    bool VisitCallExpr(CallExpr *C) {
      const FunctionDecl *FD = C->getDirectCallee();
      if (!FD) {
        Found = true;
        return false;
      }
      if (FD->getBuiltinID() || FD->isInStdNamespace())
        return true;
      if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
        if (MD->getParent()->isInStdNamespace())
          return true;
      // C library functions declared in system headers.
      if (FD->getASTContext().getSourceManager().isInSystemHeader(
              FD->getLocation()) &&
          !FD->isCXXClassMember())
        return true;
      Found = true;
      return false;
    }
    bool VisitCXXConstructExpr(CXXConstructExpr *C) {
      if (!C->getConstructor()->getParent()->isInStdNamespace() &&
          !C->getConstructor()->isTrivial())
        Found = true;
      return !Found;
    }
  } F;
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Found;
}

/// True when \p S writes through a pointer or reference that is not a local
/// object of its own (it could alias anything).
bool writesThroughPointers(const Stmt *S) {
  bool Found = false;
  forEachStore(S, [&](const Expr *LHS) {
    if (const auto *U = dyn_cast<UnaryOperator>(LHS))
      Found |= U->getOpcode() == UO_Deref;
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(LHS))
      Found |= A->getBase()->IgnoreParenImpCasts()->getType()->isPointerType();
    if (const auto *D = dyn_cast<DeclRefExpr>(LHS))
      Found |= D->getDecl()->getType()->isReferenceType();
  });
  return Found;
}

/// True when every use of \p V in \p S only reads it: const member calls,
/// element reads through operator[]/at/front/back, array elements read, the
/// array passed as a pointer to const. ExprMutationAnalyzer counts any
/// non-const member call (a read through v[i]) as a change.
bool isOnlyReadIn(const VarDecl *V, const Stmt *S, ASTContext &AST) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *V;
    ASTContext &AST;
    bool Ok = true;
    Finder(const VarDecl *V, ASTContext &AST) : V(V), AST(AST) {}
    /// The value \p E designates is only read.
    bool isRead(const Expr *E) {
      const Stmt *P = parentStmt(AST, E);
      while (P && isa<ParenExpr>(P))
        P = parentStmt(AST, P);
      if (const auto *C = dyn_cast_or_null<ImplicitCastExpr>(P))
        return C->getCastKind() == CK_LValueToRValue;
      if (const auto *ME = dyn_cast_or_null<MemberExpr>(P))
        return ME->getType().isConstQualified() || isRead(ME);
      return false;
    }
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      if (D->getDecl() != V)
        return true;
      const Stmt *P = parentStmt(AST, D);
      while (P && (isa<ParenExpr>(P) ||
                   (isa<ImplicitCastExpr>(P) &&
                    cast<ImplicitCastExpr>(P)->getCastKind() == CK_NoOp)))
        P = parentStmt(AST, P);
      if (const auto *ME = dyn_cast_or_null<MemberExpr>(P)) {
        const auto *MD = dyn_cast<CXXMethodDecl>(ME->getMemberDecl());
        const auto *Call =
            dyn_cast_or_null<CXXMemberCallExpr>(parentStmt(AST, ME));
        if (!MD || !Call)
          return Ok = false;
        if (MD->isConst())
          return true;
        llvm::StringRef Name = MD->getIdentifier() ? MD->getName() : "";
        if ((Name == "at" || Name == "front" || Name == "back") && isRead(Call))
          return true;
        return Ok = false;
      }
      if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(P)) {
        if (Op->getOperator() == OO_Subscript && isRead(Op))
          return true;
        if (const auto *MD =
                dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee()))
          if (MD->isConst())
            return true;
        return Ok = false;
      }
      if (const auto *C = dyn_cast_or_null<ImplicitCastExpr>(P)) {
        if (C->getCastKind() == CK_LValueToRValue)
          return true;
        if (C->getCastKind() != CK_ArrayToPointerDecay)
          return Ok = false;
        const Stmt *Up = parentStmt(AST, C);
        if (const auto *AS = dyn_cast_or_null<ArraySubscriptExpr>(Up))
          return isRead(AS) || (Ok = false);
        if (const auto *Conv = dyn_cast_or_null<ImplicitCastExpr>(Up))
          if (Conv->getType()->isPointerType() &&
              Conv->getType()->getPointeeType().isConstQualified())
            return true;
        return Ok = false;
      }
      return Ok = false;
    }
  } F(V, AST);
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Ok;
}

/// A call whose value only depends on one variable: `v.size()`,
/// `s.length()`, `strlen(s)`. Returns the variable.
const VarDecl *invariantCallVar(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!MD || !MD->getIdentifier() || MC->getNumArgs() != 0 ||
        (MD->getName() != "size" && MD->getName() != "length") ||
        !MD->getParent()->isInStdNamespace())
      return nullptr;
    const auto *DRE = dyn_cast<DeclRefExpr>(
        MC->getImplicitObjectArgument()->IgnoreParenImpCasts());
    return DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  }
  if (const auto *C = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = C->getDirectCallee();
    if (!FD || !FD->getIdentifier() || FD->getName() != "strlen" ||
        C->getNumArgs() != 1)
      return nullptr;
    const auto *DRE =
        dyn_cast<DeclRefExpr>(C->getArg(0)->IgnoreParenImpCasts());
    return DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  }
  return nullptr;
}

/// Whether \p E (a side of a loop condition) is worth hoisting and safe:
/// it calls size/length/strlen, and its variables do not change in the loop.
bool isHoistable(const Expr *E, const Stmt *Loop, const Stmt *FuncBody,
                 const llvm::SmallPtrSetImpl<const VarDecl *> &LoopVars,
                 ASTContext &AST, bool &HasCall) {
  E = E->IgnoreParenImpCasts();
  if (const VarDecl *V = invariantCallVar(E)) {
    HasCall = true;
    if (LoopVars.count(V) || !isOnlyReadIn(V, Loop, AST) ||
        hasAliases(V, FuncBody))
      return false;
    // Globals and references may change through calls and pointers the
    // analysis does not follow.
    if (!V->isLocalVarDeclOrParm() || V->getType()->isReferenceType())
      return !callsUnknownCode(Loop) && !writesThroughPointers(Loop);
    return true;
  }
  if (isa<IntegerLiteral>(E))
    return true;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    return V && !LoopVars.count(V) && !isMutatedIn(V, Loop, AST) &&
           V->isLocalVarDeclOrParm() && !V->getType()->isReferenceType();
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    return (B->isAdditiveOp() || B->isMultiplicativeOp()) &&
           isHoistable(B->getLHS(), Loop, FuncBody, LoopVars, AST, HasCall) &&
           isHoistable(B->getRHS(), Loop, FuncBody, LoopVars, AST, HasCall);
  return false;
}

/// The scalar types a read of an object of type \p T may read: \p T, or its
/// fields' and elements' (a few levels deep; a record too deep counts as
/// unknown and returns false).
bool leafTypes(QualType T, llvm::SmallVectorImpl<QualType> &Out,
               unsigned Depth = 0) {
  T = T.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  if (Depth > 4)
    return false;
  if (const auto *AT = dyn_cast<ArrayType>(T.getTypePtr()))
    return leafTypes(AT->getElementType(), Out, Depth + 1);
  if (const auto *RD = T->getAsCXXRecordDecl()) {
    if (!RD->hasDefinition() || isInStd(RD))
      return false;
    for (const CXXBaseSpecifier &B : RD->bases())
      if (!leafTypes(B.getType(), Out, Depth + 1))
        return false;
    for (const FieldDecl *F : RD->fields())
      if (!leafTypes(F->getType(), Out, Depth + 1))
        return false;
    return true;
  }
  if (!T->isScalarType())
    return false;
  Out.push_back(T);
  return true;
}

/// What hoisting a declaration's initialiser needs to know of it.
struct InitFacts {
  bool Invariant = true;
  /// It calls a function worth computing once (user code, a math function),
  /// not only accessors the compiler hoists itself.
  bool HasCall = false;
  /// It reads memory the loop could change without naming it (through a
  /// reference, a pointer, `this`, a global): the scalar types it may read.
  bool ReadsMemory = false;
  bool MemoryKnown = true;
  llvm::SmallVector<QualType, 8> MemoryTypes;
};

/// Whether \p Init has the same value on every iteration of \p Loop and
/// computing it changes nothing.
InitFacts factsOfInit(const Expr *Init, const Stmt *Loop, const Stmt *FuncBody,
                      ASTContext &AST) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const Stmt *Loop, *FuncBody;
    ASTContext &AST;
    InitFacts F;
    Finder(const Stmt *Loop, const Stmt *FuncBody, ASTContext &AST)
        : Loop(Loop), FuncBody(FuncBody), AST(AST) {}
    void readsMemory(QualType T) {
      F.ReadsMemory = true;
      F.MemoryKnown &= leafTypes(T, F.MemoryTypes);
    }
    bool VisitStmt(Stmt *S) {
      if (isa<LambdaExpr>(S) || isa<StmtExpr>(S) || isa<CXXThrowExpr>(S) ||
          isa<CXXNewExpr>(S) || isa<CXXDeleteExpr>(S))
        F.Invariant = false;
      if (const auto *B = dyn_cast<BinaryOperator>(S); B && B->isAssignmentOp())
        F.Invariant = false;
      // Computed before a loop that may run no iteration, an integer
      // division by a variable may trap where the original did not divide.
      if (const auto *B = dyn_cast<BinaryOperator>(S);
          B && (B->getOpcode() == BO_Div || B->getOpcode() == BO_Rem) &&
          B->getType()->isIntegerType() &&
          !B->getRHS()->isIntegerConstantExpr(AST))
        F.Invariant = false;
      if (const auto *U = dyn_cast<UnaryOperator>(S)) {
        if (U->isIncrementDecrementOp())
          F.Invariant = false;
        if (U->getOpcode() == UO_Deref)
          readsMemory(U->getType());
      }
      if (isa<CXXThisExpr>(S))
        readsMemory(cast<CXXThisExpr>(S)->getType()->getPointeeType());
      // Nothing that may read out of bounds or through a null pointer where
      // the original, in a loop that runs no iteration, read nothing: no
      // element, no dereference (but of `this`), no pointer handed to a
      // call, no front()/back()/at() of a container that may be empty.
      if (isa<ArraySubscriptExpr>(S) ||
          (isa<UnaryOperator>(S) &&
           cast<UnaryOperator>(S)->getOpcode() == UO_Deref) ||
          (isa<MemberExpr>(S) && cast<MemberExpr>(S)->isArrow() &&
           !isa<CXXThisExpr>(
               cast<MemberExpr>(S)->getBase()->IgnoreParenImpCasts())))
        F.Invariant = false;
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
          Op && (Op->getOperator() == OO_Subscript ||
                 Op->getOperator() == OO_Star || Op->getOperator() == OO_Arrow))
        F.Invariant = false;
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S))
        if (const CXXMethodDecl *MD = MC->getMethodDecl();
            MD && MD->getIdentifier() && isInStd(MD->getParent()) &&
            llvm::is_contained({"at", "front", "back"}, MD->getName()))
          F.Invariant = false;
      if (const auto *C = dyn_cast<CallExpr>(S))
        for (const Expr *A : C->arguments())
          if (A->getType()->isPointerType())
            F.Invariant = false;
      if (const auto *C = dyn_cast<CallExpr>(S)) {
        const FunctionDecl *Callee = C->getDirectCallee();
        const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Callee);
        if (callWritesNothing(C, AST)) {
          F.HasCall |= !MD;
        } else if (Callee && isPureFunction(Callee, AST) &&
                   (!MD || MD->isConst() || MD->isStatic())) {
          F.HasCall = true;
        } else {
          F.Invariant = false;
        }
      }
      if (const auto *C = dyn_cast<CXXConstructExpr>(S))
        F.Invariant &= C->getConstructor()->isTrivial() ||
                       isPureFunction(C->getConstructor(), AST);
      if (const auto *D = dyn_cast<DeclRefExpr>(S))
        if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
          visitVar(V);
      return F.Invariant;
    }
    void visitVar(const VarDecl *V) {
      const SourceManager &SM = AST.getSourceManager();
      SourceRange R = Loop->getSourceRange();
      bool InLoop =
          !SM.isBeforeInTranslationUnit(V->getLocation(), R.getBegin()) &&
          !SM.isBeforeInTranslationUnit(R.getEnd(), V->getLocation());
      if (InLoop || V->getType().isVolatileQualified() ||
          isMutatedIn(V, Loop, AST)) {
        F.Invariant = false;
        return;
      }
      QualType T = V->getType();
      if (T->isReferenceType() || V->hasGlobalStorage() ||
          hasAliases(V, FuncBody))
        readsMemory(T);
      if (T->isPointerType())
        readsMemory(T->getPointeeType());
    }
  } Fi(Loop, FuncBody, AST);
  Fi.TraverseStmt(const_cast<Expr *>(Init));
  return Fi.F;
}

/// True when nothing \p Loop does can change memory of the types in
/// \p Facts: every call writes nothing, and every store is to a local
/// nothing points to or to a scalar of another type (not a char).
bool leavesMemoryAlone(const InitFacts &Facts, const Stmt *Loop,
                       const Stmt *FuncBody, ASTContext &AST) {
  if (!Facts.ReadsMemory)
    return true;
  if (!Facts.MemoryKnown)
    return false;
  bool Calls = false;
  struct CallFinder : RecursiveASTVisitor<CallFinder> {
    ASTContext &AST;
    bool &Found;
    CallFinder(ASTContext &AST, bool &Found) : AST(AST), Found(Found) {}
    bool VisitCallExpr(CallExpr *C) {
      Found |=
          !callWritesNothing(C, AST) &&
          !(C->getDirectCallee() && isPureFunction(C->getDirectCallee(), AST));
      return !Found;
    }
  } CF(AST, Calls);
  CF.TraverseStmt(const_cast<Stmt *>(Loop));
  if (Calls)
    return false;
  auto Normal = [&](QualType T) {
    T = T.getCanonicalType().getUnqualifiedType();
    return T->isIntegerType() && !T->isEnumeralType()
               ? AST.getCorrespondingUnsignedType(T)
               : T;
  };
  bool Ok = true;
  forEachStore(Loop, [&](const Expr *Target) {
    if (const auto *D = dyn_cast<DeclRefExpr>(Target))
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl());
          V && V->isLocalVarDecl() && !V->getType()->isReferenceType() &&
          !hasAliases(V, FuncBody))
        return;
    QualType T = Target->getType();
    Ok &= T->isScalarType() && !T->isCharType() &&
          llvm::none_of(Facts.MemoryTypes, [&](QualType M) {
            return M->isCharType() || AST.hasSameType(Normal(M), Normal(T));
          });
  });
  return Ok;
}

/// What moves before a loop: a declaration, or a local array's
/// declaration with the call that fills it.
struct Hoist {
  llvm::SmallVector<const Stmt *, 2> Stmts;
  const VarDecl *V;
  const Stmt *Target;
  /// A fill whose array moves under a fresh name: its own would meet
  /// another use of that name (a separable blur's two passes both call
  /// theirs `w`), or hide one in the loop.
  bool Rename = false;
};

/// Whether \p FD names \p V's name for anything but \p V, and but the
/// variables in \p Ignore, outside \p Inside (null: anywhere): a variable,
/// a parameter, or a member used without `this->`. A declaration moved from
/// a loop's body to the enclosing scope would meet it.
bool nameUsedOutside(const VarDecl *V, const FunctionDecl *FD,
                     const Stmt *Inside,
                     const llvm::SmallPtrSetImpl<const VarDecl *> &Ignore,
                     ASTContext &AST) {
  const SourceManager &SM = AST.getSourceManager();
  auto In = [&](SourceLocation L) {
    return Inside && !SM.isBeforeInTranslationUnit(L, Inside->getBeginLoc()) &&
           !SM.isBeforeInTranslationUnit(Inside->getEndLoc(), L);
  };
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *V;
    llvm::function_ref<bool(SourceLocation)> In;
    const llvm::SmallPtrSetImpl<const VarDecl *> &Ignore;
    bool Found = false;
    Finder(const VarDecl *V, llvm::function_ref<bool(SourceLocation)> In,
           const llvm::SmallPtrSetImpl<const VarDecl *> &Ignore)
        : V(V), In(In), Ignore(Ignore) {}
    bool other(const NamedDecl *D) {
      return D != V && D->getDeclName() == V->getDeclName() &&
             !(isa<VarDecl>(D) && Ignore.contains(cast<VarDecl>(D))) &&
             !In(D->getLocation());
    }
    bool VisitNamedDecl(NamedDecl *D) {
      Found |= other(D);
      return !Found;
    }
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      Found |= other(D->getDecl());
      return !Found;
    }
    bool VisitMemberExpr(MemberExpr *M) {
      Found |= M->getMemberDecl()->getDeclName() == V->getDeclName();
      return !Found;
    }
  } F(V, In, Ignore);
  F.TraverseStmt(FD->getBody());
  for (const ParmVarDecl *P : FD->parameters())
    F.Found |= P->getDeclName() == V->getDeclName();
  return F.Found;
}

/// Whether \p L names another entity called as \p V and declared outside
/// it (a variable, a member through `this`): moved before \p L, \p V would
/// hide it.
bool hidesInside(const VarDecl *V, const Stmt *L, ASTContext &AST) {
  const SourceManager &SM = AST.getSourceManager();
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *V;
    const Stmt *L;
    const SourceManager &SM;
    bool Found = false;
    Finder(const VarDecl *V, const Stmt *L, const SourceManager &SM)
        : V(V), L(L), SM(SM) {}
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      SourceLocation At = D->getDecl()->getLocation();
      Found |= D->getDecl() != V &&
               D->getDecl()->getDeclName() == V->getDeclName() &&
               (SM.isBeforeInTranslationUnit(At, L->getBeginLoc()) ||
                SM.isBeforeInTranslationUnit(L->getEndLoc(), At));
      return !Found;
    }
    bool VisitMemberExpr(MemberExpr *M) {
      Found |= M->isImplicitAccess() &&
               M->getMemberDecl()->getDeclName() == V->getDeclName();
      return !Found;
    }
  } F(V, L, SM);
  F.TraverseStmt(const_cast<Stmt *>(L));
  return F.Found;
}

/// A fill: \p DS declares a local array of scalars and \p Next, the
/// statement after it, hands it to a function that only computes and
/// writes its elements (`double w[N]{}; get_weights(radius, w);`). The
/// call, or null.
const CallExpr *fillOf(const DeclStmt *DS, const Stmt *Next, ASTContext &AST) {
  const auto *V =
      DS->isSingleDecl() ? dyn_cast<VarDecl>(DS->getSingleDecl()) : nullptr;
  const auto *Array = V ? AST.getAsConstantArrayType(V->getType()) : nullptr;
  const auto *E = dyn_cast_or_null<Expr>(Next);
  const auto *C = E ? dyn_cast<CallExpr>(E->IgnoreImplicit()) : nullptr;
  if (!Array || !Array->getElementType()->isScalarType() ||
      V->isStaticLocal() || V->getType().isVolatileQualified() || !C ||
      isa<CXXMemberCallExpr>(C) || isa<CXXOperatorCallExpr>(C))
    return nullptr;
  const FunctionDecl *Callee = C->getDirectCallee();
  if (!Callee || Callee->getNumParams() != C->getNumArgs() ||
      (isa<CXXMethodDecl>(Callee) && !cast<CXXMethodDecl>(Callee)->isStatic()))
    return nullptr;
  // The array once, as a pointer the function writes through; no other
  // pointer (what it points to could change, or be out of bounds, where
  // the loop would not have run).
  const ParmVarDecl *Fills = nullptr;
  for (unsigned I = 0; I < C->getNumArgs(); ++I) {
    const Expr *A = C->getArg(I)->IgnoreParenImpCasts();
    const auto *D = dyn_cast<DeclRefExpr>(A);
    if (D && D->getDecl() == V && !Fills &&
        Callee->getParamDecl(I)->getType()->isPointerType()) {
      Fills = Callee->getParamDecl(I);
      continue;
    }
    if (C->getArg(I)->getType()->isPointerType() ||
        referencedVars(C->getArg(I)).count(V))
      return nullptr;
  }
  if (!Fills || !isPureFunction(Callee, AST, Fills))
    return nullptr;
  return C;
}

/// Where the fill \p DS, \p Fill (the statement at \p CallAt of \p Body, the
/// body of \p Loop) can go: before the outermost loop around it in which
/// the array's initialiser and the call's other arguments do not change,
/// the loop only reading the array after the call.
std::optional<Hoist> hoistFill(const DeclStmt *DS, const CallExpr *Fill,
                               const CompoundStmt *Body,
                               CompoundStmt::const_body_iterator CallAt,
                               const Stmt *Loop, const FunctionDecl *FD,
                               ASTContext &AST) {
  const auto *V = cast<VarDecl>(DS->getSingleDecl());
  if (hasAliases(V, FD->getBody()))
    return std::nullopt;
  for (auto It = std::next(CallAt); It != Body->body_end(); ++It)
    if (!isOnlyReadIn(V, *It, AST))
      return std::nullopt;
  Hoist H{{DS, *CallAt}, V, nullptr};
  for (const Stmt *L = Loop; L && L != FD->getBody(); L = parentStmt(AST, L)) {
    if (!isa<ForStmt>(L) && !isa<WhileStmt>(L) && !isa<DoStmt>(L) &&
        !isa<CXXForRangeStmt>(L))
      continue;
    llvm::SmallVector<const Expr *, 4> Values;
    if (V->getInit())
      Values.push_back(V->getInit());
    for (const Expr *A : Fill->arguments())
      if (!referencedVars(A).count(V))
        Values.push_back(A);
    bool Invariant = llvm::all_of(Values, [&](const Expr *E) {
      InitFacts Facts = factsOfInit(E, L, FD->getBody(), AST);
      return Facts.Invariant && leavesMemoryAlone(Facts, L, FD->getBody(), AST);
    });
    if (!Invariant)
      break;
    H.Target = L;
  }
  if (!H.Target)
    return std::nullopt;
  H.Rename = hidesInside(V, H.Target, AST);
  return H;
}

/// The declarations of \p FD's loop bodies whose value does not change
/// in the loop, and the arrays filled the same way on every iteration,
/// each with the outermost loop it can leave.
std::vector<Hoist> invariantDeclarations(const FunctionDecl *FD,
                                         ASTContext &AST) {
  std::vector<Hoist> Found;
  const llvm::SmallPtrSet<const VarDecl *, 1> NoneIgnored;
  for (const Stmt *Loop : loopsIn(FD->getBody())) {
    const auto *Body = dyn_cast_or_null<CompoundStmt>(loopBody(Loop));
    if (!Body)
      continue;
    for (auto It = Body->body_begin(); It != Body->body_end(); ++It) {
      const Stmt *S = *It;
      if (const auto *DS = dyn_cast<DeclStmt>(S);
          DS && std::next(It) != Body->body_end())
        if (const CallExpr *Fill = fillOf(DS, *std::next(It), AST)) {
          if (std::optional<Hoist> H =
                  hoistFill(DS, Fill, Body, std::next(It), Loop, FD, AST)) {
            Found.push_back(std::move(*H));
            ++It;
          }
          continue;
        }
      const auto *DS = dyn_cast<DeclStmt>(S);
      const auto *V = DS && DS->isSingleDecl()
                          ? dyn_cast<VarDecl>(DS->getSingleDecl())
                          : nullptr;
      if (!V || !V->getInit() || V->isStaticLocal() ||
          V->getType().isVolatileQualified() || isMutatedIn(V, Loop, AST) ||
          hasAliases(V, FD->getBody()) ||
          nameUsedOutside(V, FD, /*Inside=*/nullptr, NoneIgnored, AST))
        continue;
      // Outward while it stays invariant: the body's loop, then the loops
      // around it.
      const Stmt *Target = nullptr;
      bool HasCall = false;
      for (const Stmt *L = Loop; L && L != FD->getBody();
           L = parentStmt(AST, L)) {
        if (!isa<ForStmt>(L) && !isa<WhileStmt>(L) && !isa<DoStmt>(L) &&
            !isa<CXXForRangeStmt>(L))
          continue;
        InitFacts Facts = factsOfInit(V->getInit(), L, FD->getBody(), AST);
        if (!Facts.Invariant ||
            !leavesMemoryAlone(Facts, L, FD->getBody(), AST))
          break;
        Target = L;
        HasCall = Facts.HasCall;
      }
      if (Target && HasCall)
        Found.push_back({{DS}, V, Target});
    }
  }
  // Of the fills of one name, the first keeps it where nothing else uses
  // it; the others move under fresh names.
  llvm::StringSet<> Kept;
  for (Hoist &H : Found) {
    if (H.Stmts.size() == 1)
      continue;
    llvm::SmallPtrSet<const VarDecl *, 4> SameName;
    for (const Hoist &O : Found)
      if (&O != &H && O.Stmts.size() == 2 &&
          O.V->getDeclName() == H.V->getDeclName())
        SameName.insert(O.V);
    H.Rename |= Kept.contains(H.V->getName()) ||
                nameUsedOutside(H.V, FD, H.Target, SameName, AST);
    if (!H.Rename)
      Kept.insert(H.V->getName());
  }
  return Found;
}

/// Calls \p F with every name of \p V in \p S.
void forEachDeclRef(const Stmt *S, const VarDecl *V, ASTContext &AST,
                    llvm::function_ref<void(const DeclRefExpr *)> F) {
  using namespace ast_matchers;
  for (const BoundNodes &N :
       match(findAll(declRefExpr(to(varDecl(equalsNode(V)))).bind("ref")), *S,
             AST))
    F(N.getNodeAs<DeclRefExpr>("ref"));
}

/// The text of \p R, statement \p S, with \p V named \p Name; none where a
/// use of \p V is spelled in a macro.
std::optional<std::string> renamedText(const RuleContext &Ctx,
                                       CharSourceRange R, const Stmt *S,
                                       const VarDecl *V, llvm::StringRef Name) {
  std::string Text = Ctx.getText(R).str();
  if (Name == V->getName())
    return Text;
  const SourceManager &SM = Ctx.getSourceManager();
  unsigned Begin = SM.getFileOffset(R.getBegin());
  tooling::Replacements Renames;
  auto Rename = [&](SourceLocation At) {
    std::optional<CharSourceRange> Token = Ctx.getEditRange(SourceRange(At));
    return Token && !Renames.add(tooling::Replacement(
                        "", SM.getFileOffset(Token->getBegin()) - Begin,
                        V->getName().size(), Name));
  };
  llvm::SmallVector<SourceLocation, 4> Uses;
  if (const auto *DS = dyn_cast<DeclStmt>(S); DS && DS->getSingleDecl() == V)
    Uses.push_back(V->getLocation());
  forEachDeclRef(S, V, Ctx.getASTContext(), [&](const DeclRefExpr *D) {
    Uses.push_back(D->getLocation());
  });
  for (SourceLocation At : Uses)
    if (!Rename(At))
      return std::nullopt;
  llvm::Expected<std::string> Out =
      tooling::applyAllReplacements(Text, Renames);
  if (!Out) {
    llvm::consumeError(Out.takeError());
    return std::nullopt;
  }
  return *Out;
}

/// Renames \p V to \p Name in the statements of its block after \p Last.
bool renameUses(RuleEdit &E, const RuleContext &Ctx, const VarDecl *V,
                const Stmt *Last, llvm::StringRef Name) {
  const auto *Block =
      dyn_cast_or_null<CompoundStmt>(parentStmt(Ctx.getASTContext(), Last));
  if (!Block)
    return false;
  bool Ok = true, After = false;
  for (const Stmt *S : Block->body()) {
    if (After)
      forEachDeclRef(S, V, Ctx.getASTContext(), [&](const DeclRefExpr *D) {
        std::optional<CharSourceRange> Token =
            Ctx.getEditRange(SourceRange(D->getLocation()));
        Ok &= Token && addReplacement(E, Ctx, *Token, Name);
      });
    After |= S == Last;
  }
  return Ok;
}

class HoistLoopInvariantRule : public Rule {
public:
  HoistLoopInvariantRule()
      : Rule("hoist-loop-invariant",
             "size()/length()/strlen() in loop conditions, and declarations "
             "in loop bodies that call pure code on what the loop does not "
             "modify, computed once before the loop",
             "hoisted bound") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      RuleEdit E = makeEdit("", 45);
      std::vector<std::string> What;
      std::vector<unsigned> Lines;
      for (const Stmt *S : loopsIn(FD->getBody())) {
        const auto *For = dyn_cast<ForStmt>(S);
        if (!For || !For->getCond())
          continue;
        const auto *Cond =
            dyn_cast<BinaryOperator>(For->getCond()->IgnoreParenImpCasts());
        if (!Cond || !Cond->isComparisonOp())
          continue;
        // Variables the loop header changes.
        llvm::SmallPtrSet<const VarDecl *, 8> LoopVars;
        if (For->getInc())
          for (const VarDecl *V : referencedVars(For->getInc()))
            LoopVars.insert(V);
        if (const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit()))
          for (const Decl *D : Init->decls())
            if (const auto *V = dyn_cast<VarDecl>(D))
              LoopVars.insert(V);
        const Expr *Side = nullptr;
        for (const Expr *Candidate : {Cond->getRHS(), Cond->getLHS()}) {
          // A cast around the call (`i < (int)v.size()`) stays in place.
          Candidate = Candidate->IgnoreParenCasts();
          bool HasCall = false;
          if (isHoistable(Candidate, For, FD->getBody(), LoopVars, AST,
                          HasCall) &&
              HasCall) {
            Side = Candidate;
            break;
          }
        }
        if (!Side)
          continue;
        auto SideR = Ctx.getEditRange(Side->getSourceRange());
        auto ForR = statementRange(Ctx, For);
        if (!SideR || !ForR)
          continue;
        // Names stay distinct between the loops of one edit.
        std::string Name = Ctx.getFreshName(
            What.empty() ? std::string("Bound")
                         : "Bound" + std::to_string(What.size() + 1));
        std::string SideText = Ctx.getText(*SideR).str();
        std::string Decl = "const auto " + Name + " = " + SideText + ";";
        RuleEdit Trial = E;
        bool Ok;
        if (compoundParent(AST, For) && startsLine(Ctx, ForR->getBegin())) {
          Ok = insertLineBefore(Trial, Ctx, For, Decl);
        } else {
          // A loop that is the body of an if or another loop: a block
          // keeps the declaration its own (not between a pragma and its
          // loop).
          Ok = !followsPragma(Ctx, For) &&
               insertText(Trial, Ctx, ForR->getBegin(), "{\n" + Decl + "\n") &&
               insertText(Trial, Ctx, ForR->getEnd(), "\n}");
        }
        Ok = Ok && addReplacement(Trial, Ctx, *SideR, Name);
        if (!Ok)
          continue;
        E = std::move(Trial);
        What.push_back(SideText);
        Lines.push_back(Ctx.getUserLine(For->getBeginLoc()));
      }
      if (What.empty())
        continue;
      E.Description =
          "hoist " + What.front() +
          (What.size() > 1
               ? llvm::formatv(" and {0} more", What.size() - 1).str()
               : std::string()) +
          " out of loop conditions in " + describeFunction(FD) + " (" +
          describeLines(Lines) + ")";
      Out.push_back(std::move(E));
    }
    proposeDeclarations(Ctx, Out);
  }

private:
  /// One edit per function: the declarations of loop bodies whose
  /// initialiser calls pure code on values the loop does not change, and
  /// the arrays a pure call fills the same way on every iteration, moved
  /// before the outermost loop they do not depend on.
  void proposeDeclarations(const RuleContext &Ctx,
                           std::vector<RuleEdit> &Out) const {
    ASTContext &AST = Ctx.getASTContext();
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      FunctionEdit E(makeEdit("", 45), Ctx, FD);
      std::vector<Hoist> Found = invariantDeclarations(FD, AST);
      // All that go before one loop go in one insertion (two at one place
      // conflict), in the order they were written.
      std::vector<const Stmt *> Targets;
      std::string Names;
      for (const Hoist &H : Found)
        if (!llvm::is_contained(Targets, H.Target))
          Targets.push_back(H.Target);
      llvm::StringSet<> Chosen;
      for (const Stmt *Target : Targets) {
        std::vector<const Hoist *> Moved;
        for (const Hoist &H : Found)
          if (H.Target == Target)
            Moved.push_back(&H);
        std::vector<std::string> MovedNames;
        bool Kept = E.tryChange(
            Moved.front()->Stmts.front()->getBeginLoc(), [&](RuleEdit &T) {
              MovedNames.clear();
              std::string Text;
              for (const Hoist *H : Moved) {
                std::string Name = H->V->getName().str();
                if (H->Rename) {
                  Name = Ctx.getFreshName(Name);
                  for (unsigned N = 2; Chosen.contains(Name); ++N)
                    Name = Ctx.getFreshName(H->V->getName().str() +
                                            std::to_string(N));
                }
                for (const Stmt *S : H->Stmts) {
                  auto R = statementRange(Ctx, S);
                  std::optional<std::string> Moved =
                      R ? renamedText(Ctx, *R, S, H->V, Name) : std::nullopt;
                  if (!Moved || !removeStatement(T, Ctx, S))
                    return false;
                  Text += (Text.empty() ? "" : "\n") + *Moved;
                }
                if (H->Rename &&
                    !renameUses(T, Ctx, H->V, H->Stmts.back(), Name))
                  return false;
                Chosen.insert(Name);
                MovedNames.push_back(Name);
              }
              auto LoopR = statementRange(Ctx, Target);
              if (!LoopR)
                return false;
              if (compoundParent(AST, Target) &&
                  startsLine(Ctx, LoopR->getBegin()))
                return insertLineBefore(T, Ctx, Target, Text);
              // A brace between a pragma and its loop would take the
              // loop's place.
              return !followsPragma(Ctx, Target) &&
                     insertText(T, Ctx, LoopR->getBegin(),
                                "{\n" + Text + "\n") &&
                     insertText(T, Ctx, LoopR->getEnd(), "\n}");
            });
        if (Kept)
          for (const std::string &Name : MovedNames)
            Names += (Names.empty() ? "" : ", ") + Name;
      }
      E.addTo(Out, "hoist the loop-invariant " + Names + " out of loops");
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createHoistLoopInvariantRule() {
  return std::make_unique<HoistLoopInvariantRule>();
}
