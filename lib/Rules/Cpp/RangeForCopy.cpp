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
#include "llvm/Support/FormatVariadic.h"

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
      RuleEdit E = makeEdit("", 35);
      std::vector<unsigned> Lines;
      for (const BoundNodes &N :
           match(findAll(cxxForRangeStmt().bind("for")), *FD->getBody(), AST)) {
        const auto *S = N.getNodeAs<CXXForRangeStmt>("for");
        const VarDecl *V = S->getLoopVariable();
        if (!V || isa<DecompositionDecl>(V) || !V->getTypeSourceInfo() ||
            !isExpensiveToCopy(V->getType(), AST) ||
            isMutatedIn(V, S->getBody(), AST))
          continue;
        if (!makeConstReference(E, Ctx, V))
          continue;
        Lines.push_back(Ctx.getUserLine(S->getBeginLoc()));
      }
      if (Lines.empty())
        continue;
      E.Description = llvm::formatv("range-for by const reference in {0} "
                                    "({1})",
                                    describeFunction(FD), describeLines(Lines));
      Out.push_back(std::move(E));
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createRangeForCopyRule() {
  return std::make_unique<RangeForCopyRule>();
}
