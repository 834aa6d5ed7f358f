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

/// Whether every use of a pointer in a function body only reads what it
/// points to, so that its pointee may be made `const`: reads (`P[i]`,
/// `*P`, `P->m` as values), pointer arithmetic and comparison, passing it
/// to `const T *` or `const T &` parameters, const member calls, and copies
/// into local pointers that themselves only read. Anything else counts as a
/// write: assignment, compound assignment, ++ and --, overloaded operators
/// and member calls on non-const objects, passing to a non-const parameter
/// or reference, casts that drop `const`, atomics, inline asm, returning
/// it, and whatever this does not recognise (an allow-list, not a
/// deny-list: what it cannot read is never made const).
class PointeeUses {
public:
  explicit PointeeUses(const Stmt *Body) {
    if (Body)
      index(Body);
  }

  bool onlyRead(const VarDecl *V) {
    Seen.clear();
    return usesOnlyRead(V);
  }

private:
  bool usesOnlyRead(const VarDecl *V) {
    if (!Seen.insert(V).second)
      return true; // Already being checked: its other uses decide.
    for (const auto &[Child, Parent] : Parents)
      if (const auto *D = dyn_cast<DeclRefExpr>(Child))
        if (D->getDecl() == V && !follow(D, Use::Variable))
          return false;
    return true;
  }

  /// What an expression on the way up designates.
  enum class Use {
    Variable, ///< The pointer variable itself, as an lvalue.
    Pointer,  ///< A pointer value into the pointee.
    Object,   ///< An lvalue within the pointee.
  };

  llvm::DenseMap<const Stmt *, const Stmt *> Parents;
  llvm::SmallPtrSet<const VarDecl *, 4> Seen;

  void index(const Stmt *S) {
    for (const Stmt *C : S->children())
      if (C) {
        Parents[C] = S;
        index(C);
      }
  }

  static bool pointsToConst(QualType T) {
    return T->isPointerType() && T->getPointeeType().isConstQualified();
  }

  /// A variable initialised from the pointer: one whose type points to
  /// const, or a local `auto` (its type becomes const with the pointer's)
  /// through which nothing writes. A `T *` one would not compile.
  bool initialises(const VarDecl *V) {
    if (pointsToConst(V->getType()))
      return true;
    return V->isLocalVarDecl() && V->getType()->getContainedDeducedType() &&
           V->getType()->isPointerType() && usesOnlyRead(V);
  }

  /// Whether argument \p Arg of \p Call, designating \p U, is only read
  /// by the callee.
  static bool argumentRead(const CallExpr *Call, const Expr *Arg, Use U) {
    unsigned I = 0;
    while (I < Call->getNumArgs() && Call->getArg(I) != Arg)
      ++I;
    const FunctionDecl *F = Call->getDirectCallee();
    if (I == Call->getNumArgs() || !F)
      return false;
    const auto *M = dyn_cast<CXXMethodDecl>(F);
    if (isa<CXXOperatorCallExpr>(Call) && M && !M->isStatic()) {
      // The object an overloaded member operator is called on.
      if (I == 0)
        return U == Use::Object && M->isConst();
      --I;
    }
    if (I >= F->getNumParams())
      return false; // Through `...`: unknown.
    QualType T = F->getParamDecl(I)->getType();
    if (U == Use::Pointer)
      return pointsToConst(T);
    return !T->isReferenceType() || T.getNonReferenceType().isConstQualified();
  }

  bool follow(const Expr *E, Use U) {
    const Stmt *P = Parents.lookup(E);
    while (P && isa<ParenExpr>(P)) {
      E = cast<Expr>(P);
      P = Parents.lookup(E);
    }
    if (!P)
      return false;
    if (const auto *C = dyn_cast<ImplicitCastExpr>(P)) {
      switch (C->getCastKind()) {
      case CK_LValueToRValue:
        return U == Use::Object ||
               (U == Use::Variable && follow(C, Use::Pointer));
      case CK_ArrayToPointerDecay:
        return U != Use::Pointer && follow(C, Use::Pointer);
      case CK_PointerToBoolean:
        return U == Use::Pointer;
      case CK_NoOp:
      case CK_BitCast:
        if (U == Use::Pointer && pointsToConst(C->getType()))
          return true;
        if (U == Use::Object && C->getType().isConstQualified())
          return true;
        return C->getCastKind() == CK_NoOp && follow(C, U);
      case CK_UncheckedDerivedToBase:
      case CK_DerivedToBase:
        return U == Use::Object
                   ? follow(C, U)
                   : U == Use::Pointer && pointsToConst(C->getType());
      default:
        return false;
      }
    }
    // A cast written out reads only when it keeps the pointee const.
    if (const auto *C = dyn_cast<ExplicitCastExpr>(P))
      return U == Use::Pointer && pointsToConst(C->getType());
    if (U == Use::Variable) {
      // The pointer moved or replaced leaves its pointee alone; its
      // address taken or bound to a reference does not.
      if (const auto *Op = dyn_cast<UnaryOperator>(P))
        return Op->isIncrementDecrementOp();
      if (const auto *B = dyn_cast<BinaryOperator>(P))
        return B->isAssignmentOp() && B->getLHS() == E;
      return false;
    }
    if (const auto *S = dyn_cast<ArraySubscriptExpr>(P))
      return U == Use::Pointer && S->getBase() == E && follow(S, Use::Object);
    if (const auto *Op = dyn_cast<UnaryOperator>(P)) {
      switch (Op->getOpcode()) {
      case UO_Deref:
        return U == Use::Pointer && follow(Op, Use::Object);
      case UO_AddrOf:
        return U == Use::Object && follow(Op, Use::Pointer);
      case UO_LNot:
        return U == Use::Pointer;
      default:
        return false;
      }
    }
    if (const auto *M = dyn_cast<MemberExpr>(P)) {
      if (M->getBase() != E || M->isArrow() != (U == Use::Pointer))
        return false;
      if (isa<FieldDecl>(M->getMemberDecl()))
        return follow(M, Use::Object);
      const auto *MD = dyn_cast<CXXMethodDecl>(M->getMemberDecl());
      return MD && (MD->isConst() || MD->isStatic());
    }
    if (const auto *B = dyn_cast<BinaryOperator>(P)) {
      if (U != Use::Pointer)
        return false;
      if (B->isAdditiveOp() && B->getType()->isPointerType())
        return follow(B, Use::Pointer);
      if (B->isComparisonOp() || B->isLogicalOp() || B->getOpcode() == BO_Sub)
        return true;
      if (B->getOpcode() == BO_Comma)
        return B->getLHS() == E || follow(B, Use::Pointer);
      return B->getOpcode() == BO_Assign && B->getRHS() == E &&
             pointsToConst(B->getLHS()->getType());
    }
    if (const auto *C = dyn_cast<ConditionalOperator>(P))
      return C->getCond() == E || follow(C, U);
    if (const auto *Call = dyn_cast<CallExpr>(P))
      return Call->getCallee() != E && argumentRead(Call, E, U);
    if (const auto *C = dyn_cast<CXXConstructExpr>(P)) {
      // A copy of (part of) the pointee: a const reference parameter.
      const CXXConstructorDecl *Ctor = C->getConstructor();
      for (unsigned I = 0; I < C->getNumArgs(); ++I)
        if (C->getArg(I) == E)
          return U == Use::Object && I < Ctor->getNumParams() &&
                 Ctor->getParamDecl(I)->getType()->isReferenceType() &&
                 Ctor->getParamDecl(I)
                     ->getType()
                     .getNonReferenceType()
                     .isConstQualified();
      return false;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(P)) {
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D); V && V->getInit() == E) {
          if (U == Use::Pointer)
            return initialises(V);
          return V->getType()->isReferenceType() &&
                 V->getType().getNonReferenceType().isConstQualified();
        }
      return false;
    }
    if (isa<UnaryExprOrTypeTraitExpr>(P))
      return true; // sizeof: not evaluated.
    return false;
  }
};

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
      PointeeUses Uses(FD->getBody());
      for (unsigned I = 0; I < FD->getNumParams(); ++I) {
        const ParmVarDecl *P = FD->getParamDecl(I);
        if (!P->getType()->isPointerType() ||
            P->getType().isRestrictQualified())
          continue;
        Ptrs.push_back(I);
        ReadOnly.push_back(Uses.onlyRead(P));
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
