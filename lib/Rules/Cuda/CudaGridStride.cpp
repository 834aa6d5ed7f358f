//===-- CudaGridStride.cpp - Index-guard kernels to grid-stride loops -----===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) body` (or an
// early return) to `for (int i = ...; i < n; i += blockDim.x * gridDim.x)
// body`: the same work for the launch as written, and correct for any grid,
// so that the launch configuration can shrink.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"

using namespace maxcode;
using namespace clang;

namespace {

class CudaGridStrideRule : public Rule {
public:
  CudaGridStrideRule()
      : Rule("cuda-grid-stride",
             "`i = global index; if (i < n)` kernels to grid-stride loops "
             "(correct for any grid)",
             "grid-stride loop", RuleLanguages::Cuda) {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    for (const FunctionDecl *FD : deviceFunctions(Ctx, true)) {
      std::optional<IndexGuard> G = matchIndexGuard(FD, AST);
      if (!G)
        continue;
      std::string Init = Ctx.getSourceText(G->Index->getInit()).str();
      std::string Bound = Ctx.getSourceText(G->Bound).str();
      auto Body = statementsRange(Ctx, G->Body.front(), G->Body.back());
      // From the index's declaration through the guarded statements.
      auto Whole = statementsRange(Ctx, G->Decl,
                                   G->EarlyReturn ? G->Body.back() : G->Guard);
      if (Init.empty() || Bound.empty() || !Body || !Whole)
        continue;
      // The loop changes the index: a const one (`const size_t i = ...`)
      // is declared without its const.
      std::string Type = G->Index->getType().getUnqualifiedType().getAsString();
      std::string Name = G->Index->getNameAsString();
      std::string Header = "for (" + Type + " " + Name + " = " + Init + "; " +
                           Name + " < " + Bound + "; " + Name +
                           " += blockDim.x * gridDim.x)";
      // A compound body keeps its braces; the statements after an early
      // return get new ones.
      std::string Stmts = Ctx.getText(*Body).str();
      std::string Text = G->EarlyReturn ? Header + " {\n" + Stmts + "\n}"
                                        : Header + " " + Stmts;
      RuleEdit E = makeEdit("grid-stride loop in " + FD->getNameAsString(), 25);
      if (addReplacement(E, Ctx, *Whole, Text))
        Out.push_back(std::move(E));
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createCudaGridStrideRule() {
  return std::make_unique<CudaGridStrideRule>();
}
