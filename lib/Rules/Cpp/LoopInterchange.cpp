//===-- LoopInterchange.cpp - A nest that walks memory across its rows ----===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A nest of two counted loops whose inner loop walks an array down its
// columns
//
//   for (int j = 0; j < m; ++j)          for (int i = 0; i < n; ++i)
//     for (int i = 0; i < n; ++i)   ->     for (int j = 0; j < m; ++j)
//       s[j] += a[i][j];                     s[j] += a[i][j];
//
// touches a new cache line on every iteration (the CPU evidence's
// "cache-miss-bound"); with the loops swapped it walks each row in order.
// The rule swaps the two loops' headers when more of the nest's element
// accesses become unit-stride than stop being so.
//
// Swapping is only safe when no iteration depends on another through a
// direction the swap reverses, which the rule shows conservatively:
//  - the nest is perfect (the outer body is the inner loop) and rectangular
//    (the inner bounds do not name the outer variable, and nothing the nest
//    writes), both counters declared in their headers and never written in
//    the body, and neither loop under a pragma (`omp parallel for`);
//  - every array written in the nest is indexed, wherever the nest names
//    it, by the same subscripts, each a loop counter or loop-invariant: two
//    iterations that meet on an element then agree on every counter the
//    subscripts name, so each element sees its accesses in the same order
//    after the swap (a sum into `c[i][j]` over `k` keeps its order, and
//    floating-point results stay bitwise the same);
//  - a scalar written in the nest is a local of the body, or an integer
//    reduction (`+=`, `-=`, `|=`, `&=`, `^=`, `++`, `--`) that nothing else
//    in the nest reads: integer reductions do not depend on their order;
//    floating-point ones do, and are refused;
//  - a written array cannot be reached through another name in the nest:
//    both are variables that are not pointers or references, or their
//    elements have different types (and are not bytes);
//  - no call but read-only ones, no break, return, goto or throw.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace maxcode;
using namespace clang;

namespace {

/// A counted loop `for (T v = A; v < B; ++v)`: its counter, or null.
const VarDecl *counterOf(const ForStmt *For, ASTContext &AST) {
  const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit());
  if (!Init || !Init->isSingleDecl() || !For->getCond() || !For->getInc())
    return nullptr;
  const auto *V = dyn_cast<VarDecl>(Init->getSingleDecl());
  if (!V || !V->getType()->isIntegerType() || !V->getInit() ||
      V->getType().isVolatileQualified())
    return nullptr;
  auto IsV = [&](const Expr *E) {
    const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    return DRE && DRE->getDecl() == V;
  };
  const auto *Cond = dyn_cast<BinaryOperator>(For->getCond()->IgnoreParens());
  if (!Cond || !Cond->isComparisonOp() || Cond->isEqualityOp() ||
      !(IsV(Cond->getLHS()) || IsV(Cond->getRHS())))
    return nullptr;
  const Expr *Inc = For->getInc()->IgnoreParens();
  if (const auto *U = dyn_cast<UnaryOperator>(Inc)) {
    if (!U->isIncrementDecrementOp() || !IsV(U->getSubExpr()))
      return nullptr;
  } else if (const auto *CA = dyn_cast<CompoundAssignOperator>(Inc)) {
    if ((CA->getOpcode() != BO_AddAssign && CA->getOpcode() != BO_SubAssign) ||
        !IsV(CA->getLHS()) || !isSimpleSideEffectFree(CA->getRHS(), AST))
      return nullptr;
  } else {
    return nullptr;
  }
  return V;
}

/// One element access `a[x][y]` (built-in subscripts, or operator[] of
/// std::vector and std::array) on a named variable.
struct Access {
  const VarDecl *Base = nullptr;
  const Expr *Whole = nullptr;
  std::vector<const Expr *> Subscripts; ///< Outermost dimension first.
  bool Written = false;
};

bool isStdIndexable(QualType T) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD || !isInStd(RD))
    return false;
  llvm::StringRef N = RD->getName();
  return N == "vector" || N == "array";
}

bool decomposeBase(const Expr *E, Access &A);

/// The base and subscripts of the element access \p E, or false.
bool decompose(const Expr *E, Access &A) {
  E = E->IgnoreParenImpCasts();
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
    if (!decomposeBase(AS->getBase(), A))
      return false;
    A.Subscripts.push_back(AS->getIdx());
    return true;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (Op->getOperator() != OO_Subscript || Op->getNumArgs() != 2 ||
        !isStdIndexable(Op->getArg(0)->getType()))
      return false;
    if (!decomposeBase(Op->getArg(0), A))
      return false;
    A.Subscripts.push_back(Op->getArg(1));
    return true;
  }
  return false;
}

bool decomposeBase(const Expr *E, Access &A) {
  const Expr *S = E->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S)) {
    A.Base = dyn_cast<VarDecl>(DRE->getDecl());
    return A.Base != nullptr;
  }
  return decompose(S, A);
}

/// Everything the nest does to memory, or why the rule must not touch it.
class NestScan : public RecursiveASTVisitor<NestScan> {
public:
  NestScan(ASTContext &AST, const Stmt *Body) : AST(AST), Body(Body) {}

  bool Refused = false;
  std::vector<Access> Accesses;
  /// Scalars written in the nest that are not its own locals.
  llvm::SmallPtrSet<const VarDecl *, 4> Reductions;
  /// Scalars read in the nest that are not its own locals.
  llvm::SmallPtrSet<const VarDecl *, 8> ScalarReads;

  bool shouldVisitLambdaBody() const { return false; }
  bool TraverseLambdaExpr(LambdaExpr *) { return refuse(); }
  bool VisitBreakStmt(BreakStmt *) { return refuse(); }
  bool VisitReturnStmt(ReturnStmt *) { return refuse(); }
  bool VisitGotoStmt(GotoStmt *) { return refuse(); }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *) { return refuse(); }
  bool VisitCXXThrowExpr(CXXThrowExpr *) { return refuse(); }
  bool VisitGCCAsmStmt(GCCAsmStmt *) { return refuse(); }
  bool VisitCoroutineBodyStmt(CoroutineBodyStmt *) { return refuse(); }

  bool VisitCallExpr(CallExpr *C) {
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(C))
      if (Op->getOperator() == OO_Subscript &&
          isStdIndexable(Op->getArg(0)->getType()))
        return true; // An element access, judged where it is used.
    if (!callWritesNothing(C, AST))
      return refuse();
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V || declaredInside(V))
      return true;
    if (V->getType().isVolatileQualified())
      return refuse();
    const Expr *Top = outermostAccess(DRE);
    if (Top != DRE) {
      Access A;
      if (!decompose(Top, A) || A.Base != V)
        return refuse();
      A.Whole = Top;
      if (!use(Top, A.Written))
        return refuse();
      Accesses.push_back(std::move(A));
      return true;
    }
    bool Written = false;
    if (!use(DRE, Written))
      return refuse();
    if (Written)
      Reductions.insert(V);
    else
      ScalarReads.insert(V);
    return true;
  }

  /// The kinds of store a reduction may make.
  static bool isReductionStore(const Expr *Parent, const Expr *Target) {
    if (const auto *U = dyn_cast<UnaryOperator>(Parent))
      return U->isIncrementDecrementOp();
    const auto *CA = dyn_cast<CompoundAssignOperator>(Parent);
    if (!CA || CA->getLHS()->IgnoreParens() != Target)
      return false;
    BinaryOperatorKind K = CA->getOpcode();
    return K == BO_AddAssign || K == BO_SubAssign || K == BO_OrAssign ||
           K == BO_AndAssign || K == BO_XorAssign;
  }

  /// Stores to scalars that are not reductions (`s = x`): refused.
  llvm::SmallPtrSet<const VarDecl *, 4> PlainStores;

private:
  ASTContext &AST;
  const Stmt *Body;

  bool refuse() {
    Refused = true;
    return false;
  }

  bool declaredInside(const VarDecl *V) const {
    SourceRange R = Body->getSourceRange();
    SourceLocation L = V->getLocation();
    const SourceManager &SM = AST.getSourceManager();
    return V->isLocalVarDecl() && !V->isStaticLocal() &&
           !SM.isBeforeInTranslationUnit(L, R.getBegin()) &&
           !SM.isBeforeInTranslationUnit(R.getEnd(), L);
  }

  /// The largest element access \p DRE is the base of (itself when none).
  const Expr *outermostAccess(const Expr *E) {
    const Expr *Top = E;
    while (true) {
      const Stmt *P = parentStmt(AST, Top);
      while (P && (isa<ParenExpr, ImplicitCastExpr>(P) ||
                   isa<MaterializeTemporaryExpr>(P)))
        P = parentStmt(AST, P);
      const Expr *Next = nullptr;
      if (const auto *AS = dyn_cast_or_null<ArraySubscriptExpr>(P)) {
        if (AS->getBase()->IgnoreParenImpCasts() == Top)
          Next = AS;
      } else if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(P)) {
        if (Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2 &&
            Op->getArg(0)->IgnoreParenImpCasts() == Top)
          Next = Op;
      }
      if (!Next)
        return Top;
      Top = Next;
    }
  }

  /// How \p E (a scalar, or a whole element access) is used: read as a
  /// value, or stored to (\p Written); false for anything else (its address
  /// taken, a non-const reference bound to it, a member called).
  bool use(const Expr *E, bool &Written) {
    const Stmt *P = parentStmt(AST, E);
    while (P && isa<ParenExpr>(P))
      P = parentStmt(AST, P);
    if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(P))
      return IC->getCastKind() == CK_LValueToRValue;
    if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P)) {
      if (BO->isAssignmentOp() && BO->getLHS()->IgnoreParens() == E) {
        Written = true;
        if (!E->getType()->isScalarType())
          return false;
        // An element's store is judged by its subscripts; a scalar's must
        // be a reduction.
        if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
          if (!isReductionStore(BO, E))
            PlainStores.insert(cast<VarDecl>(DRE->getDecl()));
        return true;
      }
      return !BO->isAssignmentOp();
    }
    if (const auto *U = dyn_cast_or_null<UnaryOperator>(P)) {
      if (U->isIncrementDecrementOp()) {
        Written = true;
        return E->getType()->isScalarType();
      }
      return U->getOpcode() != UO_AddrOf;
    }
    return false;
  }
};

/// The counter \p Idx is (a plain `i`), or null.
const VarDecl *counterNamed(const Expr *Idx) {
  const auto *DRE = dyn_cast<DeclRefExpr>(Idx->IgnoreParenImpCasts());
  return DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
}

bool mayAlias(const VarDecl *A, const VarDecl *B, QualType ElemA,
              QualType ElemB, ASTContext &AST) {
  if (A == B)
    return true;
  auto Named = [](const VarDecl *V) {
    QualType T = V->getType();
    return !T->isReferenceType() && !T->isPointerType() &&
           !isa<ParmVarDecl>(V); // An array parameter is a pointer.
  };
  if (Named(A) && Named(B))
    return false;
  auto Bytes = [](QualType T) { return T->isCharType() || T->isStdByteType(); };
  QualType CA = AST.getCanonicalType(ElemA).getUnqualifiedType();
  QualType CB = AST.getCanonicalType(ElemB).getUnqualifiedType();
  return CA == CB || Bytes(CA) || Bytes(CB);
}

class LoopInterchangeRule : public Rule {
public:
  LoopInterchangeRule()
      : Rule("loop-interchange",
             "a perfect nest of two counted loops whose inner loop walks an "
             "array across its rows is interchanged, where no dependence "
             "forbids it",
             "loop interchange") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      FunctionEdit E(makeEdit("", 55), Ctx, FD);
      llvm::SmallPtrSet<const Stmt *, 8> Swapped;
      for (const Stmt *Loop : loopsIn(FD->getBody())) {
        const auto *Outer = dyn_cast<ForStmt>(Loop);
        const auto *Inner =
            Outer ? dyn_cast_or_null<ForStmt>(onlyStatement(Outer->getBody()))
                  : nullptr;
        // A loop already swapped is not swapped again with its own inner.
        if (!Inner || Swapped.count(Outer) ||
            !interchangeable(Ctx, Outer, Inner))
          continue;
        auto OuterHead = Ctx.getEditRange(
            SourceRange(Outer->getBeginLoc(), Outer->getRParenLoc()));
        auto InnerHead = Ctx.getEditRange(
            SourceRange(Inner->getBeginLoc(), Inner->getRParenLoc()));
        if (!OuterHead || !InnerHead)
          continue;
        std::string OuterText = Ctx.getText(*OuterHead).str();
        std::string InnerText = Ctx.getText(*InnerHead).str();
        if (E.tryChange(Outer->getBeginLoc(), [&](RuleEdit &Edit) {
              return addReplacement(Edit, Ctx, *OuterHead, InnerText) &&
                     addReplacement(Edit, Ctx, *InnerHead, OuterText);
            })) {
          Swapped.insert(Outer);
          Swapped.insert(Inner);
        }
      }
      E.addTo(Out, "loop nests interchanged to walk rows in order");
    }
  }

private:
  static bool interchangeable(const RuleContext &Ctx, const ForStmt *Outer,
                              const ForStmt *Inner) {
    ASTContext &AST = Ctx.getASTContext();
    const VarDecl *I = counterOf(Outer, AST), *J = counterOf(Inner, AST);
    if (!I || !J || hasLoopHint(AST, Outer) || hasLoopHint(AST, Inner) ||
        followsPragma(Ctx, Outer) || Outer->getBeginLoc().isMacroID() ||
        Inner->getBeginLoc().isMacroID())
      return false;
    const Stmt *Body = Inner->getBody();
    if (isMutatedIn(I, Body, AST) || isMutatedIn(J, Body, AST))
      return false;
    // The inner header runs once instead of once per outer iteration (and
    // the outer one once per inner iteration): both must be repeatable and
    // independent of each other.
    for (const Expr *X : {J->getInit(), Inner->getCond(), Inner->getInc(),
                          I->getInit(), Outer->getCond(), Outer->getInc()})
      if (X->HasSideEffects(AST) && X != Inner->getInc() &&
          X != Outer->getInc())
        return false;
    auto Names = [](const Stmt *S, const VarDecl *V) {
      return countReferences(V, S) > 0;
    };
    if (Names(J->getInit(), I) || Names(Inner->getCond(), I) ||
        Names(Inner->getInc(), I))
      return false;

    NestScan Scan(AST, Body);
    Scan.TraverseStmt(const_cast<Stmt *>(Body));
    if (Scan.Refused || !Scan.PlainStores.empty())
      return false;
    // What the headers name must not change in the nest.
    for (const Stmt *H : {static_cast<const Stmt *>(Inner->getCond()),
                          static_cast<const Stmt *>(Inner->getInc()),
                          static_cast<const Stmt *>(J->getInit()),
                          static_cast<const Stmt *>(Outer->getCond()),
                          static_cast<const Stmt *>(Outer->getInc())})
      for (const VarDecl *V : referencedVars(H))
        if (V != I && V != J &&
            (Scan.Reductions.count(V) || isMutatedIn(V, Body, AST)))
          return false;
    // Reductions: integers only, and nothing in the nest reads them.
    for (const VarDecl *V : Scan.Reductions)
      if (!V->getType()->isIntegerType() || Scan.ScalarReads.count(V) ||
          V->getType()->isBooleanType())
        return false;

    auto Invariant = [&](const Expr *X) {
      for (const VarDecl *V : referencedVars(X))
        if (V == I || V == J || Scan.Reductions.count(V) ||
            isMutatedIn(V, Body, AST))
          return false;
      return isSimpleSideEffectFree(X, AST);
    };
    // Every written array: one subscript list wherever the nest names it,
    // each subscript a counter or invariant; no other name reaches it.
    const Stmt *FunctionBody = enclosingBody(AST, Outer);
    for (const Access &W : Scan.Accesses) {
      if (!W.Written)
        continue;
      // An element every iteration meets (`x[0] += ...`) would see its
      // accesses in another order.
      bool NamesCounter = false;
      for (const Expr *S : W.Subscripts) {
        const VarDecl *C = counterNamed(S);
        if (!(C == I || C == J) && !Invariant(S))
          return false;
        NamesCounter |= C == I || C == J;
      }
      if (!NamesCounter)
        return false;
      for (const Access &A : Scan.Accesses) {
        if (A.Base == W.Base) {
          if (A.Subscripts.size() != W.Subscripts.size())
            return false;
          for (size_t K = 0; K < A.Subscripts.size(); ++K)
            if (!sameExpr(A.Subscripts[K], W.Subscripts[K], AST))
              return false;
        } else if (mayAlias(W.Base, A.Base, W.Whole->getType(),
                            A.Whole->getType(), AST)) {
          return false;
        }
      }
      // A scalar the nest reads could be the written element itself,
      // unless it is a local whose address the function never takes.
      for (const VarDecl *V : Scan.ScalarReads)
        if (mayAlias(W.Base, V, W.Whole->getType(),
                     V->getType().getNonReferenceType(), AST) &&
            !(V->isLocalVarDeclOrParm() && !V->getType()->isReferenceType() &&
              !V->isStaticLocal() && !hasAliases(V, FunctionBody)))
          return false;
    }
    return strideGain(Scan.Accesses, I, J) > 0;
  }

  /// The body of the function around \p S.
  static const Stmt *enclosingBody(ASTContext &AST, const Stmt *S) {
    const FunctionDecl *FD = enclosingFunction(AST, S);
    return FD ? FD->getBody() : S;
  }

  /// How many more of \p Accesses walk memory in order with \p Outer's
  /// counter innermost than with \p Inner's: unit-stride where the counter
  /// is the last subscript, strided where it indexes an earlier one.
  static int strideGain(llvm::ArrayRef<Access> Accesses, const VarDecl *Outer,
                        const VarDecl *Inner) {
    auto Cost = [&](const VarDecl *Innermost) {
      int Strided = 0, UnitStride = 0;
      for (const Access &A : Accesses) {
        if (A.Subscripts.size() < 2)
          continue;
        if (counterNamed(A.Subscripts.back()) == Innermost) {
          ++UnitStride;
          continue;
        }
        for (size_t K = 0; K + 1 < A.Subscripts.size(); ++K)
          if (countReferences(Innermost, A.Subscripts[K])) {
            ++Strided;
            break;
          }
      }
      return std::make_pair(Strided, UnitStride);
    };
    auto [StridedNow, UnitNow] = Cost(Inner);
    auto [StridedSwapped, UnitSwapped] = Cost(Outer);
    if (StridedSwapped < StridedNow)
      return StridedNow - StridedSwapped;
    if (StridedSwapped == StridedNow && UnitSwapped > UnitNow)
      return UnitSwapped - UnitNow;
    return 0;
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createLoopInterchangeRule() {
  return std::make_unique<LoopInterchangeRule>();
}
