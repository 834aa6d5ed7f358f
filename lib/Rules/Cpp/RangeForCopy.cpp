//===-- RangeForCopy.cpp - Range-for copies to const references -----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `for (auto s : names)` copies each element; when the body never modifies
// the copy (ExprMutationAnalyzer), `for (const auto &s : names)` reads the
// element in place.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace maxcode;
using namespace clang;
using namespace clang::ast_matchers;

namespace {

class RangeForCopyRule : public Rule {
public:
  RangeForCopyRule()
      : Rule("range-for-copy",
             "range-for variables that copy expensive elements and are never "
             "modified to const references",
             "const & loop variable") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      FunctionEdit E(makeEdit("", 35), Ctx, FD);
      for (const BoundNodes &N :
           match(findAll(cxxForRangeStmt().bind("for")), *FD->getBody(), AST)) {
        const auto *S = N.getNodeAs<CXXForRangeStmt>("for");
        const VarDecl *V = S->getLoopVariable();
        if (!V || isa<DecompositionDecl>(V) || !V->getTypeSourceInfo() ||
            !isExpensiveToCopy(V->getType(), AST) ||
            isMutatedIn(V, S->getBody(), AST))
          continue;
        E.tryChange(S->getBeginLoc(),
                    [&](RuleEdit &T) { return makeConstReference(T, Ctx, V); });
      }
      E.addTo(Out, "range-for by const reference");
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createRangeForCopyRule() {
  return std::make_unique<RangeForCopyRule>();
}
