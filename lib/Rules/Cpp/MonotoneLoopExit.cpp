//===-- MonotoneLoopExit.cpp - Leave a loop once its guard fails for good
//--===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A counting loop whose body only does something while a bound holds:
//
//   for (int z = 1; z <= 100; z++) {
//     long long v = x * x + y * y + z * z + x * y;
//     if (v <= n) count[v]++;
//   }
//
// When the guarded value only grows with the loop variable (a sum of
// products of non-negative terms that grow with it) and the other side does
// not change in the loop, the guard once false stays false: the remaining
// iterations do nothing. `if (v > n) break;` ends the loop there, which
// turns brute-force enumerations into ones bounded by the answer.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"

using namespace maxcode;
using namespace clang;

namespace {

/// A `for (T z = A; z < B; ++z)` loop: its variable, and whether the start
/// is known to be at least 0.
struct Counter {
  const VarDecl *Var = nullptr;
  bool NonNegativeStart = false;
};

std::optional<Counter> counterOf(const ForStmt *F, ASTContext &AST) {
  const auto *Init = dyn_cast_or_null<DeclStmt>(F->getInit());
  const auto *V = Init && Init->isSingleDecl()
                      ? dyn_cast<VarDecl>(Init->getSingleDecl())
                      : nullptr;
  if (!V || !V->getType()->isIntegerType() || !V->getInit() || !F->getInc())
    return std::nullopt;
  const Expr *Inc = F->getInc()->IgnoreParenImpCasts();
  bool Increases = false;
  if (const auto *U = dyn_cast<UnaryOperator>(Inc))
    Increases = U->isIncrementOp();
  else if (const auto *C = dyn_cast<CompoundAssignOperator>(Inc))
    Increases = C->getOpcode() == BO_AddAssign &&
                integerValue(C->getRHS(), AST).value_or(0) > 0;
  const Expr *Target = isa<UnaryOperator>(Inc)
                           ? cast<UnaryOperator>(Inc)->getSubExpr()
                       : isa<CompoundAssignOperator>(Inc)
                           ? cast<CompoundAssignOperator>(Inc)->getLHS()
                           : nullptr;
  const auto *TD =
      Target ? dyn_cast<DeclRefExpr>(Target->IgnoreParenImpCasts()) : nullptr;
  if (!Increases || !TD || TD->getDecl() != V)
    return std::nullopt;
  Counter C;
  C.Var = V;
  std::optional<int64_t> Start = integerValue(V->getInit(), AST);
  C.NonNegativeStart =
      (Start && *Start >= 0) || V->getType()->isUnsignedIntegerType();
  return C;
}

/// What the loops around (and including) the guard know: counters that
/// start non-negative and only grow.
class Monotonicity {
public:
  Monotonicity(ASTContext &AST, const ForStmt *Inner) : AST(AST) {
    // The enclosing counters whose bodies do not change them.
    for (const Stmt *S = Inner; S; S = parentStmt(AST, S))
      if (const auto *F = dyn_cast<ForStmt>(S))
        if (std::optional<Counter> C = counterOf(F, AST))
          if (C->NonNegativeStart && !isMutatedIn(C->Var, F->getBody(), AST))
            NonNegative.insert(C->Var);
    if (std::optional<Counter> C = counterOf(Inner, AST))
      Var = C->Var;
    Body = Inner->getBody();
  }

  /// \p E is at least 0 wherever the guard runs.
  bool nonNegative(const Expr *E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *L = dyn_cast<IntegerLiteral>(E))
      return !L->getValue().isNegative();
    if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
      const auto *V = dyn_cast<VarDecl>(D->getDecl());
      if (!V)
        return false;
      if (NonNegative.count(V) || V->getType()->isUnsignedIntegerType())
        return true;
      if (const Expr *Def = localDefinition(V))
        return nonNegative(Def);
      return false;
    }
    if (const auto *B = dyn_cast<BinaryOperator>(E))
      return (B->getOpcode() == BO_Add || B->getOpcode() == BO_Mul) &&
             nonNegative(B->getLHS()) && nonNegative(B->getRHS());
    return false;
  }

  /// \p E does not decrease as the counter grows, and does not change
  /// otherwise during the loop.
  bool nonDecreasing(const Expr *E) {
    E = E->IgnoreParenImpCasts();
    if (isa<IntegerLiteral>(E))
      return true;
    if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
      const auto *V = dyn_cast<VarDecl>(D->getDecl());
      if (!V)
        return false;
      if (V == Var)
        return true;
      if (const Expr *Def = localDefinition(V))
        return nonDecreasing(Def);
      return isInvariant(V);
    }
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      if (B->getOpcode() == BO_Add)
        return nonDecreasing(B->getLHS()) && nonDecreasing(B->getRHS());
      if (B->getOpcode() == BO_Mul)
        return nonDecreasing(B->getLHS()) && nonDecreasing(B->getRHS()) &&
               nonNegative(B->getLHS()) && nonNegative(B->getRHS());
    }
    return false;
  }

  /// \p E does not change while the loop runs.
  bool invariant(const Expr *E) {
    E = E->IgnoreParenImpCasts();
    if (!isSimpleSideEffectFree(E, AST))
      return false;
    for (const VarDecl *V : referencedVars(E))
      if (V == Var || localDefinition(V) || !isInvariant(V))
        return false;
    return true;
  }

  /// The variables defined at the top of the body from the counter.
  llvm::DenseMap<const VarDecl *, const Expr *> Locals;

private:
  const Expr *localDefinition(const VarDecl *V) {
    auto It = Locals.find(V);
    return It == Locals.end() ? nullptr : It->second;
  }
  bool isInvariant(const VarDecl *V) {
    return V != Var && !V->getType()->isReferenceType() &&
           !V->getType().isVolatileQualified() &&
           (V->isLocalVarDeclOrParm() || V->getType().isConstQualified()) &&
           !isMutatedIn(V, Body, AST);
  }

  ASTContext &AST;
  const VarDecl *Var = nullptr;
  const Stmt *Body = nullptr;
  llvm::SmallPtrSet<const VarDecl *, 4> NonNegative;
};

class MonotoneLoopExitRule : public Rule {
public:
  MonotoneLoopExitRule()
      : Rule("monotone-loop-exit",
             "break out of a counting loop once a bound on a value that only "
             "grows with the counter fails",
             "early exit") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      FunctionEdit E(makeEdit("", 55), Ctx, FD);
      for (const Stmt *S : loopsIn(FD->getBody())) {
        const auto *For = dyn_cast<ForStmt>(S);
        if (!For || !counterOf(For, AST))
          continue;
        const IfStmt *If = guardOf(For, AST);
        if (!If)
          continue;
        if (std::optional<std::string> Text = rewrite(Ctx, If))
          E.replace(If->getBeginLoc(), statementRange(Ctx, If), *Text);
      }
      E.addTo(Out, "break out of loops once their guard fails for good");
    }
  }

private:
  /// The loop's guard, `if (v <= n) ...` as the last statement of its body
  /// after declarations only, with its replacement text.
  static const IfStmt *guardOf(const ForStmt *For, ASTContext &AST) {
    std::vector<const Stmt *> Stmts;
    if (const auto *CS = dyn_cast<CompoundStmt>(For->getBody()))
      Stmts.assign(CS->body_begin(), CS->body_end());
    else
      return nullptr; // The if must stay inside braces with its break.
    if (Stmts.empty())
      return nullptr;
    const auto *If = dyn_cast<IfStmt>(Stmts.back());
    if (!If || If->getElse() || If->getInit() || If->getConditionVariable() ||
        If->isConstexpr())
      return nullptr;
    // The loop runs its condition and increment for nothing once broken
    // out of: they must not do anything else, nor the body move the
    // counter.
    std::optional<Counter> C = counterOf(For, AST);
    if (!C || !For->getCond() || !isSimpleSideEffectFree(For->getCond(), AST) ||
        isMutatedIn(C->Var, For->getBody(), AST))
      return nullptr;
    Monotonicity M(AST, For);
    for (const Stmt *S : llvm::ArrayRef(Stmts).drop_back()) {
      const auto *DS = dyn_cast<DeclStmt>(S);
      if (!DS)
        return nullptr;
      for (const Decl *D : DS->decls()) {
        const auto *V = dyn_cast<VarDecl>(D);
        if (!V || !V->getInit() || !V->getType()->isIntegerType() ||
            !isSimpleSideEffectFree(V->getInit(), AST) ||
            isMutatedIn(V, For->getBody(), AST))
          return nullptr;
        M.Locals[V] = V->getInit();
      }
    }
    // `grows <= bound` or `bound >= grows` (and the strict forms).
    const auto *Cmp =
        dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
    if (!Cmp)
      return nullptr;
    const Expr *Grows = nullptr, *Bound = nullptr;
    BinaryOperatorKind Op = Cmp->getOpcode();
    if (Op == BO_LE || Op == BO_LT) {
      Grows = Cmp->getLHS();
      Bound = Cmp->getRHS();
    } else if (Op == BO_GE || Op == BO_GT) {
      Grows = Cmp->getRHS();
      Bound = Cmp->getLHS();
    } else {
      return nullptr;
    }
    if (!M.nonDecreasing(Grows) || !M.invariant(Bound))
      return nullptr;
    // The guarded statement must not change what the guard reads.
    for (const VarDecl *V : referencedVars(If->getCond()))
      if (isMutatedIn(V, If->getThen(), AST))
        return nullptr;
    return If;
  }

  /// `if (v <= n) S` -> `if (v > n) break; S`.
  static std::optional<std::string> rewrite(const RuleContext &Ctx,
                                            const IfStmt *If) {
    const auto *Cmp =
        cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
    std::string L = Ctx.getSourceText(Cmp->getLHS()).str();
    std::string R = Ctx.getSourceText(Cmp->getRHS()).str();
    if (L.empty() || R.empty())
      return std::nullopt;
    const char *Negated = Cmp->getOpcode() == BO_LE   ? ">"
                          : Cmp->getOpcode() == BO_LT ? ">="
                          : Cmp->getOpcode() == BO_GE ? "<"
                                                      : "<=";
    std::string Then;
    if (const auto *CS = dyn_cast<CompoundStmt>(If->getThen())) {
      if (!CS->body_empty()) {
        auto Inner = statementsRange(Ctx, CS->body_front(), CS->body_back());
        if (!Inner)
          return std::nullopt;
        Then = Ctx.getText(*Inner).str();
      }
    } else {
      auto Inner = statementRange(Ctx, If->getThen());
      if (!Inner)
        return std::nullopt;
      Then = Ctx.getText(*Inner).str();
    }
    return "if (" + L + " " + Negated + " " + R + ")\nbreak;\n" + Then;
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createMonotoneLoopExitRule() {
  return std::make_unique<MonotoneLoopExitRule>();
}
