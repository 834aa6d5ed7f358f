//===-- BranchToSelect.cpp - A branch that only picks a value -------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Inside a loop, a branch whose arms only choose what a variable becomes
//
//   if (a[i] > t) ++count;            count += (a[i] > t);
//   if (v < lo) lo = v;               lo = (v < lo) ? v : lo;
//   if (c) x = p; else x = q;         x = (c) ? p : q;
//
// costs a mispredicted jump each time the data decides it anew (the CPU
// evidence's "mispredict-bound"), where a select (a conditional move, or a
// blend once vectorised) costs a cycle. Compilers if-convert some of these
// themselves; not where their cost model or aliasing says no.
//
// Both arms then run whatever the condition says, so they must be safe to
// run when the original would not have: plain values (literals, local
// variables and parameters, their fields), no memory through an index or a
// pointer (`if (i < n) x = a[i]` reads past the end), no arithmetic that may
// overflow or trap, no call. A variable written in one arm only (forms 1 and
// 3) must be a local of its own, so that storing its old value back is no
// new store anyone sees; an increment only for integers (adding a 0.0 to
// -0.0 makes +0.0). The arms' types must not change a value on the way
// through the conditional's common type (a negative int beside an unsigned).
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace maxcode;
using namespace clang;

namespace {

/// Whether \p E may run when the original would not have: a literal, an
/// enumerator, a non-volatile variable that is no reference, a field of
/// one (`.`), or a conversion of those that cannot be undefined.
bool isSafeToSpeculate(const Expr *E) {
  E = E->IgnoreParens();
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(E)) {
    if (IC->getCastKind() == CK_FloatingToIntegral)
      return false; // Undefined out of range.
    return isSafeToSpeculate(IC->getSubExpr());
  }
  if (isa<IntegerLiteral, FloatingLiteral, CharacterLiteral,
          CXXBoolLiteralExpr>(E))
    return true;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (isa<EnumConstantDecl>(DRE->getDecl()))
      return true;
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    return V && !V->getType()->isReferenceType() &&
           !V->getType().isVolatileQualified() && V->isLocalVarDeclOrParm();
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return !ME->isArrow() && isa<FieldDecl>(ME->getMemberDecl()) &&
           isSafeToSpeculate(ME->getBase());
  return false;
}

/// A local variable of its own (not static, not a reference, not
/// volatile): storing its old value back is no store anyone else sees.
const VarDecl *ownLocal(const Expr *E) {
  const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V || !V->isLocalVarDeclOrParm() || V->isStaticLocal() ||
      V->getType()->isReferenceType() || V->getType().isVolatileQualified() ||
      !V->getType()->isScalarType())
    return nullptr;
  return V;
}

/// Whether `C ? A : B` gives each arm's value unchanged before it is
/// converted to where it goes: the same type, an integer literal that the
/// other integer arm holds, or two floating types (the narrower widens
/// exactly).
bool sameThroughConditional(const Expr *A, const Expr *B, ASTContext &AST) {
  const Expr *SA = A->IgnoreParenImpCasts(), *SB = B->IgnoreParenImpCasts();
  QualType TA = SA->getType().getCanonicalType().getUnqualifiedType();
  QualType TB = SB->getType().getCanonicalType().getUnqualifiedType();
  if (TA == TB)
    return TA->isScalarType();
  if (TA->isRealFloatingType() && TB->isRealFloatingType())
    return true;
  auto FitsLiteral = [&](const Expr *Lit, QualType Other) {
    const auto *IL = dyn_cast<IntegerLiteral>(Lit);
    if (!IL || !Other->isIntegerType() || Other->isBooleanType())
      return false;
    llvm::APInt V = IL->getValue();
    unsigned Width = AST.getIntWidth(Other);
    return V.getActiveBits() <
           (Other->isSignedIntegerType() ? Width : Width + 1);
  };
  return FitsLiteral(SA, TB) || FitsLiteral(SB, TA);
}

/// A plain assignment `X = A` (no class's operator=).
const BinaryOperator *assignment(const Stmt *S) {
  const auto *BO = dyn_cast_or_null<BinaryOperator>(S);
  return BO && BO->getOpcode() == BO_Assign ? BO : nullptr;
}

class BranchToSelectRule : public Rule {
public:
  BranchToSelectRule()
      : Rule("branch-to-select",
             "a branch in a loop that only picks a variable's value becomes a "
             "select (?:), with arms safe to run either way",
             "branch to select") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      FunctionEdit E(makeEdit("", 45), Ctx, FD);
      llvm::SmallPtrSet<const IfStmt *, 8> Done;
      for (const Stmt *Loop : loopsIn(FD->getBody()))
        for (const IfStmt *If : ifsIn(Loop))
          if (Done.insert(If).second)
            if (std::optional<std::string> Text = rewrite(Ctx, If))
              E.replace(If->getBeginLoc(), statementRange(Ctx, If), *Text);
      E.addTo(Out, "branches that only pick a value as selects");
    }
  }

private:
  /// The if statements in \p Loop's body, at any depth.
  static std::vector<const IfStmt *> ifsIn(const Stmt *Loop) {
    struct Finder : RecursiveASTVisitor<Finder> {
      bool VisitIfStmt(IfStmt *If) {
        Found.push_back(If);
        return true;
      }
      bool TraverseLambdaExpr(LambdaExpr *) { return true; }
      std::vector<const IfStmt *> Found;
    } F;
    const Stmt *Body = loopBody(Loop);
    if (Body)
      F.TraverseStmt(const_cast<Stmt *>(Body));
    return F.Found;
  }

  /// The select that replaces \p If, or none.
  static std::optional<std::string> rewrite(const RuleContext &Ctx,
                                            const IfStmt *If) {
    ASTContext &AST = Ctx.getASTContext();
    if (If->getInit() || If->getConditionVariable() || If->isConstexpr() ||
        If->isConsteval() || If->getBeginLoc().isMacroID())
      return std::nullopt;
    const Expr *Cond = If->getCond();
    if (Cond->HasSideEffects(AST, /*IncludePossibleEffects=*/true))
      return std::nullopt;
    std::string C = Ctx.getSourceText(Cond).str();
    if (C.empty())
      return std::nullopt;
    const Stmt *Then = onlyStatement(If->getThen());
    const Stmt *Else = If->getElse() ? onlyStatement(If->getElse()) : nullptr;
    if (!Then || (If->getElse() && !Else) || isa_and_nonnull<IfStmt>(Else))
      return std::nullopt;
    auto Text = [&](const Expr *X) { return Ctx.getSourceText(X).str(); };
    auto Reads = [&](const Expr *X, const VarDecl *V) {
      return llvm::is_contained(referencedVars(X), V);
    };

    // if (C) X = A; else X = B;  ->  X = (C) ? A : B;
    if (Else) {
      const BinaryOperator *T = assignment(Then), *F = assignment(Else);
      if (!T || !F || !sameExpr(T->getLHS(), F->getLHS(), AST) ||
          !isSimpleSideEffectFree(T->getLHS(), AST) ||
          !T->getLHS()->getType()->isScalarType() ||
          !isSafeToSpeculate(T->getRHS()) || !isSafeToSpeculate(F->getRHS()) ||
          !sameThroughConditional(T->getRHS(), F->getRHS(), AST))
        return std::nullopt;
      std::string X = Text(T->getLHS()), A = Text(T->getRHS()),
                  B = Text(F->getRHS());
      if (X.empty() || A.empty() || B.empty())
        return std::nullopt;
      return X + " = (" + C + ") ? " + A + " : " + B + ";";
    }

    // if (C) X = A;  ->  X = (C) ? A : X;
    if (const BinaryOperator *T = assignment(Then)) {
      const VarDecl *V = ownLocal(T->getLHS());
      if (!V || !isSafeToSpeculate(T->getRHS()) ||
          !sameThroughConditional(T->getRHS(), T->getLHS(), AST))
        return std::nullopt;
      std::string X = Text(T->getLHS()), A = Text(T->getRHS());
      if (X.empty() || A.empty())
        return std::nullopt;
      return X + " = (" + C + ") ? " + A + " : " + X + ";";
    }

    // if (C) ++X;  ->  X += (C);   if (C) X += A;  ->  X += (C) ? A : 0;
    const Expr *Target = nullptr, *Amount = nullptr;
    const char *Op = nullptr;
    if (const auto *U = dyn_cast<UnaryOperator>(Then)) {
      if (!U->isIncrementDecrementOp())
        return std::nullopt;
      Target = U->getSubExpr();
      Op = U->isIncrementOp() ? "+=" : "-=";
    } else if (const auto *CA = dyn_cast<CompoundAssignOperator>(Then)) {
      BinaryOperatorKind K = CA->getOpcode();
      if (K != BO_AddAssign && K != BO_SubAssign && K != BO_OrAssign &&
          K != BO_XorAssign)
        return std::nullopt;
      Target = CA->getLHS();
      Amount = CA->getRHS();
      Op = K == BO_AddAssign   ? "+="
           : K == BO_SubAssign ? "-="
           : K == BO_OrAssign  ? "|="
                               : "^=";
    } else {
      return std::nullopt;
    }
    const VarDecl *V = ownLocal(Target);
    if (!V || !V->getType()->isIntegerType() || V->getType()->isBooleanType() ||
        Reads(Cond, V))
      return std::nullopt;
    std::string X = Text(Target);
    if (X.empty())
      return std::nullopt;
    if (!Amount)
      return X + " " + Op + " (" + C + ");";
    if (!Amount->getType()->isIntegerType() || !isSafeToSpeculate(Amount))
      return std::nullopt;
    std::string A = Text(Amount);
    if (A.empty())
      return std::nullopt;
    return X + " " + Op + " (" + C + ") ? " + A + " : 0;";
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createBranchToSelectRule() {
  return std::make_unique<BranchToSelectRule>();
}
