//===-- CudaRestrictLdg.cpp - const __restrict__ and __ldg in kernels -----===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `const T *__restrict__` on the read-only pointer parameters of a kernel
// (and `__restrict__` on the others) when every launch in the file passes
// distinct buffers, so that the compiler may use the read-only data cache;
// as an alternative, with the reads through `__ldg`.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TypeLoc.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;

namespace {

/// The pointer variables a launch passes that each hold their own
/// cudaMalloc'ed buffer, or the arrays they name.
bool launchesPassDistinctBuffers(
    ASTContext &AST, llvm::ArrayRef<const CUDAKernelCallExpr *> Launches,
    llvm::ArrayRef<unsigned> Params) {
  if (Launches.empty())
    return false;
  for (const CUDAKernelCallExpr *L : Launches) {
    llvm::SmallPtrSet<const VarDecl *, 8> Seen;
    for (unsigned I : Params) {
      if (I >= L->getNumArgs())
        return false;
      const Expr *A = L->getArg(I)->IgnoreParenImpCasts();
      const VarDecl *V = storageVariable(A);
      if (!V) {
        // A pointer variable filled by cudaMalloc(&V, ...) and never
        // assigned otherwise holds its own allocation.
        const auto *DRE = dyn_cast<DeclRefExpr>(A);
        V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
        if (!V || !V->isLocalVarDecl() || !V->getType()->isPointerType())
          return false;
        struct Check : RecursiveASTVisitor<Check> {
          const VarDecl *V;
          bool Malloced = false, Assigned = false;
          explicit Check(const VarDecl *V) : V(V) {}
          bool VisitCallExpr(CallExpr *C) {
            const FunctionDecl *FD = C->getDirectCallee();
            if (!FD || !FD->getIdentifier() ||
                !FD->getName().starts_with("cudaMalloc") || C->getNumArgs() < 1)
              return true;
            const Expr *Arg = C->getArg(0)->IgnoreParenCasts();
            if (const auto *U = dyn_cast<UnaryOperator>(Arg))
              if (U->getOpcode() == UO_AddrOf)
                if (const auto *D = dyn_cast<DeclRefExpr>(
                        U->getSubExpr()->IgnoreParenCasts()))
                  Malloced |= D->getDecl() == V;
            return true;
          }
          bool VisitBinaryOperator(BinaryOperator *B) {
            if (B->isAssignmentOp())
              if (const auto *D =
                      dyn_cast<DeclRefExpr>(B->getLHS()->IgnoreParenImpCasts()))
                Assigned |= D->getDecl() == V;
            return true;
          }
        } C(V);
        const auto *FD = dyn_cast<FunctionDecl>(V->getDeclContext());
        if (!FD || !FD->getBody())
          return false;
        C.TraverseStmt(FD->getBody());
        if (!C.Malloced || C.Assigned || V->hasInit())
          return false;
      }
      if (!Seen.insert(V).second)
        return false;
    }
  }
  return true;
}

/// Types __ldg has an overload for.
bool isLdgType(QualType T) {
  T = T.getCanonicalType().getUnqualifiedType();
  if (const auto *BT = T->getAs<BuiltinType>())
    return BT->isInteger() || BT->getKind() == BuiltinType::Float ||
           BT->getKind() == BuiltinType::Double;
  if (const auto *RD = T->getAsRecordDecl())
    return RD->getIdentifier() &&
           llvm::StringSwitch<bool>(RD->getName())
               .Cases({"float2", "float4", "double2", "int2", "int4"}, true)
               .Cases({"uint2", "uint4", "char2", "char4", "short2"}, true)
               .Cases({"short4", "uchar2", "uchar4", "ushort2", "ushort4"},
                      true)
               .Default(false);
  return false;
}

/// True when \p P is passed to a call (its pointee may be written there).
bool passedToCall(const ParmVarDecl *P, const Stmt *Body) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const ParmVarDecl *P;
    bool Found = false;
    explicit Finder(const ParmVarDecl *P) : P(P) {}
    bool VisitCallExpr(CallExpr *C) {
      const FunctionDecl *Callee = C->getDirectCallee();
      for (unsigned I = 0; I < C->getNumArgs(); ++I) {
        const Expr *A = C->getArg(I);
        // An element passed by value cannot be written through.
        if (Callee && I < Callee->getNumParams()) {
          QualType PT = Callee->getParamDecl(I)->getType();
          if (!PT->isPointerType() &&
              !(PT->isReferenceType() &&
                !PT.getNonReferenceType().isConstQualified()))
            continue;
        }
        const VarDecl *V = nullptr;
        const Expr *X = A->IgnoreParenImpCasts();
        if (const auto *U = dyn_cast<UnaryOperator>(X))
          if (U->getOpcode() == UO_AddrOf)
            X = U->getSubExpr()->IgnoreParenImpCasts();
        if (const auto *AS = dyn_cast<ArraySubscriptExpr>(X))
          X = AS->getBase()->IgnoreParenImpCasts();
        if (const auto *B = dyn_cast<BinaryOperator>(X))
          X = B->getLHS()->IgnoreParenImpCasts();
        if (const auto *D = dyn_cast<DeclRefExpr>(X))
          V = dyn_cast<VarDecl>(D->getDecl());
        if (V == P)
          Found = true;
      }
      return true;
    }
  } F(P);
  F.TraverseStmt(const_cast<Stmt *>(Body));
  return F.Found;
}

class CudaRestrictLdgRule : public Rule {
public:
  CudaRestrictLdgRule()
      : Rule("cuda-restrict-ldg",
             "const __restrict__ on read-only kernel pointers (distinct "
             "buffers at every launch), and reads through __ldg",
             "const __restrict__", RuleLanguages::Cuda) {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    for (const FunctionDecl *FD : deviceFunctions(Ctx, true)) {
      if (std::distance(FD->redecls_begin(), FD->redecls_end()) != 1)
        continue;
      std::vector<unsigned> Ptrs;
      std::vector<bool> ReadOnly;
      for (unsigned I = 0; I < FD->getNumParams(); ++I) {
        const ParmVarDecl *P = FD->getParamDecl(I);
        if (!P->getType()->isPointerType() ||
            P->getType().isRestrictQualified())
          continue;
        Ptrs.push_back(I);
        ReadOnly.push_back(!writesThrough(P, FD->getBody()) &&
                           !passedToCall(P, FD->getBody()));
      }
      if (Ptrs.empty() || llvm::none_of(ReadOnly, [](bool B) { return B; }))
        continue;
      if (!launchesPassDistinctBuffers(AST, findKernelLaunches(AST, FD), Ptrs))
        continue;
      RuleEdit A = makeEdit("", 35);
      A.Group = "cuda-restrict-ldg:" + FD->getNameAsString();
      bool Ok = true;
      for (size_t K = 0; K < Ptrs.size() && Ok; ++K) {
        const ParmVarDecl *P = FD->getParamDecl(Ptrs[K]);
        TypeLoc TL = P->getTypeSourceInfo()->getTypeLoc();
        auto PTL = TL.getAs<PointerTypeLoc>();
        auto Star = PTL ? Ctx.getEditRange(SourceRange(PTL.getStarLoc()))
                        : std::nullopt;
        auto Begin = Ctx.getEditRange(SourceRange(TL.getBeginLoc()));
        if (!Star || !Begin) {
          Ok = false;
          break;
        }
        if (ReadOnly[K] && !P->getType()->getPointeeType().isConstQualified())
          Ok &= insertText(A, Ctx, Begin->getBegin(), "const ");
        Ok &= insertText(A, Ctx, Star->getEnd(), " __restrict__ ");
      }
      if (!Ok)
        continue;
      A.Description = "const __restrict__ pointers in " + FD->getNameAsString();
      // With __ldg on the reads of the read-only ones.
      RuleEdit B = A;
      B.Score = 33;
      B.Label = "__ldg";
      unsigned Loads = 0;
      struct Reads : RecursiveASTVisitor<Reads> {
        llvm::SmallPtrSet<const ParmVarDecl *, 8> Params;
        std::vector<const ArraySubscriptExpr *> Found;
        bool VisitImplicitCastExpr(ImplicitCastExpr *C) {
          if (C->getCastKind() != CK_LValueToRValue)
            return true;
          const auto *AS =
              dyn_cast<ArraySubscriptExpr>(C->getSubExpr()->IgnoreParens());
          if (!AS)
            return true;
          if (const auto *D =
                  dyn_cast<DeclRefExpr>(AS->getBase()->IgnoreParenImpCasts()))
            if (const auto *P = dyn_cast<ParmVarDecl>(D->getDecl()))
              if (Params.count(P) && isLdgType(AS->getType()))
                Found.push_back(AS);
          return true;
        }
      } R;
      for (size_t K = 0; K < Ptrs.size(); ++K)
        if (ReadOnly[K])
          R.Params.insert(FD->getParamDecl(Ptrs[K]));
      R.TraverseStmt(FD->getBody());
      for (const ArraySubscriptExpr *AS : R.Found) {
        auto Range = Ctx.getEditRange(AS->getSourceRange());
        if (!Range)
          continue;
        RuleEdit Trial = B;
        if (insertText(Trial, Ctx, Range->getBegin(), "__ldg(&") &&
            insertText(Trial, Ctx, Range->getEnd(), ")")) {
          B = std::move(Trial);
          ++Loads;
        }
      }
      Out.push_back(std::move(A));
      if (Loads) {
        B.Description =
            llvm::formatv("const __restrict__ pointers and {0} "
                          "__ldg load{1} in {2}",
                          Loads, Loads == 1 ? "" : "s", FD->getNameAsString());
        Out.push_back(std::move(B));
      }
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createCudaRestrictLdgRule() {
  return std::make_unique<CudaRestrictLdgRule>();
}
