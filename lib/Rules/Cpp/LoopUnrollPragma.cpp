//===-- LoopUnrollPragma.cpp - Unroll pragmas on the target's loops -------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `#pragma GCC unroll N` (Clang's `#pragma unroll N` for other compilers)
// before each innermost for or while loop of the target: one variant per
// factor (the option Factors, "4,8" by default), as alternatives.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;

namespace {

class LoopUnrollPragmaRule : public Rule {
public:
  LoopUnrollPragmaRule()
      : Rule("loop-unroll-pragma",
             "unroll pragmas (4 or 8) on the innermost loops of the target",
             "unroll pragmas",
             // cuda-unroll handles device code.
             RuleLanguages::Host) {}

  std::vector<std::pair<std::string, std::string>>
  getOptionDefaults() const override {
    return {{"Factors", "4,8"}};
  }

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    const FunctionDecl *FD = Ctx.getTargetDecl();
    if (!FD || !FD->getBody())
      return;
    ASTContext &AST = Ctx.getASTContext();
    std::vector<const Stmt *> Places;
    for (const Stmt *S : loopsIn(FD->getBody())) {
      if (isa<CXXForRangeStmt>(S) || isa<DoStmt>(S))
        continue;
      // GCC rejects its unroll pragma on a loop with no condition
      // (`for (;;)`), and Clang, which ignores GCC's pragmas, would not say.
      if (const auto *For = dyn_cast<ForStmt>(S); For && !For->getCond())
        continue;
      // A loop under another pragma (`#pragma omp parallel for`) must keep
      // it right above.
      if (!loopsIn(loopBody(S)).empty() || hasLoopHint(AST, S) ||
          !compoundParent(AST, S) || followsPragma(Ctx, S))
        continue;
      auto R = statementRange(Ctx, S);
      if (!R || !startsLine(Ctx, R->getBegin()))
        continue;
      Places.push_back(S);
    }
    if (Places.empty())
      return;
    llvm::SmallVector<llvm::StringRef, 4> Factors;
    std::string List = Ctx.getOption(*this, "Factors", "4,8");
    llvm::StringRef(List).split(Factors, ',', -1, false);
    double Score = 16;
    for (llvm::StringRef F : Factors) {
      unsigned Factor;
      if (F.trim().getAsInteger(10, Factor) || Factor < 2 || Factor > 64)
        continue;
      RuleEdit E = makeEdit("", Score--);
      E.Group = "loop-unroll-pragma";
      std::vector<unsigned> Lines;
      for (const Stmt *S : Places) {
        std::string Pragma =
            Ctx.getOptions().CompilerIsGCC
                ? "#pragma GCC unroll " + std::to_string(Factor)
                : "#pragma unroll " + std::to_string(Factor);
        if (!insertLineBefore(E, Ctx, S, Pragma))
          return;
        Lines.push_back(Ctx.getUserLine(S->getBeginLoc()));
      }
      E.Description =
          llvm::formatv("unroll the innermost loop{0} of {1} by "
                        "{2} ({3})",
                        Places.size() == 1 ? "" : "s", describeFunction(FD),
                        Factor, describeLines(Lines));
      Out.push_back(std::move(E));
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createLoopUnrollPragmaRule() {
  return std::make_unique<LoopUnrollPragmaRule>();
}
