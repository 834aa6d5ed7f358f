//===-- CudaLaunchConfig.cpp - Block sizes of launches as a knob ----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The block size of a launch over 64..1024 (square 2D blocks over
// 8x8..32x32), with the grid that goes with it, one variant per value: a
// knob the search tunes. Only where the kernel does not depend on the size
// (no literal equal to it in the kernel, no shared array of that size) and
// the grid is written in terms of it.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>

using namespace maxcode;
using namespace clang;

namespace {

/// Integer literals of \p S, those a macro's body spells included (an edit
/// of one of those is refused later, where its range is taken).
std::vector<const IntegerLiteral *> literalsIn(const Stmt *S) {
  struct Finder : RecursiveASTVisitor<Finder> {
    std::vector<const IntegerLiteral *> Found;
    bool VisitIntegerLiteral(IntegerLiteral *L) {
      Found.push_back(L);
      return true;
    }
  } F;
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Found;
}

/// The kernel a launch calls, as written (the template pattern).
const FunctionDecl *launchedKernel(const CUDAKernelCallExpr *L) {
  const FunctionDecl *FD = L->getDirectCallee();
  if (!FD)
    return nullptr;
  if (const FunctionDecl *P = FD->getTemplateInstantiationPattern())
    return P;
  return FD;
}

/// The local variable a launch argument names, and its initializer, when
/// the variable is used by this launch only.
const VarDecl *singleUseLocal(const Expr *E, ASTContext &AST) {
  const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V || !V->isLocalVarDecl() || !V->getInit())
    return nullptr;
  const auto *FD = dyn_cast<FunctionDecl>(V->getDeclContext());
  if (!FD || !FD->getBody() || isMutatedIn(V, FD->getBody(), AST))
    return nullptr;
  return countReferences(V, FD->getBody()) == 1 ? V : nullptr;
}

/// True when the kernel's text depends on one block size: the literal
/// appears in it, or a __shared__ array has it as a dimension.
bool kernelAssumesBlockSize(const FunctionDecl *K, int64_t B, ASTContext &AST) {
  for (const IntegerLiteral *L : literalsIn(K->getBody())) {
    int64_t V = L->getValue().getSExtValue();
    if (V == B || V == B - 1)
      return true;
  }
  struct Shared : RecursiveASTVisitor<Shared> {
    int64_t B;
    ASTContext &AST;
    bool Found = false;
    Shared(int64_t B, ASTContext &AST) : B(B), AST(AST) {}
    bool VisitVarDecl(VarDecl *V) {
      if (!V->hasAttr<CUDASharedAttr>())
        return true;
      QualType T = V->getType();
      while (const auto *AT = AST.getAsConstantArrayType(T)) {
        if ((int64_t)AT->getSize().getZExtValue() == B)
          Found = true;
        T = AT->getElementType();
      }
      return true;
    }
  } S(B, AST);
  S.TraverseStmt(K->getBody());
  return S.Found;
}

/// A `__launch_bounds__(N)` limit on the kernel, or 1024.
int64_t launchBoundsLimit(const FunctionDecl *K, ASTContext &AST) {
  if (const auto *A = K->getAttr<CUDALaunchBoundsAttr>())
    if (std::optional<int64_t> V = integerValue(A->getMaxThreads(), AST))
      return *V;
  return 1024;
}

/// The literals of a launch that hold its block size, and those that follow
/// it.
struct LaunchSizes {
  int64_t Block = 0;
  bool TwoD = false;
  std::vector<const IntegerLiteral *> BlockLits, GridLits, TemplateLits,
      ShmemLits;
};

/// The block size of launch \p L of kernel \p K, where it can be changed:
/// none when the launch or the kernel depends on it in other ways.
std::optional<LaunchSizes> launchSizes(const CUDAKernelCallExpr *L,
                                       const FunctionDecl *K, ASTContext &AST) {
  const Expr *Grid = writtenLaunchArg(L, 0);
  const Expr *Block = writtenLaunchArg(L, 1);
  if (!K || !K->getBody() || !Grid || !Block)
    return std::nullopt;
  // The expressions that hold the block size: the launch's own, or the
  // initializers of variables used by this launch only.
  auto Source = [&](const Expr *E) -> const Expr * {
    if (const VarDecl *V = singleUseLocal(E, AST))
      return V->getInit();
    return E;
  };
  const Expr *BlockSrc = Source(Block);
  const Expr *GridSrc = Source(Grid);
  LaunchSizes S;
  // 1D: one literal block size; 2D: dim3(B, B) of literals.
  for (const IntegerLiteral *Lit : literalsIn(BlockSrc))
    S.BlockLits.push_back(Lit);
  if (S.BlockLits.empty() || S.BlockLits.size() > 2)
    return std::nullopt;
  int64_t B = S.BlockLits.front()->getValue().getSExtValue();
  if (llvm::any_of(S.BlockLits, [&](const IntegerLiteral *Lit) {
        return Lit->getValue().getSExtValue() != B;
      }))
    return std::nullopt;
  S.Block = B;
  S.TwoD = S.BlockLits.size() == 2;
  if (kernelAssumesBlockSize(K, B, AST))
    return std::nullopt;
  // Kernel arguments must not carry the size (the kernel may rely on it).
  for (const Expr *A : L->arguments())
    for (const IntegerLiteral *Lit : literalsIn(A))
      if (Lit->getValue().getSExtValue() == B)
        return std::nullopt;
  // The grid must follow the block size, or the total work would change.
  bool GridFollows = false;
  for (const IntegerLiteral *Lit : literalsIn(GridSrc)) {
    int64_t V = Lit->getValue().getSExtValue();
    if (V == B || V == B - 1) {
      S.GridLits.push_back(Lit);
      GridFollows |= V == B;
    }
  }
  if (!GridFollows)
    return std::nullopt;
  // Template arguments equal to the block size (blockSum<256>) follow it.
  if (const auto *DRE =
          dyn_cast<DeclRefExpr>(L->getCallee()->IgnoreParenImpCasts()))
    for (const TemplateArgumentLoc &TAL : DRE->template_arguments())
      if (TAL.getArgument().getKind() == TemplateArgument::Expression)
        for (const IntegerLiteral *Lit : literalsIn(TAL.getSourceExpression()))
          if (Lit->getValue().getSExtValue() == B)
            S.TemplateLits.push_back(Lit);
  // The shared-memory size may scale with the block.
  if (const Expr *Shmem = writtenLaunchArg(L, 2))
    for (const IntegerLiteral *Lit : literalsIn(Shmem))
      if (Lit->getValue().getSExtValue() == B)
        S.ShmemLits.push_back(Lit);
  return S;
}

class CudaLaunchConfigRule : public Rule {
public:
  CudaLaunchConfigRule()
      : Rule("cuda-launch-config",
             "block size of a launch over 64..1024 (2D: 8x8..32x32) with "
             "the matching grid, one variant per value",
             "launch configuration", RuleLanguages::Cuda) {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    struct Finder : RecursiveASTVisitor<Finder> {
      std::vector<const CUDAKernelCallExpr *> Launches;
      bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *E) {
        Launches.push_back(E);
        return true;
      }
    };
    for (const FunctionDecl *FD : Ctx.getFileFunctions()) {
      if (isCudaDeviceCode(FD))
        continue;
      Finder F;
      F.TraverseStmt(FD->getBody());
      for (const CUDAKernelCallExpr *L : F.Launches)
        proposeFor(Ctx, AST, L, Out);
    }
  }

private:
  void proposeFor(const RuleContext &Ctx, ASTContext &AST,
                  const CUDAKernelCallExpr *L,
                  std::vector<RuleEdit> &Out) const {
    const FunctionDecl *K = launchedKernel(L);
    std::optional<LaunchSizes> Sizes = launchSizes(L, K, AST);
    if (!Sizes)
      return;
    int64_t B = Sizes->Block;
    bool TwoD = Sizes->TwoD;

    int64_t Limit = launchBoundsLimit(K, AST);
    std::vector<int64_t> Values =
        TwoD ? std::vector<int64_t>{8, 16, 32}
             : std::vector<int64_t>{64, 128, 256, 512, 1024};
    const SourceManager &SM = Ctx.getSourceManager();
    unsigned Line = SM.getExpansionLineNumber(L->getBeginLoc());
    std::string Group =
        llvm::formatv("cuda-launch-config:{0}@{1}", K->getNameAsString(), Line);
    for (int64_t V : Values) {
      if (V == B || (TwoD ? V * V : V) > Limit)
        continue;
      RuleEdit E = makeEdit(
          TwoD ? llvm::formatv("{0} launch at line {1}: {2}x{2} blocks",
                               K->getNameAsString(), Line, V)
                     .str()
               : llvm::formatv("{0} launch at line {1}: {2} threads per block",
                               K->getNameAsString(), Line, V)
                     .str(),
          // Values near the current one first.
          30 - std::abs(std::log2((double)V / B)));
      E.Group = Group;
      E.Combinable = false;
      bool Ok = true;
      auto Put = [&](const IntegerLiteral *Lit, int64_t New) {
        auto R = Ctx.getEditRange(Lit->getSourceRange());
        Ok &= R && addReplacement(E, Ctx, *R, std::to_string(New));
      };
      for (const IntegerLiteral *Lit : Sizes->BlockLits)
        Put(Lit, V);
      for (const IntegerLiteral *Lit : Sizes->GridLits)
        Put(Lit, Lit->getValue().getSExtValue() == B ? V : V - 1);
      for (const IntegerLiteral *Lit : Sizes->TemplateLits)
        Put(Lit, V);
      for (const IntegerLiteral *Lit : Sizes->ShmemLits)
        Put(Lit, V);
      if (Ok)
        Out.push_back(std::move(E));
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createCudaLaunchConfigRule() {
  return std::make_unique<CudaLaunchConfigRule>();
}
