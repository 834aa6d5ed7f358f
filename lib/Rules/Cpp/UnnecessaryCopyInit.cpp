//===-- UnnecessaryCopyInit.cpp - Local copies to const references -------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// clang-tidy's performance-unnecessary-copy-initialization, as a variant
// that is measured before it is suggested: `std::string name = other;` or
// `auto row = grid.row(i);` copies what a const reference could read in
// place. Only where the copy cannot tell the difference: the local is never
// modified, and its source is a local variable or parameter the function
// never modifies either (directly, or through a const member returning a
// const reference), so the reference always reads the value the copy would
// have held, and its source outlives it.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace maxcode;
using namespace clang;
using namespace clang::ast_matchers;

namespace {

/// The local variable or parameter whose value \p Init copies: `other`, or
/// `obj.get()` / `obj[i]` through a const member that returns a const
/// reference, of \p T itself (not a derived class's object sliced); null
/// otherwise.
const VarDecl *copiedVariable(const Expr *Init, QualType T,
                              const ASTContext &AST) {
  const auto *Copy = dyn_cast<CXXConstructExpr>(Init->IgnoreImplicit());
  if (!Copy || Copy->getNumArgs() != 1 ||
      !Copy->getConstructor()->isCopyConstructor())
    return nullptr;
  const Expr *Source = Copy->getArg(0)->IgnoreImplicit()->IgnoreParens();
  if (!AST.hasSameUnqualifiedType(Source->getType(), T))
    return nullptr;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Source))
    return dyn_cast<VarDecl>(Ref->getDecl());
  const CXXMethodDecl *Method = nullptr;
  const Expr *Object = nullptr;
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(Source)) {
    Method = Call->getMethodDecl();
    Object = Call->getImplicitObjectArgument();
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Source)) {
    Method = dyn_cast_or_null<CXXMethodDecl>(Op->getCalleeDecl());
    Object = Op->getNumArgs() ? Op->getArg(0) : nullptr;
  }
  if (!Method || !Object || !Method->isConst())
    return nullptr;
  QualType R = Method->getReturnType();
  if (!R->isLValueReferenceType() || !R->getPointeeType().isConstQualified())
    return nullptr;
  if (const auto *Ref =
          dyn_cast<DeclRefExpr>(Object->IgnoreImplicit()->IgnoreParens()))
    return dyn_cast<VarDecl>(Ref->getDecl());
  return nullptr;
}

class UnnecessaryCopyInitRule : public Rule {
public:
  UnnecessaryCopyInitRule()
      : Rule("unnecessary-copy-init",
             "local copies of variables the function never modifies, never "
             "modified themselves, to const references "
             "(performance-unnecessary-copy-initialization)",
             "const & local") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      const Stmt *Body = FD->getBody();
      FunctionEdit E(makeEdit("", 35), Ctx, FD);
      for (const BoundNodes &N :
           match(findAll(declStmt(hasSingleDecl(
                     varDecl(hasLocalStorage(), hasInitializer(expr()))
                         .bind("var")))),
                 *Body, AST)) {
        const auto *V = N.getNodeAs<VarDecl>("var");
        if (isa<ParmVarDecl>(V) || !V->getTypeSourceInfo() ||
            V->getType()->isReferenceType() ||
            !isExpensiveToCopy(V->getType(), AST) || isMutatedIn(V, Body, AST))
          continue;
        const VarDecl *Source = copiedVariable(V->getInit(), V->getType(), AST);
        if (!Source)
          continue;
        // Its source is local (a parameter or a variable declared before it,
        // in a scope that encloses it), never modified here, and of the same
        // type: the reference reads what the copy held, for as long.
        // (A const reference parameter is read in place as the copy would
        // read it; a local reference may be bound to anything.)
        QualType ST = Source->getType();
        bool ConstRefParam = isa<ParmVarDecl>(Source) &&
                             ST->isLValueReferenceType() &&
                             ST->getPointeeType().isConstQualified();
        if (Source == V || !Source->hasLocalStorage() ||
            (ST->isReferenceType() && !ConstRefParam) ||
            isMutatedIn(Source, Body, AST))
          continue;
        E.tryChange(V->getLocation(),
                    [&](RuleEdit &T) { return makeConstReference(T, Ctx, V); });
      }
      E.addTo(Out, "local copies as const references");
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createUnnecessaryCopyInitRule() {
  return std::make_unique<UnnecessaryCopyInitRule>();
}
