//===-- CudaUnroll.cpp - #pragma unroll on device code's innermost loops --===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `#pragma unroll` before the innermost for loops of device code: full
// unrolling where the trip count is a constant (a literal, a template
// parameter), else a factor of 2, 4 or 8, one variant per factor.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;

namespace {

/// A loop whose trip count the compiler knows: `i < 8`, `i < N` with a
/// template parameter or constexpr N.
bool hasConstantTripCount(const ForStmt *F, const ASTContext &AST) {
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(
      F->getCond() ? F->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!Cond || !Cond->isRelationalOp())
    return false;
  const Expr *Bound = Cond->getRHS();
  if (Bound->isValueDependent())
    return isa<SubstNonTypeTemplateParmExpr>(Bound->IgnoreParenImpCasts()) ||
           (isa<DeclRefExpr>(Bound->IgnoreParenImpCasts()) &&
            isa<NonTypeTemplateParmDecl>(
                cast<DeclRefExpr>(Bound->IgnoreParenImpCasts())->getDecl()));
  return integerValue(Bound, AST).has_value();
}

/// The largest value the template parameter \p E names takes in the
/// instantiations of \p FD (`renderCUDA<3>`); none when it is not such a
/// parameter or an instantiation's value is unknown.
std::optional<int64_t> largestInstantiatedValue(const Expr *E,
                                                const FunctionDecl *FD) {
  const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  const auto *P = D ? dyn_cast<NonTypeTemplateParmDecl>(D->getDecl()) : nullptr;
  const FunctionTemplateDecl *T = FD->getDescribedFunctionTemplate();
  if (!P || !T || P->getDepth() != 0 || T->specializations().empty())
    return std::nullopt;
  std::optional<int64_t> Max;
  for (const FunctionDecl *S : T->specializations()) {
    const TemplateArgumentList *Args = S->getTemplateSpecializationArgs();
    if (!Args || P->getIndex() >= Args->size() ||
        Args->get(P->getIndex()).getKind() != TemplateArgument::Integral)
      return std::nullopt;
    int64_t V = Args->get(P->getIndex()).getAsIntegral().getExtValue();
    Max = Max ? std::max(*Max, V) : V;
  }
  return Max;
}

/// The trip count of `for (int i = A; i < B; ++i)` (`<=`, `i++`, `i += 1`)
/// with constant A and B (B a template parameter: its largest value in the
/// file's instantiations of \p FD); none for any other shape.
std::optional<int64_t> tripCount(const ForStmt *F, const FunctionDecl *FD,
                                 const ASTContext &AST) {
  const auto *Init = dyn_cast_or_null<DeclStmt>(F->getInit());
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(
      F->getCond() ? F->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!Init || !Init->isSingleDecl() || !Cond ||
      (Cond->getOpcode() != BO_LT && Cond->getOpcode() != BO_LE))
    return std::nullopt;
  const auto *V = dyn_cast<VarDecl>(Init->getSingleDecl());
  const auto *Counter =
      dyn_cast<DeclRefExpr>(Cond->getLHS()->IgnoreParenImpCasts());
  if (!V || !V->getInit() || !Counter || Counter->getDecl() != V)
    return std::nullopt;
  const Expr *Inc = F->getInc() ? F->getInc()->IgnoreParenImpCasts() : nullptr;
  bool StepOne = false;
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(Inc))
    StepOne = U->isIncrementOp();
  else if (const auto *C = dyn_cast_or_null<CompoundAssignOperator>(Inc))
    StepOne = C->getOpcode() == BO_AddAssign &&
              integerValue(C->getRHS(), AST) == std::optional<int64_t>(1);
  std::optional<int64_t> From = integerValue(V->getInit(), AST);
  std::optional<int64_t> To = Cond->getRHS()->isValueDependent()
                                  ? largestInstantiatedValue(Cond->getRHS(), FD)
                                  : integerValue(Cond->getRHS(), AST);
  if (!StepOne || !From || !To)
    return std::nullopt;
  int64_t N = *To - *From + (Cond->getOpcode() == BO_LE);
  return std::max<int64_t>(N, 0);
}

/// nvcc unrolls a loop of up to this many trips itself: a pragma there
/// leaves the PTX as it was, an evaluation spent on nothing.
constexpr int64_t UnrolledByNvcc = 16;

class CudaUnrollRule : public Rule {
public:
  CudaUnrollRule()
      : Rule("cuda-unroll",
             "#pragma unroll on the innermost loops of device code (full for "
             "constant trip counts, else 2, 4 or 8)",
             "unroll pragmas", RuleLanguages::Cuda) {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    struct Place {
      const ForStmt *Loop;
      bool Constant;
    };
    std::vector<Place> Places;
    for (const FunctionDecl *FD : deviceFunctions(Ctx, false)) {
      for (const Stmt *S : loopsIn(FD->getBody())) {
        const auto *F = dyn_cast<ForStmt>(S);
        if (!F || !loopsIn(F->getBody()).empty() || hasLoopHint(AST, F) ||
            !compoundParent(AST, F))
          continue;
        auto R = statementRange(Ctx, F);
        if (!R || !startsLine(Ctx, R->getBegin()))
          continue;
        if (std::optional<int64_t> N = tripCount(F, FD, AST);
            N && *N <= UnrolledByNvcc)
          continue;
        Places.push_back({F, hasConstantTripCount(F, AST)});
      }
    }
    if (Places.empty())
      return;
    bool AllConstant =
        llvm::all_of(Places, [](const Place &P) { return P.Constant; });
    // Full unrolling where the count is known, and each factor everywhere
    // else (where every count is known, a factor would only repeat the
    // full unrolling under another name).
    for (unsigned Factor : {0u, 4u, 2u, 8u}) {
      if (Factor && AllConstant)
        continue;
      RuleEdit E = makeEdit("", Factor == 0 ? 26 : Factor == 4 ? 24 : 22);
      E.Group = "cuda-unroll";
      unsigned N = 0;
      for (const Place &P : Places) {
        std::string Pragma;
        if (P.Constant)
          Pragma = "#pragma unroll";
        else if (Factor)
          Pragma = "#pragma unroll " + std::to_string(Factor);
        else
          continue;
        if (!insertLineBefore(E, Ctx, P.Loop, Pragma))
          return;
        ++N;
      }
      if (!N)
        continue;
      E.Description =
          Factor == 0 ? llvm::formatv("fully unroll {0} constant-count loop{1}",
                                      N, N == 1 ? "" : "s")
                            .str()
                      : llvm::formatv("unroll {0} innermost loop{1} by {2}", N,
                                      N == 1 ? "" : "s", Factor)
                            .str();
      Out.push_back(std::move(E));
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createCudaUnrollRule() {
  return std::make_unique<CudaUnrollRule>();
}
