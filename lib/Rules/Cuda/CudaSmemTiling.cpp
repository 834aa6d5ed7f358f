//===-- CudaSmemTiling.cpp - The naive matrix multiply in shared tiles ----===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The naive matrix multiply (one thread per output, a k loop over global
// memory) in shared-memory tiles when the block is TILE x TILE; the naive
// loop stays as the path taken for other block shapes, so the kernel is
// correct for any launch.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;

namespace {

/// Which of \p Vars an expression refers to.
bool refersTo(const Expr *E, const VarDecl *V) {
  return referencedVars(E).count(V) != 0;
}

class CudaSharedMemoryTilingRule : public Rule {
public:
  CudaSharedMemoryTilingRule()
      : Rule("cuda-smem-tiling",
             "the naive matrix multiply in shared-memory tiles (blocks of "
             "TILE x TILE; the naive loop otherwise)",
             "shared-memory tiles", RuleLanguages::Cuda) {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    for (const FunctionDecl *K : deviceFunctions(Ctx, true)) {
      std::optional<Matmul> M = match(K, AST);
      if (!M)
        continue;
      // The tile is the block's side: the one every launch uses, else 16
      // and 32.
      std::vector<int64_t> Tiles;
      std::optional<int64_t> Side = launchSide(K, AST);
      if (Side)
        Tiles.push_back(*Side);
      else
        Tiles = {16, 32};
      for (int64_t T : Tiles) {
        std::string Text = rewrite(Ctx, *M, T);
        auto R = Ctx.getEditRange(M->If->getSourceRange());
        if (Text.empty() || !R)
          continue;
        RuleEdit E = makeEdit(llvm::formatv("shared-memory tiles of {0}x{0} "
                                            "in {1}",
                                            T, K->getNameAsString())
                                  .str(),
                              Side ? 80 : 80 - (T == 32));
        E.Group = "cuda-smem-tiling:" + K->getNameAsString();
        if (insertText(E, Ctx, R->getBegin(), Text))
          Out.push_back(std::move(E));
      }
    }
  }

private:
  struct Matmul {
    const VarDecl *Row = nullptr, *Col = nullptr;
    const IfStmt *If = nullptr;
    const Expr *RowCond = nullptr, *ColCond = nullptr;
    const DeclStmt *SumDecl = nullptr;
    const VarDecl *Sum = nullptr;
    const ForStmt *Loop = nullptr;
    const VarDecl *K = nullptr;
    const Expr *KBound = nullptr;
    const ArraySubscriptExpr *A = nullptr, *B = nullptr;
    std::vector<const Stmt *> After; ///< The stores after the loop.
  };

  static std::optional<int64_t> launchSide(const FunctionDecl *K,
                                           ASTContext &AST) {
    std::optional<int64_t> Side;
    std::vector<const CUDAKernelCallExpr *> Launches =
        findKernelLaunches(AST, K);
    if (Launches.empty())
      return std::nullopt;
    for (const CUDAKernelCallExpr *L : Launches) {
      std::optional<int64_t> B = launchBlockSize(L, AST);
      if (!B)
        return std::nullopt;
      int64_t S = 1;
      while (S * S < *B)
        ++S;
      if (S * S != *B || (Side && *Side != S))
        return std::nullopt;
      Side = S;
    }
    return Side;
  }

  static std::optional<Matmul> match(const FunctionDecl *K, ASTContext &AST) {
    const auto *Body = dyn_cast<CompoundStmt>(K->getBody());
    if (!Body || Body->size() != 3)
      return std::nullopt;
    Matmul M;
    auto It = Body->body_begin();
    for (int N = 0; N < 2; ++N, ++It) {
      const auto *DS = dyn_cast<DeclStmt>(*It);
      const auto *V = DS && DS->isSingleDecl()
                          ? dyn_cast<VarDecl>(DS->getSingleDecl())
                          : nullptr;
      if (!V || !V->getInit())
        return std::nullopt;
      if (isGlobalThreadIndex(V->getInit(), 'y'))
        M.Row = V;
      else if (isGlobalThreadIndex(V->getInit(), 'x'))
        M.Col = V;
    }
    M.If = dyn_cast<IfStmt>(*It);
    if (!M.Row || !M.Col || !M.If || M.If->getElse() || M.If->getInit())
      return std::nullopt;
    const auto *And =
        dyn_cast<BinaryOperator>(M.If->getCond()->IgnoreParenImpCasts());
    if (!And || And->getOpcode() != BO_LAnd)
      return std::nullopt;
    for (const Expr *C : {And->getLHS(), And->getRHS()}) {
      const auto *Cmp = dyn_cast<BinaryOperator>(C->IgnoreParenImpCasts());
      if (!Cmp || Cmp->getOpcode() != BO_LT ||
          !isSimpleSideEffectFree(Cmp, AST))
        return std::nullopt;
      const auto *L =
          dyn_cast<DeclRefExpr>(Cmp->getLHS()->IgnoreParenImpCasts());
      if (L && L->getDecl() == M.Row)
        M.RowCond = Cmp;
      else if (L && L->getDecl() == M.Col)
        M.ColCond = Cmp;
    }
    if (!M.RowCond || !M.ColCond)
      return std::nullopt;
    const auto *Then = dyn_cast<CompoundStmt>(M.If->getThen());
    if (!Then || Then->size() < 3)
      return std::nullopt;
    auto T = Then->body_begin();
    M.SumDecl = dyn_cast<DeclStmt>(*T++);
    M.Sum = M.SumDecl && M.SumDecl->isSingleDecl()
                ? dyn_cast<VarDecl>(M.SumDecl->getSingleDecl())
                : nullptr;
    if (!M.Sum || !M.Sum->getType()->isRealFloatingType())
      return std::nullopt;
    M.Loop = dyn_cast<ForStmt>(*T++);
    if (!M.Loop || !matchLoop(M, AST))
      return std::nullopt;
    for (; T != Then->body_end(); ++T) {
      if (unsafeInLoop(*T) || isa<DeclStmt>(*T))
        return std::nullopt;
      M.After.push_back(*T);
    }
    return M;
  }

  static bool matchLoop(Matmul &M, ASTContext &AST) {
    const ForStmt *F = M.Loop;
    const auto *Init = dyn_cast_or_null<DeclStmt>(F->getInit());
    M.K = Init && Init->isSingleDecl()
              ? dyn_cast<VarDecl>(Init->getSingleDecl())
              : nullptr;
    if (!M.K || !M.K->getInit() || integerValue(M.K->getInit(), AST) != 0)
      return false;
    const auto *Cond =
        dyn_cast_or_null<BinaryOperator>(F->getCond()->IgnoreParenImpCasts());
    if (!Cond || Cond->getOpcode() != BO_LT)
      return false;
    const auto *L =
        dyn_cast<DeclRefExpr>(Cond->getLHS()->IgnoreParenImpCasts());
    if (!L || L->getDecl() != M.K ||
        !isSimpleSideEffectFree(Cond->getRHS(), AST))
      return false;
    M.KBound = Cond->getRHS();
    const Expr *Inc =
        F->getInc() ? F->getInc()->IgnoreParenImpCasts() : nullptr;
    const auto *U = dyn_cast_or_null<UnaryOperator>(Inc);
    if (!U || !U->isIncrementOp())
      return false;
    const Stmt *B = F->getBody();
    if (const auto *CS = dyn_cast<CompoundStmt>(B)) {
      if (CS->size() != 1)
        return false;
      B = CS->body_front();
    }
    const auto *Acc = dyn_cast<CompoundAssignOperator>(B);
    if (!Acc || Acc->getOpcode() != BO_AddAssign)
      return false;
    const auto *SumRef =
        dyn_cast<DeclRefExpr>(Acc->getLHS()->IgnoreParenImpCasts());
    const auto *Mul =
        dyn_cast<BinaryOperator>(Acc->getRHS()->IgnoreParenImpCasts());
    if (!SumRef || SumRef->getDecl() != M.Sum || !Mul ||
        Mul->getOpcode() != BO_Mul)
      return false;
    const auto *X =
        dyn_cast<ArraySubscriptExpr>(Mul->getLHS()->IgnoreParenImpCasts());
    const auto *Y =
        dyn_cast<ArraySubscriptExpr>(Mul->getRHS()->IgnoreParenImpCasts());
    if (!X || !Y)
      return false;
    // A is indexed by row and k, B by k and col.
    auto Fits = [&](const ArraySubscriptExpr *E, const VarDecl *Own,
                    const VarDecl *Other) {
      const auto *Base =
          dyn_cast<DeclRefExpr>(E->getBase()->IgnoreParenImpCasts());
      return Base && isa<ParmVarDecl>(Base->getDecl()) &&
             refersTo(E->getIdx(), Own) && refersTo(E->getIdx(), M.K) &&
             !refersTo(E->getIdx(), Other) &&
             isSimpleSideEffectFree(E->getIdx(), AST);
    };
    if (Fits(X, M.Row, M.Col) && Fits(Y, M.Col, M.Row)) {
      M.A = X;
      M.B = Y;
    } else if (Fits(Y, M.Row, M.Col) && Fits(X, M.Col, M.Row)) {
      M.A = Y;
      M.B = X;
    } else {
      return false;
    }
    QualType TA = M.A->getType().getUnqualifiedType();
    QualType TB = M.B->getType().getUnqualifiedType();
    return TA == TB && TA->isRealFloatingType() &&
           !isMutatedIn(M.K, F->getBody(), AST);
  }

  static std::string rewrite(const RuleContext &Ctx, const Matmul &M,
                             int64_t Tile) {
    std::string RowCond = Ctx.getSourceText(M.RowCond).str();
    std::string ColCond = Ctx.getSourceText(M.ColCond).str();
    std::string KBound = Ctx.getSourceText(M.KBound).str();
    std::string AText = Ctx.getSourceText(M.A).str();
    std::string BText = Ctx.getSourceText(M.B).str();
    auto SumR = statementRange(Ctx, M.SumDecl);
    auto AfterR = M.After.empty()
                      ? std::nullopt
                      : statementsRange(Ctx, M.After.front(), M.After.back());
    if (RowCond.empty() || ColCond.empty() || KBound.empty() || AText.empty() ||
        BText.empty() || !SumR || !AfterR)
      return "";
    std::string Elem = M.A->getType().getUnqualifiedType().getAsString();
    std::string KType = M.K->getType().getAsString();
    std::string KName = M.K->getNameAsString();
    std::string Sum = M.Sum->getNameAsString();
    std::string As = Ctx.getFreshName("TileA"), Bs = Ctx.getFreshName("TileB");
    std::string K0 = Ctx.getFreshName("TileK"), KK = Ctx.getFreshName("Kk");
    std::string T = std::to_string(Tile);
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    OS << "if (blockDim.x == " << T << " && blockDim.y == " << T << ") {\n"
       << "__shared__ " << Elem << " " << As << "[" << T << "][" << T << "];\n"
       << "__shared__ " << Elem << " " << Bs << "[" << T << "][" << T << "];\n"
       << Ctx.getText(*SumR) << "\n"
       << "for (" << KType << " " << K0 << " = 0; " << K0 << " < " << KBound
       << "; " << K0 << " += " << T << ") {\n"
       << "{\n"
       << "const " << KType << " " << KName << " = " << K0
       << " + threadIdx.x;\n"
       << As << "[threadIdx.y][threadIdx.x] = (" << RowCond << " && " << KName
       << " < " << KBound << ") ? " << AText << " : " << Elem << "(0);\n"
       << "}\n"
       << "{\n"
       << "const " << KType << " " << KName << " = " << K0
       << " + threadIdx.y;\n"
       << Bs << "[threadIdx.y][threadIdx.x] = (" << ColCond << " && " << KName
       << " < " << KBound << ") ? " << BText << " : " << Elem << "(0);\n"
       << "}\n"
       << "__syncthreads();\n"
       << "for (int " << KK << " = 0; " << KK << " < " << T << "; ++" << KK
       << ")\n"
       << Sum << " += " << As << "[threadIdx.y][" << KK << "] * " << Bs << "["
       << KK << "][threadIdx.x];\n"
       << "__syncthreads();\n"
       << "}\n"
       << "if (" << RowCond << " && " << ColCond << ") {\n"
       << Ctx.getText(*AfterR) << "\n"
       << "}\n"
       << "return;\n"
       << "}\n";
    return Out;
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createCudaSharedMemoryTilingRule() {
  return std::make_unique<CudaSharedMemoryTilingRule>();
}
