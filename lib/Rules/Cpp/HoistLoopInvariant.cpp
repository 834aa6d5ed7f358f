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

/// True when a declaration named \p Name, moved from a loop's body to the
/// enclosing scope, would meet another of that name in \p FD: a variable,
/// or a member used without `this->`.
bool nameIsTaken(const VarDecl *V, const FunctionDecl *FD) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *V;
    bool Found = false;
    explicit Finder(const VarDecl *V) : V(V) {}
    bool VisitNamedDecl(NamedDecl *D) {
      Found |= D != V && D->getDeclName() == V->getDeclName();
      return !Found;
    }
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      Found |=
          D->getDecl() != V && D->getDecl()->getDeclName() == V->getDeclName();
      return !Found;
    }
    bool VisitMemberExpr(MemberExpr *M) {
      Found |= M->getMemberDecl()->getDeclName() == V->getDeclName();
      return !Found;
    }
  } F(V);
  F.TraverseStmt(FD->getBody());
  for (const ParmVarDecl *P : FD->parameters())
    F.Found |= P->getDeclName() == V->getDeclName();
  return F.Found;
}

/// The declarations of \p FD's loop bodies whose value does not change
/// in the loop, each with the outermost loop it can leave.
std::vector<std::pair<const DeclStmt *, const Stmt *>>
invariantDeclarations(const FunctionDecl *FD, ASTContext &AST) {
  std::vector<std::pair<const DeclStmt *, const Stmt *>> Found;
  for (const Stmt *Loop : loopsIn(FD->getBody())) {
    const auto *Body = dyn_cast_or_null<CompoundStmt>(loopBody(Loop));
    if (!Body)
      continue;
    for (const Stmt *S : Body->body()) {
      const auto *DS = dyn_cast<DeclStmt>(S);
      const auto *V = DS && DS->isSingleDecl()
                          ? dyn_cast<VarDecl>(DS->getSingleDecl())
                          : nullptr;
      if (!V || !V->getInit() || V->isStaticLocal() ||
          V->getType().isVolatileQualified() || isMutatedIn(V, Loop, AST) ||
          hasAliases(V, FD->getBody()) || nameIsTaken(V, FD))
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
        Found.push_back({DS, Target});
    }
  }
  return Found;
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
  /// initialiser calls pure code on values the loop does not change, moved
  /// before the outermost loop they do not depend on.
  void proposeDeclarations(const RuleContext &Ctx,
                           std::vector<RuleEdit> &Out) const {
    ASTContext &AST = Ctx.getASTContext();
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      FunctionEdit E(makeEdit("", 45), Ctx, FD);
      auto Found = invariantDeclarations(FD, AST);
      // All that go before one loop go in one insertion (two at one place
      // conflict), in the order they were written.
      std::vector<const Stmt *> Targets;
      std::string Names;
      for (const auto &[DS, Target] : Found)
        if (!llvm::is_contained(Targets, Target))
          Targets.push_back(Target);
      for (const Stmt *Target : Targets) {
        std::vector<const DeclStmt *> Moved;
        for (const auto &[DS, T] : Found)
          if (T == Target)
            Moved.push_back(DS);
        bool Kept = E.tryChange(Moved.front()->getBeginLoc(), [&](RuleEdit &T) {
          std::string Text;
          for (const DeclStmt *DS : Moved) {
            auto R = statementRange(Ctx, DS);
            if (!R || !removeStatement(T, Ctx, DS))
              return false;
            Text += (Text.empty() ? "" : "\n") + Ctx.getText(*R).str();
          }
          auto LoopR = statementRange(Ctx, Target);
          if (!LoopR)
            return false;
          if (compoundParent(AST, Target) && startsLine(Ctx, LoopR->getBegin()))
            return insertLineBefore(T, Ctx, Target, Text);
          // A brace between a pragma and its loop would take the loop's place.
          return !followsPragma(Ctx, Target) &&
                 insertText(T, Ctx, LoopR->getBegin(), "{\n" + Text + "\n") &&
                 insertText(T, Ctx, LoopR->getEnd(), "\n}");
        });
        if (Kept)
          for (const DeclStmt *DS : Moved)
            Names += (Names.empty() ? "" : ", ") +
                     cast<VarDecl>(DS->getSingleDecl())->getNameAsString();
      }
      E.addTo(Out, "hoist the loop-invariant " + Names + " out of loops");
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createHoistLoopInvariantRule() {
  return std::make_unique<HoistLoopInvariantRule>();
}
