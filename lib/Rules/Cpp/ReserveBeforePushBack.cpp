//===-- ReserveBeforePushBack.cpp - reserve() before counted appends ------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A counted loop that appends to a local vector once per iteration grows it
// by reallocation, copying the elements each time the capacity doubles.
// `v.reserve(v.size() + count)` before the loop allocates once.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"

using namespace maxcode;
using namespace clang;

namespace {

/// `for (int i = A; i < B; ++i)` with A and B loop-invariant: the trip
/// count's text, `(B) - (A)`.
std::optional<std::string> tripCount(const RuleContext &Ctx, const ForStmt *F,
                                     ASTContext &AST) {
  const auto *Init = dyn_cast_or_null<DeclStmt>(F->getInit());
  if (!Init || !Init->isSingleDecl() || !F->getCond())
    return std::nullopt;
  const auto *I = dyn_cast<VarDecl>(Init->getSingleDecl());
  if (!I || !I->getInit() || !I->getType()->isIntegerType())
    return std::nullopt;
  const auto *Cond =
      dyn_cast<BinaryOperator>(F->getCond()->IgnoreParenImpCasts());
  if (!Cond || (Cond->getOpcode() != BO_LT && Cond->getOpcode() != BO_LE))
    return std::nullopt;
  const auto *LHS =
      dyn_cast<DeclRefExpr>(Cond->getLHS()->IgnoreParenImpCasts());
  if (!LHS || LHS->getDecl() != I)
    return std::nullopt;
  const Expr *Inc = F->getInc() ? F->getInc()->IgnoreParenImpCasts() : nullptr;
  const auto *U = dyn_cast_or_null<UnaryOperator>(Inc);
  if (!U || !U->isIncrementOp())
    return std::nullopt;
  const Expr *Bound = Cond->getRHS();
  if (!isSimpleSideEffectFree(Bound, AST) ||
      !isSimpleSideEffectFree(I->getInit(), AST))
    return std::nullopt;
  for (const VarDecl *V : referencedVars(Bound))
    if (V == I || isMutatedIn(V, F->getBody(), AST))
      return std::nullopt;
  std::string B = Ctx.getSourceText(Bound).str();
  std::string A = Ctx.getSourceText(I->getInit()).str();
  if (A.empty() || B.empty())
    return std::nullopt;
  std::string Count = "(" + B + ") - (" + A + ")";
  if (Cond->getOpcode() == BO_LE)
    Count += " + 1";
  return Count;
}

class ReserveBeforePushBackRule : public Rule {
public:
  ReserveBeforePushBackRule()
      : Rule("reserve-before-push-back",
             "reserve() before a counted loop that appends to a vector once "
             "per iteration",
             "reserve") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      FunctionEdit E(makeEdit("", 25), Ctx, FD);
      for (const Stmt *S : loopsIn(FD->getBody())) {
        const auto *For = dyn_cast<ForStmt>(S);
        if (!For || !compoundParent(AST, For))
          continue;
        std::optional<std::string> Trip = tripCount(Ctx, For, AST);
        if (!Trip)
          continue;
        // One push_back or emplace_back, unconditional, at the top of the
        // body, into a local vector used for nothing else in the loop.
        std::vector<const Stmt *> Top;
        if (const auto *Body = dyn_cast<CompoundStmt>(For->getBody()))
          Top.assign(Body->body_begin(), Body->body_end());
        else
          Top.push_back(For->getBody());
        const VarDecl *Vec = nullptr;
        unsigned Appends = 0;
        for (const Stmt *T : Top) {
          const auto *TE = dyn_cast_or_null<Expr>(T);
          const auto *MC =
              TE ? dyn_cast<CXXMemberCallExpr>(TE->IgnoreImplicit()) : nullptr;
          const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
          if (!MD || !MD->getIdentifier() ||
              (MD->getName() != "push_back" && MD->getName() != "emplace_back"))
            continue;
          const auto *RD = MD->getParent();
          if (!RD->getIdentifier() || RD->getName() != "vector" ||
              !RD->isInStdNamespace())
            continue;
          const auto *DRE = dyn_cast<DeclRefExpr>(
              MC->getImplicitObjectArgument()->IgnoreParenImpCasts());
          const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
          if (!V || !V->isLocalVarDecl() || V->getType()->isReferenceType() ||
              (Vec && Vec != V))
            continue;
          Vec = V;
          ++Appends;
        }
        if (!Vec || Appends != 1)
          continue;
        // Any other use of the vector in the loop (a nested loop, an inner
        // if) makes the count unsure.
        if (countReferences(Vec, For->getBody()) != 1)
          continue;
        std::string Name = Vec->getNameAsString();
        E.tryChange(For->getBeginLoc(), [&](RuleEdit &T) {
          return insertLineBefore(T, Ctx, For,
                                  "if (" + *Trip + " > 0)\n" + Name +
                                      ".reserve(" + Name + ".size() + (" +
                                      *Trip + "));");
        });
      }
      E.addTo(Out, "reserve before push_back loops");
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createReserveBeforePushBackRule() {
  return std::make_unique<ReserveBeforePushBackRule>();
}
