//===-- AccumulateInLocal.cpp - Reductions into memory kept in a local ----===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `for (...) total_ += a[i];` with `total_` a member, a global, a reference
// or an element through a pointer: the compiler must assume that the loop's
// other memory accesses may reach it, so every iteration loads and stores it
// (a dependence through memory, several cycles per iteration) and the loop is
// not vectorised. The rule reads it once into a local before the loop, uses
// the local in the loop, and stores it once after: the same operations in the
// same order, in a register.
//
// It is sound when nothing else in the loop reaches the location: no store
// that may alias it (other than to a distinct named object or member, or to a
// type it cannot alias), no call that writes memory, no way out of the loop
// that skips the store after it (return, goto, throw, a call that does not
// return), and, for a location reached through a pointer or an index, an
// access to it right before the loop, so that reading it before a loop that
// runs no iteration reads nothing the program did not. Reads of the same type
// through other pointers are taken not to reach it, as `restrict` would say;
// the harness's tests check the output.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"

using namespace maxcode;
using namespace clang;

namespace {

/// Where an lvalue lives: a root (a variable, or `this`) and the steps from
/// it (a field, an index, a dereference).
struct Location {
  enum class StepKind { Field, Index, Deref };
  struct Step {
    StepKind Kind;
    const FieldDecl *Field = nullptr;
    const Expr *Index = nullptr;
  };
  const VarDecl *Root = nullptr; ///< Null for `this`.
  llvm::SmallVector<Step, 4> Steps;
  /// Reached through a pointer or an index that may be invalid when the
  /// loop does not run (not `this`, not a reference).
  bool ThroughPointer = false;
};

/// True for types through which any object may be read or written.
bool isCharLike(QualType T) {
  T = T.getCanonicalType().getUnqualifiedType();
  return T->isCharType() || T->isStdByteType();
}

/// The location \p E designates, or none when it is not a chain of fields,
/// indexes and dereferences from a variable or `this`. Indexes must be free
/// of side effects.
std::optional<Location> locationOf(const Expr *E, ASTContext &AST) {
  E = E->IgnoreParenImpCasts();
  if (isa<CXXThisExpr>(E))
    return Location();
  if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(D->getDecl());
    if (!V)
      return std::nullopt;
    Location L;
    L.Root = V;
    return L;
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
    std::optional<Location> L;
    if (F)
      L = locationOf(ME->getBase(), AST);
    if (!L)
      return std::nullopt;
    if (ME->isArrow() &&
        !isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts())) {
      L->Steps.push_back({Location::StepKind::Deref});
      L->ThroughPointer = true;
    }
    L->Steps.push_back({Location::StepKind::Field, F});
    return L;
  }
  const Expr *Base = nullptr, *Index = nullptr;
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
    Base = AS->getBase();
    Index = AS->getIdx();
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    // An element of a standard vector, array, deque or string.
    const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee());
    if (Op->getOperator() != OO_Subscript || !MD || !isInStd(MD->getParent()) ||
        !callWritesNothing(Op, AST))
      return std::nullopt;
    Base = Op->getArg(0);
    Index = Op->getArg(1);
  } else if (const auto *U = dyn_cast<UnaryOperator>(E);
             U && U->getOpcode() == UO_Deref) {
    std::optional<Location> L = locationOf(U->getSubExpr(), AST);
    if (!L)
      return std::nullopt;
    L->Steps.push_back({Location::StepKind::Deref});
    L->ThroughPointer = true;
    return L;
  }
  if (!Base || !isSimpleSideEffectFree(Index, AST))
    return std::nullopt;
  std::optional<Location> L = locationOf(Base, AST);
  if (!L)
    return std::nullopt;
  L->Steps.push_back({Location::StepKind::Index, nullptr, Index});
  // Even an array's own element needs an index that is in bounds.
  L->ThroughPointer = true;
  return L;
}

/// True when the root of \p L is a named object (a non-reference variable),
/// reached without a pointer: distinct such roots are distinct objects.
bool isNamedObject(const Location &L) {
  return L.Root && !L.Root->getType()->isReferenceType() && !L.ThroughPointer;
}

/// True when \p A and \p B cannot overlap as far as their paths show.
bool disjoint(const Location &A, const Location &B, const ASTContext &AST) {
  if (A.Root != B.Root)
    return isNamedObject(A) && isNamedObject(B);
  for (size_t I = 0; I < A.Steps.size() && I < B.Steps.size(); ++I) {
    const Location::Step &SA = A.Steps[I], &SB = B.Steps[I];
    if (SA.Kind != SB.Kind)
      return false;
    if (SA.Kind == Location::StepKind::Field && SA.Field != SB.Field)
      return true;
    if (SA.Kind == Location::StepKind::Index &&
        !sameExpr(SA.Index, SB.Index, AST))
      return false;
  }
  // One is a prefix of the other (or they are the same): they overlap.
  return false;
}

/// A location updated in a loop that may live in a local instead.
struct Accumulator {
  const Expr *First = nullptr; ///< One occurrence, for its text and type.
  Location Where;
  std::vector<const Expr *> Occurrences;
};

/// The statements of a loop the rule refuses: ways out that would skip the
/// store after the loop, and code the analysis cannot see into.
bool hasUnsafeStatements(const Stmt *Loop, ASTContext &AST) {
  struct Finder : RecursiveASTVisitor<Finder> {
    ASTContext &AST;
    bool Found = false;
    explicit Finder(ASTContext &AST) : AST(AST) {}
    bool VisitStmt(Stmt *S) {
      if (isa<ReturnStmt>(S) || isa<GotoStmt>(S) || isa<IndirectGotoStmt>(S) ||
          isa<CXXThrowExpr>(S) || isa<CoreturnStmt>(S) || isa<LambdaExpr>(S) ||
          isa<BlockExpr>(S) || isa<AsmStmt>(S) || isa<StmtExpr>(S) ||
          isa<CXXNewExpr>(S) || isa<CXXDeleteExpr>(S) || isa<CXXTryStmt>(S) ||
          isa<CoroutineBodyStmt>(S))
        Found = true;
      if (const auto *C = dyn_cast<CallExpr>(S))
        Found |= !callWritesNothing(C, AST);
      if (const auto *C = dyn_cast<CXXConstructExpr>(S))
        Found |= !C->getConstructor()->isTrivial() &&
                 !isInStd(C->getConstructor()->getParent());
      return !Found;
    }
    bool VisitVarDecl(VarDecl *V) {
      // A local of a class whose destructor is user code.
      if (const auto *RD = V->getType()->getAsCXXRecordDecl())
        Found |=
            RD->hasDefinition() && !RD->hasTrivialDestructor() && !isInStd(RD);
      return !Found;
    }
  } F(AST);
  F.TraverseStmt(const_cast<Stmt *>(Loop));
  return F.Found;
}

/// The occurrences of \p X in \p Loop: the expressions that designate the
/// same location the same way.
std::vector<const Expr *> occurrencesOf(const Expr *X, const Stmt *Loop,
                                        const ASTContext &AST) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const Expr *X;
    const ASTContext &AST;
    std::vector<const Expr *> Found;
    Finder(const Expr *X, const ASTContext &AST) : X(X), AST(AST) {}
    bool TraverseStmt(Stmt *S) {
      const auto *E = dyn_cast_or_null<Expr>(S);
      if (E && !isa<ParenExpr>(E) && !isa<ImplicitCastExpr>(E) &&
          E->getStmtClass() == X->getStmtClass() && sameExpr(E, X, AST)) {
        Found.push_back(E);
        return true; // Not into it.
      }
      return RecursiveASTVisitor::TraverseStmt(S);
    }
  } F(X, AST);
  F.TraverseStmt(const_cast<Stmt *>(Loop));
  return F.Found;
}

/// True when \p S lies inside one of \p Within.
bool isInside(const Stmt *S, llvm::ArrayRef<const Expr *> Within,
              const SourceManager &SM) {
  return llvm::any_of(Within, [&](const Expr *E) {
    SourceRange R = E->getSourceRange();
    return !SM.isBeforeInTranslationUnit(S->getBeginLoc(), R.getBegin()) &&
           !SM.isBeforeInTranslationUnit(R.getEnd(), S->getEndLoc());
  });
}

/// The largest lvalue expression around \p E that is still a path from its
/// root: `s.a.b` from `s`, `p[i]` from `p`.
const Expr *widestAccess(const Expr *E, ASTContext &AST) {
  for (;;) {
    const Stmt *P = parentStmt(AST, E);
    if (!P)
      return E;
    if (const auto *C = dyn_cast<ImplicitCastExpr>(P);
        C && (C->getCastKind() == CK_NoOp ||
              C->getCastKind() == CK_ArrayToPointerDecay ||
              (C->getCastKind() == CK_LValueToRValue &&
               E->getType()->isPointerType()))) {
      E = C;
      continue;
    }
    if (isa<ParenExpr>(P) ||
        (isa<MemberExpr>(P) && cast<MemberExpr>(P)->getBase() == E) ||
        (isa<ArraySubscriptExpr>(P) &&
         cast<ArraySubscriptExpr>(P)->getBase() == E) ||
        (isa<UnaryOperator>(P) &&
         cast<UnaryOperator>(P)->getOpcode() == UO_Deref) ||
        (isa<CXXOperatorCallExpr>(P) &&
         cast<CXXOperatorCallExpr>(P)->getOperator() == OO_Subscript &&
         cast<CXXOperatorCallExpr>(P)->getArg(0)->IgnoreParenImpCasts() ==
             E->IgnoreParenImpCasts())) {
      E = cast<Expr>(P);
      continue;
    }
    return E;
  }
}

/// True when every other access in \p Loop to the root of \p A is to a part
/// its path shows distinct, every store in the loop other than to \p A cannot
/// reach it, and the variables of its indexes and pointers do not change.
bool isAlone(const Accumulator &A, const Stmt *Loop, const FunctionDecl *FD,
             ASTContext &AST) {
  const SourceManager &SM = AST.getSourceManager();
  QualType Type = A.First->getType().getCanonicalType().getUnqualifiedType();
  bool Ok = true;
  forEachStore(Loop, [&](const Expr *Target) {
    if (!Ok || isInside(Target, A.Occurrences, SM))
      return;
    std::optional<Location> L = locationOf(Target, AST);
    if (!L) {
      Ok = false;
      return;
    }
    // A local nothing points to is no alias of anything.
    if (L->Root && L->Root->isLocalVarDecl() && !L->ThroughPointer &&
        !L->Root->getType()->isReferenceType() &&
        !hasAliases(L->Root, FD->getBody()))
      return;
    if (!disjoint(*L, A.Where, AST)) {
      QualType T = Target->getType().getCanonicalType().getUnqualifiedType();
      // Different roots whose types cannot alias (`int` and `double`).
      bool Typed = L->Root != A.Where.Root && T->isScalarType() &&
                   !isCharLike(T) && !isCharLike(Type) &&
                   !AST.hasSameUnqualifiedType(
                       T->isIntegerType() && !T->isEnumeralType()
                           ? AST.getCorrespondingUnsignedType(T)
                           : T,
                       Type->isIntegerType() && !Type->isEnumeralType()
                           ? AST.getCorrespondingUnsignedType(Type)
                           : Type);
      Ok = Typed;
    }
  });
  if (!Ok)
    return false;
  // Other uses of the root: reads of distinct parts only.
  struct Finder : RecursiveASTVisitor<Finder> {
    const Accumulator &A;
    ASTContext &AST;
    bool Ok = true;
    Finder(const Accumulator &A, ASTContext &AST) : A(A), AST(AST) {}
    void check(const Expr *E) {
      if (isInside(E, A.Occurrences, AST.getSourceManager()))
        return;
      std::optional<Location> L = locationOf(widestAccess(E, AST), AST);
      Ok &= L && disjoint(*L, A.Where, AST);
    }
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      if (A.Where.Root && D->getDecl() == A.Where.Root)
        check(D);
      return Ok;
    }
    bool VisitCXXThisExpr(CXXThisExpr *T) {
      if (!A.Where.Root)
        check(T);
      return Ok;
    }
  } F(A, AST);
  F.TraverseStmt(const_cast<Stmt *>(Loop));
  if (!F.Ok)
    return false;
  // The indexes' variables, and a pointer the path starts from, keep their
  // values through the loop.
  ExprMutationAnalyzer Analyzer(*Loop, AST);
  for (const VarDecl *V : referencedVars(A.First)) {
    bool IsObject = V == A.Where.Root && !V->getType()->isPointerType();
    if (!IsObject && Analyzer.isMutated(V))
      return false;
  }
  return true;
}

/// For a location reached through a pointer or an index: true when a
/// statement before \p Loop in its block assigns it, with nothing between
/// that changes the variables of its path. Reading it before a loop that may
/// run no iteration is then no new access.
bool isAccessedBefore(const Accumulator &A, const Stmt *Loop, ASTContext &AST) {
  const CompoundStmt *Block = compoundParent(AST, Loop);
  if (!Block)
    return false;
  auto Vars = referencedVars(A.First);
  const Stmt *Prev = nullptr;
  std::vector<const Stmt *> Before;
  for (const Stmt *S : Block->body()) {
    if (S == Loop)
      break;
    Before.push_back(S);
  }
  for (auto It = Before.rbegin(); It != Before.rend(); ++It) {
    Prev = *It;
    const Expr *E = dyn_cast<Expr>(Prev);
    if (const auto *EWC = dyn_cast_or_null<ExprWithCleanups>(E))
      E = EWC->getSubExpr();
    if (const auto *B = dyn_cast_or_null<BinaryOperator>(E);
        B && B->isAssignmentOp() && sameExpr(B->getLHS(), A.First, AST))
      return true;
    for (const VarDecl *V : Vars)
      if (isMutatedIn(V, Prev, AST))
        return false;
  }
  return false;
}

class AccumulateInLocalRule : public Rule {
public:
  AccumulateInLocalRule()
      : Rule("accumulate-in-local",
             "a sum or count kept in memory (a member, a global, a "
             "reference, an element) and updated in a loop accumulated in a "
             "local, stored once after the loop",
             "local accumulator") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      FunctionEdit E(makeEdit("", 50), Ctx, FD);
      unsigned Made = 0;
      std::vector<std::string> What;
      for (const Stmt *Loop : loopsIn(FD->getBody())) {
        // A loop under a pragma may be parallel (`#pragma omp parallel for
        // reduction(+ : sum)`): its accumulator is the pragma's business.
        if (followsPragma(Ctx, Loop) || hasUnsafeStatements(Loop, AST))
          continue;
        // One line before the loop and one after for all of its
        // accumulators: two insertions at one place would conflict.
        std::vector<const Accumulator *> Taken;
        std::vector<std::string> Texts, Names;
        std::vector<Accumulator> Found = accumulatorsIn(Loop, AST);
        for (const Accumulator &A : Found) {
          if (!isAlone(A, Loop, FD, AST) ||
              (A.Where.ThroughPointer && !isAccessedBefore(A, Loop, AST)))
            continue;
          auto XR = Ctx.getEditRange(A.First->getSourceRange());
          if (!XR)
            continue;
          unsigned N = Made + Taken.size();
          Taken.push_back(&A);
          Texts.push_back(Ctx.getText(*XR).str());
          Names.push_back(Ctx.getFreshName(
              N == 0 ? std::string("Acc") : "Acc" + std::to_string(N + 1)));
        }
        if (Taken.empty())
          continue;
        std::string Before, After;
        for (size_t I = 0; I < Taken.size(); ++I) {
          // C has no `auto` (before C23): the type is written out there.
          std::string Type =
              AST.getLangOpts().CPlusPlus11
                  ? std::string("auto")
                  : Taken[I]->First->getType().getUnqualifiedType().getAsString(
                        AST.getPrintingPolicy());
          Before += (I ? "\n" : "") +
                    (Type + " " + Names[I] + " = " + Texts[I] + ";");
          After += (I ? "\n" : "") + (Texts[I] + " = " + Names[I] + ";");
        }
        bool Kept = E.tryChange(Loop->getBeginLoc(), [&](RuleEdit &T) {
          for (size_t I = 0; I < Taken.size(); ++I)
            for (const Expr *O : Taken[I]->Occurrences) {
              auto R = Ctx.getEditRange(O->getSourceRange());
              if (!R || !addReplacement(T, Ctx, *R, Names[I]))
                return false;
            }
          return wrapLoop(T, Ctx, Loop, Before, After);
        });
        if (Kept) {
          Made += Taken.size();
          What.insert(What.end(), Texts.begin(), Texts.end());
        }
      }
      if (What.empty())
        continue;
      std::string List;
      for (const std::string &W : What)
        List += (List.empty() ? "" : ", ") + W;
      E.addTo(Out, "accumulate " + List +
                       (What.size() > 1 ? " in locals" : " in a local"));
    }
  }

private:
  /// The locations stored to in \p Loop that may become locals: arithmetic,
  /// not volatile, not a bit-field, not a plain local (already one).
  static std::vector<Accumulator> accumulatorsIn(const Stmt *Loop,
                                                 ASTContext &AST) {
    std::vector<Accumulator> Found;
    forEachStore(Loop, [&](const Expr *Target) {
      QualType T = Target->getType();
      if (!T->isArithmeticType() || T.isVolatileQualified() ||
          T->isAtomicType() || T.isConstQualified() ||
          Target->refersToBitField())
        return;
      if (llvm::any_of(Found, [&](const Accumulator &A) {
            return sameExpr(A.First, Target, AST);
          }))
        return;
      std::optional<Location> L = locationOf(Target, AST);
      if (!L || (L->Root && L->Root->isLocalVarDecl() && !L->ThroughPointer &&
                 !L->Root->getType()->isReferenceType()))
        return;
      if (L->Root && L->Root->getType().isVolatileQualified())
        return;
      Accumulator A;
      A.First = Target;
      A.Where = std::move(*L);
      A.Occurrences = occurrencesOf(Target, Loop, AST);
      Found.push_back(std::move(A));
    });
    return Found;
  }

  /// Puts \p Before on a line before \p Loop and \p After on one after it,
  /// in a new block when the loop is not a statement of one.
  static bool wrapLoop(RuleEdit &T, const RuleContext &Ctx, const Stmt *Loop,
                       const std::string &Before, const std::string &After) {
    auto LoopR = statementRange(Ctx, Loop);
    if (!LoopR)
      return false;
    if (compoundParent(Ctx.getASTContext(), Loop) &&
        startsLine(Ctx, LoopR->getBegin()))
      return insertLineBefore(T, Ctx, Loop, Before) &&
             insertText(T, Ctx, LoopR->getEnd(), "\n" + After);
    return insertText(T, Ctx, LoopR->getBegin(), "{\n" + Before + "\n") &&
           insertText(T, Ctx, LoopR->getEnd(), "\n" + After + "\n}");
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createAccumulateInLocalRule() {
  return std::make_unique<AccumulateInLocalRule>();
}
