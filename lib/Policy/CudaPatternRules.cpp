//===-- CudaPatternRules.cpp - Restructuring known kernel patterns --------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
//   cuda-vectorize-float4   element-wise float/int kernels load and store
//                           four elements at a time (float4/int4) when the
//                           buffers are 16-byte aligned, scalar otherwise.
//   cuda-smem-tiling        the naive matrix multiply (one thread per output,
//                           a k loop over global memory) in shared-memory
//                           tiles when the block is TILE x TILE.
//   cuda-warp-reduce        every thread adding into one address with
//                           atomicAdd: a warp-shuffle reduction first, one
//                           atomic per warp.
//
// Each rewrite keeps the original code as the path taken when its
// condition (alignment, block shape, block size) does not hold, so it is
// correct for any launch.
//
//===----------------------------------------------------------------------===//

#include "Rules.h"
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

std::string indentAt(llvm::StringRef Code, unsigned Offset) {
  size_t LineBegin = Code.rfind('\n', Offset);
  LineBegin = LineBegin == llvm::StringRef::npos ? 0 : LineBegin + 1;
  return Code.slice(LineBegin, Offset)
      .take_while([](char C) { return C == ' ' || C == '\t'; })
      .str();
}

std::vector<const FunctionDecl *> kernels(const RuleContext &Ctx) {
  std::vector<const FunctionDecl *> Out;
  if (!Ctx.isCuda())
    return Out;
  for (const FunctionDecl *FD : editableFunctions(Ctx))
    if (isCudaKernel(FD) && FD->getBody())
      Out.push_back(FD);
  return Out;
}

//===----------------------------------------------------------------------===//
// cuda-vectorize-float4
//===----------------------------------------------------------------------===//

struct Access {
  const ArraySubscriptExpr *E;
  const ParmVarDecl *Param;
  bool Written;
};

class CudaVectorizeFloat4Rule : public Rule {
public:
  CudaVectorizeFloat4Rule()
      : Rule("cuda-vectorize-float4",
             "element-wise float/int kernels on float4/int4 loads and stores "
             "(scalar when unaligned)") {}
  bool isCudaOnly() const override { return true; }

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    llvm::StringRef Code = Ctx.getCode();
    for (const FunctionDecl *K : kernels(Ctx)) {
      std::optional<IndexGuard> G = matchIndexGuard(K, AST);
      if (!G)
        continue;
      std::vector<Access> Accesses;
      std::vector<const DeclRefExpr *> IndexUses;
      QualType Elem;
      if (!collect(*G, AST, Accesses, IndexUses, Elem))
        continue;
      std::string Vec = Elem->isSpecificBuiltinType(BuiltinType::Float)
                            ? "float4"
                            : "int4";
      auto Stmts = statementFileRange(Ctx, G->Body.front(), G->Body.back());
      auto DeclR = Ctx.getFileRange(G->Decl->getSourceRange());
      auto BoundR = Ctx.getFileRange(G->Bound->getSourceRange());
      auto InitR = Ctx.getFileRange(G->Index->getInit()->getSourceRange());
      const auto *KBody = cast<CompoundStmt>(K->getBody());
      auto RBrace = Ctx.getFileOffset(KBody->getRBracLoc());
      if (!Stmts || !DeclR || !BoundR || !InitR || !RBrace)
        continue;
      std::string Body = Code.slice(Stmts->first, Stmts->second).str();
      if (G->EarlyReturn || !isa<CompoundStmt>(G->Body.front()))
        Body = "{\n      " + Body + "\n    }";
      std::string Bound = "(" + Code.slice(BoundR->first, BoundR->second).str() +
                          ")";
      std::string IndexType = G->Index->getType().getAsString();
      std::string I = G->Index->getNameAsString();
      std::string Tid = Ctx.getFreshName("Tid");
      std::string Stride = Ctx.getFreshName("Stride");
      std::string V = Ctx.getFreshName("Vec");

      // Per parameter: its vector variable.
      std::vector<const ParmVarDecl *> Params;
      llvm::DenseMap<const ParmVarDecl *, bool> Read, Written, Conditional;
      for (const Access &A : Accesses) {
        if (!llvm::is_contained(Params, A.Param))
          Params.push_back(A.Param);
        (A.Written ? Written : Read)[A.Param] = true;
      }
      // A store under a condition leaves other lanes as they were: load
      // them first.
      for (const Access &A : Accesses)
        if (A.Written && !isTopLevelStore(A.E, G->Body, AST))
          Conditional[A.Param] = true;
      llvm::DenseMap<const ParmVarDecl *, std::string> VecName;
      for (const ParmVarDecl *P : Params)
        VecName[P] = Ctx.getFreshName(P->getNameAsString() + "4");

      std::string Aligned;
      for (const ParmVarDecl *P : Params)
        Aligned += (Aligned.empty() ? "" : " | ") +
                   ("reinterpret_cast<unsigned long long>(" +
                    P->getNameAsString() + ")");
      std::string Text;
      llvm::raw_string_ostream OS(Text);
      OS << "const " << IndexType << " " << Tid << " = "
         << Code.slice(InitR->first, InitR->second) << ";\n"
         << "  const " << IndexType << " " << Stride
         << " = blockDim.x * gridDim.x;\n"
         << "  if (((" << Aligned << ") & 15) == 0) {\n"
         << "    for (" << IndexType << " " << V << " = " << Tid << "; " << V
         << " < " << Bound << " / 4; " << V << " += " << Stride << ") {\n";
      for (const ParmVarDecl *P : Params) {
        std::string Name = P->getNameAsString();
        bool Load = Read.lookup(P) || Conditional.lookup(P) ||
                    !Written.lookup(P);
        bool Store = Written.lookup(P);
        OS << "      " << (Store ? "" : "const ") << Vec << " " << VecName[P];
        if (Load)
          OS << " = reinterpret_cast<" << (Store ? "" : "const ") << Vec
             << " *>(" << Name << ")[" << V << "]";
        OS << ";\n";
      }
      const char *Lanes = "xyzw";
      for (unsigned L = 0; L < 4; ++L) {
        std::vector<TextEdit> Edits;
        for (const Access &A : Accesses) {
          auto R = Ctx.getFileRange(A.E->getSourceRange());
          if (!R)
            return;
          Edits.push_back({R->first - Stmts->first, R->second - R->first,
                           VecName[A.Param] + "." + Lanes[L]});
        }
        for (const DeclRefExpr *D : IndexUses) {
          auto R = Ctx.getFileRange(D->getSourceRange());
          if (!R)
            return;
          Edits.push_back({R->first - Stmts->first, R->second - R->first,
                           "(" + V + " * 4 + " + std::to_string(L) + ")"});
        }
        std::string Lane = applyTextEdits(
            Code.slice(Stmts->first, Stmts->second), std::move(Edits));
        OS << "      {\n        " << Lane << "\n      }\n";
      }
      for (const ParmVarDecl *P : Params)
        if (Written.lookup(P))
          OS << "      reinterpret_cast<" << Vec << " *>("
             << P->getNameAsString() << ")[" << V << "] = " << VecName[P]
             << ";\n";
      OS << "    }\n"
         << "    for (" << IndexType << " " << I << " = " << Bound << " / 4 * 4 + "
         << Tid << "; " << I << " < " << Bound << "; " << I << " += " << Stride
         << ") " << Body << "\n"
         << "  } else {\n"
         << "    for (" << IndexType << " " << I << " = " << Tid << "; " << I
         << " < " << Bound << "; " << I << " += " << Stride << ") " << Body
         << "\n  }\n";
      // Replace from the index declaration to the kernel's closing brace.
      unsigned End = *RBrace;
      size_t LineBegin = Code.rfind('\n', End);
      if (LineBegin != llvm::StringRef::npos &&
          Code.slice(LineBegin + 1, End).trim().empty())
        End = LineBegin + 1;
      RuleEdit E = makeEdit(llvm::formatv("{0} loads and stores in {1} ({2} "
                                          "buffer{3})",
                                          Vec, K->getNameAsString(),
                                          Params.size(),
                                          Params.size() == 1 ? "" : "s")
                                .str(),
                            50);
      if (!addReplacement(E, Ctx, DeclR->first, End - DeclR->first, Text))
        continue;
      Out.push_back(std::move(E));
    }
  }

private:
  /// Every array access in the body is `p[i]` on a pointer parameter of one
  /// element type (float or int), and the parameters appear nowhere else.
  static bool collect(const IndexGuard &G, ASTContext &AST,
                      std::vector<Access> &Accesses,
                      std::vector<const DeclRefExpr *> &IndexUses,
                      QualType &Elem) {
    struct Finder : RecursiveASTVisitor<Finder> {
      const IndexGuard &G;
      ASTContext &AST;
      std::vector<Access> &Accesses;
      std::vector<const DeclRefExpr *> &IndexUses;
      llvm::SmallPtrSet<const DeclRefExpr *, 16> Covered;
      QualType Elem;
      bool Ok = true;
      Finder(const IndexGuard &G, ASTContext &AST, std::vector<Access> &A,
             std::vector<const DeclRefExpr *> &U)
          : G(G), AST(AST), Accesses(A), IndexUses(U) {}
      bool VisitArraySubscriptExpr(ArraySubscriptExpr *E) {
        const auto *Base =
            dyn_cast<DeclRefExpr>(E->getBase()->IgnoreParenImpCasts());
        const auto *Idx =
            dyn_cast<DeclRefExpr>(E->getIdx()->IgnoreParenImpCasts());
        const auto *P = Base ? dyn_cast<ParmVarDecl>(Base->getDecl()) : nullptr;
        if (!P || !Idx || Idx->getDecl() != G.Index ||
            !P->getType()->isPointerType())
          return Ok = false;
        QualType T = P->getType()->getPointeeType().getUnqualifiedType();
        if (!T->isSpecificBuiltinType(BuiltinType::Float) &&
            !T->isSpecificBuiltinType(BuiltinType::Int))
          return Ok = false;
        if (!Elem.isNull() && Elem != T)
          return Ok = false;
        Elem = T;
        Covered.insert(Base);
        Covered.insert(Idx);
        Accesses.push_back({E, P, isWritten(E)});
        return true;
      }
      bool VisitDeclRefExpr(DeclRefExpr *D) {
        if (Covered.count(D))
          return true;
        if (D->getDecl() == G.Index) {
          IndexUses.push_back(D);
          return true;
        }
        if (const auto *P = dyn_cast<ParmVarDecl>(D->getDecl()))
          if (P->getType()->isPointerType())
            return Ok = false; // Used other than as p[i].
        return true;
      }
      bool VisitUnaryOperator(UnaryOperator *U) {
        if (U->getOpcode() == UO_AddrOf || U->getOpcode() == UO_Deref)
          Ok = false;
        return Ok;
      }
      bool VisitCallExpr(CallExpr *C) {
        const FunctionDecl *FD = C->getDirectCallee();
        if (FD && FD->getIdentifier() && FD->getName().starts_with("atomic"))
          Ok = false;
        return Ok;
      }
      bool isWritten(const ArraySubscriptExpr *E) {
        DynTypedNodeList Ps = AST.getParents(*E);
        if (Ps.size() != 1)
          return true;
        if (const auto *B = Ps[0].get<BinaryOperator>())
          return B->isAssignmentOp() && B->getLHS() == E;
        if (const auto *U = Ps[0].get<UnaryOperator>())
          return U->isIncrementDecrementOp();
        return false;
      }
    } F(G, AST, Accesses, IndexUses);
    // Covered DeclRefExprs are visited after their subscript (pre-order),
    // so the subscript marks them first.
    for (const Stmt *S : G.Body)
      F.TraverseStmt(const_cast<Stmt *>(S));
    Elem = F.Elem;
    bool AnyWrite = llvm::any_of(Accesses, [](const Access &A) {
      return A.Written;
    });
    return F.Ok && !Accesses.empty() && AnyWrite && !Elem.isNull();
  }

  /// True when \p E is the left side of an assignment that is a statement
  /// of the body itself (not under an if or a loop).
  static bool isTopLevelStore(const ArraySubscriptExpr *E,
                              llvm::ArrayRef<const Stmt *> Body,
                              ASTContext &AST) {
    DynTypedNodeList Ps = AST.getParents(*E);
    if (Ps.size() != 1)
      return false;
    const auto *Assign = Ps[0].get<BinaryOperator>();
    if (!Assign)
      return false;
    DynTypedNodeList Up = AST.getParents(*Assign);
    const Stmt *Parent = Up.size() == 1 ? Up[0].get<Stmt>() : nullptr;
    if (!Parent)
      return false;
    for (const Stmt *S : Body) {
      if (S == Assign)
        return true;
      if (const auto *CS = dyn_cast<CompoundStmt>(S))
        if (Parent == CS)
          return true;
    }
    return false;
  }
};

//===----------------------------------------------------------------------===//
// cuda-smem-tiling
//===----------------------------------------------------------------------===//

/// Which of \p Vars an expression refers to.
bool refersTo(const Expr *E, const VarDecl *V) {
  return referencedVars(E).count(V) != 0;
}

class CudaSharedMemoryTilingRule : public Rule {
public:
  CudaSharedMemoryTilingRule()
      : Rule("cuda-smem-tiling",
             "the naive matrix multiply in shared-memory tiles (blocks of "
             "TILE x TILE; the naive loop otherwise)") {}
  bool isCudaOnly() const override { return true; }

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    for (const FunctionDecl *K : kernels(Ctx)) {
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
        auto R = Ctx.getFileRange(M->If->getSourceRange());
        if (Text.empty() || !R)
          continue;
        RuleEdit E = makeEdit(llvm::formatv("shared-memory tiles of {0}x{0} "
                                            "in {1}",
                                            T, K->getNameAsString())
                                  .str(),
                              Side ? 80 : 80 - (T == 32));
        E.Group = "cuda-smem-tiling:" + K->getNameAsString();
        if (addReplacement(E, Ctx, R->first, 0, Text))
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
      const auto *L = dyn_cast<DeclRefExpr>(Cmp->getLHS()->IgnoreParenImpCasts());
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
    M.K = Init && Init->isSingleDecl() ? dyn_cast<VarDecl>(Init->getSingleDecl())
                                       : nullptr;
    if (!M.K || !M.K->getInit() || integerValue(M.K->getInit(), AST) != 0)
      return false;
    const auto *Cond =
        dyn_cast_or_null<BinaryOperator>(F->getCond()->IgnoreParenImpCasts());
    if (!Cond || Cond->getOpcode() != BO_LT)
      return false;
    const auto *L = dyn_cast<DeclRefExpr>(Cond->getLHS()->IgnoreParenImpCasts());
    if (!L || L->getDecl() != M.K || !isSimpleSideEffectFree(Cond->getRHS(), AST))
      return false;
    M.KBound = Cond->getRHS();
    const Expr *Inc = F->getInc() ? F->getInc()->IgnoreParenImpCasts() : nullptr;
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
    return TA == TB && TA->isRealFloatingType() && !isMutatedIn(M.K, F->getBody(), AST);
  }

  static std::string rewrite(const RuleContext &Ctx, const Matmul &M,
                             int64_t Tile) {
    auto Text = [&](const Stmt *S) -> std::string {
      auto R = Ctx.getFileRange(S->getSourceRange());
      return R ? Ctx.getText(R->first, R->second).str() : "";
    };
    std::string RowCond = Text(M.RowCond), ColCond = Text(M.ColCond);
    std::string KBound = Text(M.KBound);
    std::string AText = Text(M.A), BText = Text(M.B);
    auto SumR = statementFileRange(Ctx, M.SumDecl, M.SumDecl);
    auto AfterR = M.After.empty()
                      ? std::nullopt
                      : statementFileRange(Ctx, M.After.front(), M.After.back());
    if (RowCond.empty() || ColCond.empty() || KBound.empty() ||
        AText.empty() || BText.empty() || !SumR || !AfterR)
      return "";
    std::string Elem = M.A->getType().getUnqualifiedType().getAsString();
    std::string KType = M.K->getType().getAsString();
    std::string KName = M.K->getNameAsString();
    std::string Sum = M.Sum->getNameAsString();
    std::string As = Ctx.getFreshName("TileA"), Bs = Ctx.getFreshName("TileB");
    std::string K0 = Ctx.getFreshName("TileK"), KK = Ctx.getFreshName("Kk");
    std::string T = std::to_string(Tile);
    llvm::StringRef Code = Ctx.getCode();
    std::string In = indentAt(Code, Ctx.getFileRange(M.If->getSourceRange())
                                        ->first);
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    OS << "if (blockDim.x == " << T << " && blockDim.y == " << T << ") {\n"
       << In << "  __shared__ " << Elem << " " << As << "[" << T << "][" << T
       << "];\n"
       << In << "  __shared__ " << Elem << " " << Bs << "[" << T << "][" << T
       << "];\n"
       << In << "  " << Code.slice(SumR->first, SumR->second) << "\n"
       << In << "  for (" << KType << " " << K0 << " = 0; " << K0 << " < "
       << KBound << "; " << K0 << " += " << T << ") {\n"
       << In << "    {\n"
       << In << "      const " << KType << " " << KName << " = " << K0
       << " + threadIdx.x;\n"
       << In << "      " << As << "[threadIdx.y][threadIdx.x] = (" << RowCond
       << " && " << KName << " < " << KBound << ") ? " << AText << " : "
       << Elem << "(0);\n"
       << In << "    }\n"
       << In << "    {\n"
       << In << "      const " << KType << " " << KName << " = " << K0
       << " + threadIdx.y;\n"
       << In << "      " << Bs << "[threadIdx.y][threadIdx.x] = (" << ColCond
       << " && " << KName << " < " << KBound << ") ? " << BText << " : "
       << Elem << "(0);\n"
       << In << "    }\n"
       << In << "    __syncthreads();\n"
       << In << "    for (int " << KK << " = 0; " << KK << " < " << T << "; ++"
       << KK << ")\n"
       << In << "      " << Sum << " += " << As << "[threadIdx.y][" << KK
       << "] * " << Bs << "[" << KK << "][threadIdx.x];\n"
       << In << "    __syncthreads();\n"
       << In << "  }\n"
       << In << "  if (" << RowCond << " && " << ColCond << ") {\n"
       << In << "    " << Code.slice(AfterR->first, AfterR->second) << "\n"
       << In << "  }\n"
       << In << "  return;\n"
       << In << "}\n"
       << In;
    return Out;
  }
};

//===----------------------------------------------------------------------===//
// cuda-warp-reduce
//===----------------------------------------------------------------------===//

/// True when \p E reads threadIdx or a local variable (its value may differ
/// between the threads of a warp).
bool variesPerThread(const Expr *E) {
  struct Finder : RecursiveASTVisitor<Finder> {
    bool Found = false;
    bool VisitPseudoObjectExpr(PseudoObjectExpr *P) {
      if (auto B = cudaBuiltinOf(P))
        Found |= B->first == "threadIdx";
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
        Found |= !isa<ParmVarDecl>(V) && V->isLocalVarDecl();
      return true;
    }
  } F;
  F.TraverseStmt(const_cast<Expr *>(E));
  return F.Found;
}

class CudaWarpReduceRule : public Rule {
public:
  CudaWarpReduceRule()
      : Rule("cuda-warp-reduce",
             "atomicAdd of every thread into one address to a warp-shuffle "
             "reduction and one atomic per warp") {}
  bool isCudaOnly() const override { return true; }

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    llvm::StringRef Code = Ctx.getCode();
    for (const FunctionDecl *K : kernels(Ctx)) {
      const auto *Body = dyn_cast<CompoundStmt>(K->getBody());
      if (!Body || Body->body_empty() ||
          usesMultiDimensionalIndex(K->getBody()) || hasReturn(Body))
        continue;
      const Stmt *Last = Body->body_back();
      const Expr *Cond = nullptr;
      const Stmt *Inner = Last;
      if (const auto *If = dyn_cast<IfStmt>(Last)) {
        if (If->getElse() || If->getInit() || If->getConditionVariable() ||
            !isSimpleSideEffectFree(If->getCond(), AST))
          continue;
        Cond = If->getCond();
        Inner = If->getThen();
        if (const auto *CS = dyn_cast<CompoundStmt>(Inner)) {
          if (CS->size() != 1)
            continue;
          Inner = CS->body_front();
        }
      }
      const auto *Call = dyn_cast<CallExpr>(Inner);
      const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
      if (!FD || !FD->getIdentifier() || FD->getName() != "atomicAdd" ||
          Call->getNumArgs() != 2)
        continue;
      const Expr *Addr = Call->getArg(0);
      const Expr *Val = Call->getArg(1);
      QualType T = Val->IgnoreParenImpCasts()->getType().getUnqualifiedType();
      QualType Param = FD->getParamDecl(1)->getType().getUnqualifiedType();
      bool Supported =
          Param->isSpecificBuiltinType(BuiltinType::Float) ||
          Param->isSpecificBuiltinType(BuiltinType::Double) ||
          Param->isSpecificBuiltinType(BuiltinType::Int) ||
          Param->isSpecificBuiltinType(BuiltinType::UInt) ||
          Param->isSpecificBuiltinType(BuiltinType::ULongLong);
      if (!Supported || variesPerThread(Addr) ||
          Addr->HasSideEffects(AST) || T.isNull())
        continue;
      auto AddrR = Ctx.getFileRange(Addr->getSourceRange());
      auto ValR = Ctx.getFileRange(Val->getSourceRange());
      auto LastR = statementFileRange(Ctx, Last, Last);
      auto CondR = Cond ? Ctx.getFileRange(Cond->getSourceRange())
                        : std::optional<std::pair<unsigned, unsigned>>(
                              std::make_pair(0u, 0u));
      if (!AddrR || !ValR || !LastR || !CondR)
        continue;
      std::string Type = Param.getAsString();
      std::string V = Ctx.getFreshName("WarpSum");
      std::string Has = Ctx.getFreshName("Contributes");
      std::string Off = Ctx.getFreshName("Offset");
      std::string In = indentAt(Code, LastR->first);
      std::string AddrText = Ctx.getText(AddrR->first, AddrR->second).str();
      std::string ValText = Ctx.getText(ValR->first, ValR->second).str();
      std::string Text;
      llvm::raw_string_ostream OS(Text);
      OS << "{\n" << In << "  " << Type << " " << V << " = 0;\n";
      if (Cond)
        OS << In << "  const bool " << Has << " = "
           << Ctx.getText(CondR->first, CondR->second) << ";\n"
           << In << "  if (" << Has << ")\n"
           << In << "    " << V << " = " << ValText << ";\n";
      else
        OS << In << "  " << V << " = " << ValText << ";\n";
      OS << In << "  if ((blockDim.x & 31) == 0) {\n"
         << In << "    for (int " << Off << " = 16; " << Off << " > 0; "
         << Off << " >>= 1)\n"
         << In << "      " << V << " += __shfl_down_sync(0xffffffffu, " << V
         << ", " << Off << ");\n"
         << In << "    if ((threadIdx.x & 31) == 0)\n"
         << In << "      atomicAdd(" << AddrText << ", " << V << ");\n"
         << In << "  } else" << (Cond ? " if (" + Has + ")" : std::string())
         << " {\n"
         << In << "    atomicAdd(" << AddrText << ", " << V << ");\n"
         << In << "  }\n"
         << In << "}";
      RuleEdit E = makeEdit("warp-shuffle reduction before atomicAdd in " +
                                K->getNameAsString(),
                            70);
      if (addReplacement(E, Ctx, LastR->first, LastR->second - LastR->first,
                         Text))
        Out.push_back(std::move(E));
    }
  }

private:
  static bool hasReturn(const Stmt *S) {
    struct Finder : RecursiveASTVisitor<Finder> {
      bool Found = false;
      bool VisitReturnStmt(ReturnStmt *) { return !(Found = true); }
    } F;
    F.TraverseStmt(const_cast<Stmt *>(S));
    return F.Found;
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createCudaVectorizeFloat4Rule() {
  return std::make_unique<CudaVectorizeFloat4Rule>();
}
std::unique_ptr<Rule> maxcode::createCudaSharedMemoryTilingRule() {
  return std::make_unique<CudaSharedMemoryTilingRule>();
}
std::unique_ptr<Rule> maxcode::createCudaWarpReduceRule() {
  return std::make_unique<CudaWarpReduceRule>();
}
