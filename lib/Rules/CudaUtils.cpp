//===-- CudaUtils.cpp - What the CUDA rules share -------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// CUDA is parsed on the host pass (DESIGN section 8): kernels' bodies are in
// the AST, and the built-in variables are Clang's property-based structs, so
// `threadIdx.x` is a PseudoObjectExpr over an MSPropertyRefExpr.
//
//===----------------------------------------------------------------------===//

#include "Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"

using namespace maxcode;
using namespace clang;

bool maxcode::isCudaKernel(const FunctionDecl *FD) {
  return FD && FD->hasAttr<CUDAGlobalAttr>();
}

bool maxcode::isCudaDeviceCode(const FunctionDecl *FD) {
  return FD && (FD->hasAttr<CUDAGlobalAttr>() ||
                (FD->hasAttr<CUDADeviceAttr>() && !FD->isImplicit()));
}

std::optional<std::pair<llvm::StringRef, char>>
maxcode::cudaBuiltinOf(const Expr *E) {
  if (!E)
    return std::nullopt;
  E = E->IgnoreParenImpCasts();
  const auto *POE = dyn_cast<PseudoObjectExpr>(E);
  if (!POE)
    return std::nullopt;
  const auto *Ref = dyn_cast<MSPropertyRefExpr>(POE->getSyntacticForm());
  if (!Ref || !Ref->getPropertyDecl() ||
      !Ref->getPropertyDecl()->getIdentifier())
    return std::nullopt;
  const Expr *Base = Ref->getBaseExpr()->IgnoreParenImpCasts();
  if (const auto *OVE = dyn_cast<OpaqueValueExpr>(Base))
    Base = OVE->getSourceExpr() ? OVE->getSourceExpr()->IgnoreParenImpCasts()
                                : Base;
  const auto *DRE = dyn_cast<DeclRefExpr>(Base);
  if (!DRE || !DRE->getDecl()->getIdentifier())
    return std::nullopt;
  llvm::StringRef Var = DRE->getDecl()->getName();
  llvm::StringRef Comp = Ref->getPropertyDecl()->getName();
  if ((Var != "threadIdx" && Var != "blockIdx" && Var != "blockDim" &&
       Var != "gridDim") ||
      Comp.size() != 1)
    return std::nullopt;
  return std::make_pair(Var, Comp.front());
}

bool maxcode::isCudaBuiltin(const Expr *E, llvm::StringRef Var, char Comp) {
  auto B = cudaBuiltinOf(E);
  return B && B->first == Var && B->second == Comp;
}

bool maxcode::isGlobalThreadIndex(const Expr *E, char D) {
  const auto *Add = dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts());
  if (!Add || Add->getOpcode() != BO_Add)
    return false;
  auto IsProduct = [D](const Expr *X) {
    const auto *Mul = dyn_cast<BinaryOperator>(X->IgnoreParenImpCasts());
    if (!Mul || Mul->getOpcode() != BO_Mul)
      return false;
    return (isCudaBuiltin(Mul->getLHS(), "blockIdx", D) &&
            isCudaBuiltin(Mul->getRHS(), "blockDim", D)) ||
           (isCudaBuiltin(Mul->getLHS(), "blockDim", D) &&
            isCudaBuiltin(Mul->getRHS(), "blockIdx", D));
  };
  return (IsProduct(Add->getLHS()) &&
          isCudaBuiltin(Add->getRHS(), "threadIdx", D)) ||
         (IsProduct(Add->getRHS()) &&
          isCudaBuiltin(Add->getLHS(), "threadIdx", D));
}

bool maxcode::usesMultiDimensionalIndex(const Stmt *S) {
  struct Finder : RecursiveASTVisitor<Finder> {
    bool Found = false;
    bool VisitPseudoObjectExpr(PseudoObjectExpr *E) {
      if (auto B = cudaBuiltinOf(E))
        if ((B->first == "threadIdx" || B->first == "blockIdx") &&
            B->second != 'x')
          Found = true;
      return true;
    }
  } F;
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Found;
}

std::vector<const CUDAKernelCallExpr *>
maxcode::findKernelLaunches(ASTContext &AST, const FunctionDecl *Kernel) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const FunctionDecl *Kernel;
    const SourceManager &SM;
    std::vector<const CUDAKernelCallExpr *> Found;
    Finder(const FunctionDecl *K, const SourceManager &SM)
        : Kernel(K), SM(SM) {}
    bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *E) {
      const FunctionDecl *Callee = E->getDirectCallee();
      if (!Callee)
        return true;
      if (const FunctionDecl *P = Callee->getTemplateInstantiationPattern())
        Callee = P;
      if (Callee->getCanonicalDecl() == Kernel->getCanonicalDecl() &&
          SM.isWrittenInMainFile(SM.getExpansionLoc(E->getBeginLoc())))
        Found.push_back(E);
      return true;
    }
  } F(Kernel, AST.getSourceManager());
  F.TraverseDecl(AST.getTranslationUnitDecl());
  return F.Found;
}

const Expr *maxcode::writtenLaunchArg(const CUDAKernelCallExpr *Launch,
                                      unsigned Index) {
  const CallExpr *Config = Launch->getConfig();
  if (!Config || Index >= Config->getNumArgs())
    return nullptr;
  const Expr *E = Config->getArg(Index);
  while (true) {
    E = E->IgnoreImplicit();
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = M->getSubExpr();
      continue;
    }
    if (isa<CXXDefaultArgExpr>(E))
      return nullptr;
    // An implicit dim3(x) conversion: dim3's other arguments defaulted.
    if (const auto *C = dyn_cast<CXXConstructExpr>(E);
        C && !isa<CXXTemporaryObjectExpr>(C) && C->getNumArgs() >= 1 &&
        (C->getNumArgs() == 1 ||
         llvm::all_of(llvm::drop_begin(C->arguments()), [](const Expr *A) {
           return isa<CXXDefaultArgExpr>(A);
         }))) {
      E = C->getArg(0);
      continue;
    }
    return E;
  }
}

std::optional<int64_t> maxcode::integerValue(const Expr *E,
                                             const ASTContext &AST) {
  if (!E || E->isValueDependent() || E->isTypeDependent() ||
      !E->getType()->isIntegralOrUnscopedEnumerationType())
    return std::nullopt;
  if (std::optional<llvm::APSInt> V = E->getIntegerConstantExpr(AST))
    return V->getExtValue();
  return std::nullopt;
}

/// The initializer of a local variable that is never changed after.
static const Expr *unchangedInit(const VarDecl *V, ASTContext &AST) {
  if (!V || !V->hasInit() || !V->isLocalVarDecl())
    return nullptr;
  const auto *FD = dyn_cast<FunctionDecl>(V->getDeclContext());
  if (!FD || !FD->getBody())
    return nullptr;
  ExprMutationAnalyzer A(*FD->getBody(), AST);
  if (!V->getType().isConstQualified() && A.isMutated(V))
    return nullptr;
  return V->getInit();
}

std::optional<int64_t> maxcode::launchBlockSize(const CUDAKernelCallExpr *L,
                                                ASTContext &AST) {
  const Expr *B = writtenLaunchArg(L, 1);
  if (!B)
    return std::nullopt;
  if (std::optional<int64_t> V = integerValue(B, AST))
    return V;
  const Expr *E = B->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const Expr *Init = unchangedInit(dyn_cast<VarDecl>(DRE->getDecl()), AST);
    if (!Init)
      return std::nullopt;
    E = Init->IgnoreImplicit();
    if (std::optional<int64_t> V = integerValue(E, AST))
      return V;
  }
  // dim3(a, b, c) of constants.
  if (const auto *C = dyn_cast<CXXConstructExpr>(E->IgnoreImplicit())) {
    int64_t Product = 1;
    for (const Expr *A : C->arguments()) {
      if (isa<CXXDefaultArgExpr>(A))
        continue;
      std::optional<int64_t> V = integerValue(A, AST);
      if (!V)
        return std::nullopt;
      Product *= *V;
    }
    return Product;
  }
  return std::nullopt;
}

/// True when \p S (a loop body to be) contains a return, a barrier, or a
/// break/continue that would bind to the new loop.
bool maxcode::unsafeInLoop(const Stmt *S) {
  struct Finder : RecursiveASTVisitor<Finder> {
    bool Found = false;
    unsigned Depth = 0;
    bool TraverseForStmt(ForStmt *X) {
      ++Depth;
      bool R = RecursiveASTVisitor::TraverseForStmt(X);
      --Depth;
      return R;
    }
    bool TraverseWhileStmt(WhileStmt *X) {
      ++Depth;
      bool R = RecursiveASTVisitor::TraverseWhileStmt(X);
      --Depth;
      return R;
    }
    bool TraverseDoStmt(DoStmt *X) {
      ++Depth;
      bool R = RecursiveASTVisitor::TraverseDoStmt(X);
      --Depth;
      return R;
    }
    bool TraverseSwitchStmt(SwitchStmt *X) {
      ++Depth;
      bool R = RecursiveASTVisitor::TraverseSwitchStmt(X);
      --Depth;
      return R;
    }
    bool VisitReturnStmt(ReturnStmt *) { return !(Found = true); }
    bool VisitBreakStmt(BreakStmt *) {
      Found |= Depth == 0;
      return true;
    }
    bool VisitContinueStmt(ContinueStmt *) {
      Found |= Depth == 0;
      return true;
    }
    bool VisitCallExpr(CallExpr *C) {
      const FunctionDecl *FD = C->getDirectCallee();
      if (FD && FD->getIdentifier() &&
          (FD->getName().starts_with("__syncthreads") ||
           FD->getName().starts_with("__syncwarp") ||
           FD->getName().starts_with("__shfl")))
        Found = true;
      return !Found;
    }
  } F;
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Found;
}

std::optional<IndexGuard> maxcode::matchIndexGuard(const FunctionDecl *FD,
                                                   ASTContext &AST) {
  const auto *Body = dyn_cast_or_null<CompoundStmt>(FD->getBody());
  if (!Body || Body->size() < 2)
    return std::nullopt;
  auto It = Body->body_begin();
  IndexGuard G;
  G.Decl = dyn_cast<DeclStmt>(*It);
  if (!G.Decl || !G.Decl->isSingleDecl())
    return std::nullopt;
  G.Index = dyn_cast<VarDecl>(G.Decl->getSingleDecl());
  if (!G.Index || !G.Index->getInit() || !G.Index->getType()->isIntegerType() ||
      !isGlobalThreadIndex(G.Index->getInit(), 'x'))
    return std::nullopt;
  ++It;
  const auto *If = dyn_cast<IfStmt>(*It);
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
    return std::nullopt;
  const auto *Cond =
      dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
  if (!Cond)
    return std::nullopt;
  const auto *L = dyn_cast<DeclRefExpr>(Cond->getLHS()->IgnoreParenImpCasts());
  if (!L || L->getDecl() != G.Index)
    return std::nullopt;
  G.Bound = Cond->getRHS();
  G.Guard = If;
  if (Cond->getOpcode() == BO_LT && std::next(It) == Body->body_end()) {
    G.Body.push_back(If->getThen());
  } else if (Cond->getOpcode() == BO_GE && isa<ReturnStmt>(If->getThen()) &&
             !cast<ReturnStmt>(If->getThen())->getRetValue()) {
    G.EarlyReturn = true;
    for (++It; It != Body->body_end(); ++It)
      G.Body.push_back(*It);
    if (G.Body.empty())
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  // The bound and the index must not change inside, and the bound must be
  // cheap to evaluate again.
  if (!isSimpleSideEffectFree(G.Bound, AST))
    return std::nullopt;
  for (const Stmt *S : G.Body) {
    if (isMutatedIn(G.Index, S, AST) || unsafeInLoop(S))
      return std::nullopt;
    for (const VarDecl *V : referencedVars(G.Bound))
      if (isMutatedIn(V, S, AST))
        return std::nullopt;
  }
  return G;
}

std::vector<const FunctionDecl *>
maxcode::deviceFunctions(const RuleContext &Ctx, bool KernelsOnly) {
  std::vector<const FunctionDecl *> Out;
  if (!Ctx.isCuda())
    return Out;
  for (const FunctionDecl *FD : Ctx.getFunctions())
    if (KernelsOnly ? isCudaKernel(FD) : isCudaDeviceCode(FD))
      Out.push_back(FD);
  return Out;
}
