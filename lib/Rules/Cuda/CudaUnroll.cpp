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

/// The loops instantiated from \p F, a loop of a template \p FD (a
/// function template, or a member function of a class template): the
/// statement at the same place in each instantiation the file has. Empty
/// when \p FD is no template or nothing instantiates it.
std::vector<const ForStmt *> instantiationsOf(const ForStmt *F,
                                              const FunctionDecl *FD) {
  std::vector<const FunctionDecl *> Bodies;
  const FunctionTemplateDecl *T = FD->getDescribedFunctionTemplate();
  if (T)
    llvm::append_range(Bodies, T->specializations());
  // A member (or member template) of a class template: what each of the
  // class's instantiations made of it.
  if (const auto *M = dyn_cast<CXXMethodDecl>(FD))
    if (const ClassTemplateDecl *CT =
            M->getParent()->getDescribedClassTemplate())
      for (const ClassTemplateSpecializationDecl *Spec : CT->specializations())
        for (const Decl *D : Spec->decls()) {
          if (const auto *I = dyn_cast<FunctionDecl>(D);
              I && I->getInstantiatedFromMemberFunction() == FD)
            Bodies.push_back(I);
          if (const auto *IT = dyn_cast<FunctionTemplateDecl>(D);
              IT && T && IT->getInstantiatedFromMemberTemplate() == T)
            llvm::append_range(Bodies, IT->specializations());
        }
  std::vector<const ForStmt *> Out;
  for (const FunctionDecl *I : Bodies)
    if (const Stmt *Body = I->getBody())
      for (const Stmt *L : loopsIn(Body))
        if (const auto *IF = dyn_cast<ForStmt>(L);
            IF && IF->getForLoc() == F->getForLoc())
          Out.push_back(IF);
  return Out;
}

/// The trip count of `for (A; i < B; ++i)` (`<=`, `i++`, `i += K`), A
/// `int i = C` or `i = C`, with constant C, B and K > 0; none for any other
/// shape, or a bound that depends on a template.
std::optional<int64_t> ownTripCount(const ForStmt *F, const ASTContext &AST) {
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(
      F->getCond() ? F->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!Cond || (Cond->getOpcode() != BO_LT && Cond->getOpcode() != BO_LE) ||
      Cond->getRHS()->isValueDependent())
    return std::nullopt;
  const VarDecl *V = nullptr;
  const Expr *Start = nullptr;
  if (const auto *Init = dyn_cast_or_null<DeclStmt>(F->getInit());
      Init && Init->isSingleDecl()) {
    V = dyn_cast<VarDecl>(Init->getSingleDecl());
    Start = V ? V->getInit() : nullptr;
  } else if (const auto *Assign = dyn_cast_or_null<BinaryOperator>(
                 dyn_cast_or_null<Expr>(F->getInit()));
             Assign && Assign->getOpcode() == BO_Assign) {
    if (const auto *Ref =
            dyn_cast<DeclRefExpr>(Assign->getLHS()->IgnoreParenImpCasts()))
      V = dyn_cast<VarDecl>(Ref->getDecl());
    Start = Assign->getRHS();
  }
  const auto *Counter =
      dyn_cast<DeclRefExpr>(Cond->getLHS()->IgnoreParenImpCasts());
  if (!V || !Start || !Counter || Counter->getDecl() != V)
    return std::nullopt;
  const Expr *Inc = F->getInc() ? F->getInc()->IgnoreParenImpCasts() : nullptr;
  std::optional<int64_t> Step;
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(Inc);
      U && U->isIncrementOp())
    Step = 1;
  else if (const auto *C = dyn_cast_or_null<CompoundAssignOperator>(Inc);
           C && C->getOpcode() == BO_AddAssign)
    Step = integerValue(C->getRHS(), AST);
  std::optional<int64_t> From = integerValue(Start, AST);
  std::optional<int64_t> To = integerValue(Cond->getRHS(), AST);
  if (!Step || *Step <= 0 || !From || !To)
    return std::nullopt;
  int64_t Span = *To - *From + (Cond->getOpcode() == BO_LE);
  return Span <= 0 ? 0 : (Span + *Step - 1) / *Step;
}

/// The loop's bound, when it is a relational condition's right side.
const Expr *boundOf(const ForStmt *F) {
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(
      F->getCond() ? F->getCond()->IgnoreParenImpCasts() : nullptr);
  return Cond && Cond->isRelationalOp() ? Cond->getRHS() : nullptr;
}

/// What nvcc knows of a loop's trip count when it compiles it.
struct TripCount {
  /// The bound is a constant (in every instantiation, for a template's).
  bool Constant = false;
  /// The count, the largest of the instantiations': none when unknown.
  std::optional<int64_t> Count;
};

/// \p F's trip count as nvcc sees it: for a loop of a template, that of
/// the loops instantiated from it (`i < 3 + WIN_SIZE_Y` is a constant in
/// `FDWT53<8, 8>`). A template's loop that nothing instantiates counts as
/// constant when its bound is a template parameter.
TripCount tripCountOf(const ForStmt *F, const FunctionDecl *FD,
                      const ASTContext &AST) {
  const Expr *Bound = boundOf(F);
  if (!Bound)
    return {};
  if (!Bound->isValueDependent())
    return {integerValue(Bound, AST).has_value(), ownTripCount(F, AST)};
  std::vector<const ForStmt *> Instances = instantiationsOf(F, FD);
  if (Instances.empty()) {
    const auto *Ref = dyn_cast<DeclRefExpr>(Bound->IgnoreParenImpCasts());
    return {Ref && isa<NonTypeTemplateParmDecl>(Ref->getDecl()), std::nullopt};
  }
  TripCount T{true, 0};
  for (const ForStmt *I : Instances) {
    const Expr *B = boundOf(I);
    T.Constant = T.Constant && B && integerValue(B, AST).has_value();
    std::optional<int64_t> N = ownTripCount(I, AST);
    T.Count = T.Count && N ? std::optional<int64_t>(std::max(*T.Count, *N))
                           : std::nullopt;
  }
  return T;
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
        TripCount T = tripCountOf(F, FD, AST);
        if (T.Count && *T.Count <= UnrolledByNvcc)
          continue;
        Places.push_back({F, T.Constant});
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
