//===-- SubstrCompare.cpp - Comparisons with substr() to compare() --------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `a == s.substr(i, n)` builds a temporary string (an allocation when it is
// long) to compare it once; `s.compare(i, n, a) == 0` compares in place with
// the same result.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace maxcode;
using namespace clang;
using namespace clang::ast_matchers;

namespace {

const Expr *skipTemporaries(const Expr *E) {
  while (true) {
    const Expr *Next = E->IgnoreParenImpCasts();
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(Next))
      Next = M->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(Next))
      Next = B->getSubExpr();
    else if (const auto *C = dyn_cast<CXXConstructExpr>(Next);
             C && C->getNumArgs() == 1 &&
             C->getConstructor()->isCopyOrMoveConstructor())
      Next = C->getArg(0);
    if (Next == E)
      return E;
    E = Next;
  }
}

/// `s.substr(...)` on a std::string.
const CXXMemberCallExpr *asSubstr(const Expr *E) {
  const auto *Call = dyn_cast<CXXMemberCallExpr>(skipTemporaries(E));
  if (!Call || !Call->getMethodDecl() ||
      !Call->getMethodDecl()->getIdentifier() ||
      Call->getMethodDecl()->getName() != "substr" ||
      !isStdString(Call->getImplicitObjectArgument()->getType()))
    return nullptr;
  return Call;
}

class SubstrCompareRule : public Rule {
public:
  SubstrCompareRule()
      : Rule("substr-compare",
             "comparisons with s.substr(i, n) to s.compare(i, n, ...) "
             "(no temporary string)",
             "compare in place") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    auto Cmp = cxxOperatorCallExpr(hasAnyOverloadedOperatorName("==", "!="),
                                   argumentCountIs(2))
                   .bind("node");
    replaceEachMatch<CXXOperatorCallExpr>(
        Ctx, makeEdit("", 45), Cmp,
        [&](const CXXOperatorCallExpr *Op) { return rewrite(Ctx, Op); },
        "substr comparison -> compare", Out);
  }

private:
  static std::string textOf(const RuleContext &Ctx, const Expr *E) {
    auto R = Ctx.getEditRange(E->getSourceRange());
    return R ? Ctx.getText(*R).str() : "";
  }

  static std::string lengthOf(const RuleContext &Ctx,
                              const CXXMemberCallExpr *Sub) {
    return Sub->getNumArgs() == 2 && !isa<CXXDefaultArgExpr>(Sub->getArg(1))
               ? textOf(Ctx, Sub->getArg(1))
               : "std::string::npos";
  }

  static std::string rewrite(const RuleContext &Ctx,
                             const CXXOperatorCallExpr *Op) {
    const Expr *L = Op->getArg(0), *R = Op->getArg(1);
    const CXXMemberCallExpr *Sub = asSubstr(L);
    const Expr *Other = R;
    if (!Sub) {
      Sub = asSubstr(R);
      Other = L;
    }
    if (!Sub || Sub->getNumArgs() < 1 || Sub->getNumArgs() > 2)
      return "";
    // The comparison must be std::string's own operator.
    const FunctionDecl *Callee = Op->getDirectCallee();
    if (!Callee || !Callee->isInStdNamespace())
      return "";
    std::string Object = textOf(Ctx, Sub->getImplicitObjectArgument());
    std::string Pos = textOf(Ctx, Sub->getArg(0));
    std::string Len = lengthOf(Ctx, Sub);
    if (Object.empty() || Pos.empty() || Len.empty())
      return "";
    std::string Rhs;
    if (const CXXMemberCallExpr *OtherSub = asSubstr(Other)) {
      std::string O = textOf(Ctx, OtherSub->getImplicitObjectArgument());
      std::string OPos = textOf(Ctx, OtherSub->getArg(0));
      std::string OLen = lengthOf(Ctx, OtherSub);
      if (O.empty() || OPos.empty() || OLen.empty())
        return "";
      Rhs = O + ", " + OPos + ", " + OLen;
    } else {
      QualType T = Other->IgnoreParenImpCasts()->getType();
      if (!isStdString(T) && !T->isPointerType() && !T->isArrayType())
        return "";
      Rhs = textOf(Ctx, Other->IgnoreImpCasts());
      if (Rhs.empty())
        return "";
    }
    const auto *ME =
        dyn_cast<MemberExpr>(Sub->getCallee()->IgnoreParenImpCasts());
    bool Arrow = ME && ME->isArrow();
    return "(" + Object + (Arrow ? "->" : ".") + "compare(" + Pos + ", " + Len +
           ", " + Rhs + ")" +
           (Op->getOperator() == OO_EqualEqual ? " == 0" : " != 0") + ")";
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createSubstrCompareRule() {
  return std::make_unique<SubstrCompareRule>();
}
