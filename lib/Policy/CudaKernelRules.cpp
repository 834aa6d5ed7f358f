//===-- CudaKernelRules.cpp - Local rewrites of CUDA kernels --------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
//   cuda-unroll         `#pragma unroll` (full for constant trip counts, else
//                       2, 4 or 8) on the innermost loops of device code.
//   cuda-restrict-ldg   `const T *__restrict__` on read-only pointer
//                       parameters (and `__restrict__` on the others) when
//                       every launch passes distinct buffers; with it, reads
//                       through __ldg.
//   cuda-fast-math      expf, logf, sinf, ... to __expf, __logf, __sinf, ...;
//                       with it, float division to __fdividef.
//   cuda-grid-stride    `i = global index; if (i < n) body` to a grid-stride
//                       loop, correct for any grid.
//
//===----------------------------------------------------------------------===//

#include "Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;

namespace {

std::vector<const FunctionDecl *> deviceFunctions(const RuleContext &Ctx,
                                                  bool KernelsOnly) {
  std::vector<const FunctionDecl *> Out;
  if (!Ctx.isCuda())
    return Out;
  for (const FunctionDecl *FD : editableFunctions(Ctx))
    if (KernelsOnly ? isCudaKernel(FD) : isCudaDeviceCode(FD))
      Out.push_back(FD);
  return Out;
}

std::string indentOf(llvm::StringRef Code, unsigned Offset) {
  size_t LineBegin = Code.rfind('\n', Offset);
  LineBegin = LineBegin == llvm::StringRef::npos ? 0 : LineBegin + 1;
  llvm::StringRef Line = Code.slice(LineBegin, Offset);
  return Line.take_while([](char C) { return C == ' ' || C == '\t'; }).str();
}

bool onOwnLine(llvm::StringRef Code, unsigned Offset) {
  size_t LineBegin = Code.rfind('\n', Offset);
  LineBegin = LineBegin == llvm::StringRef::npos ? 0 : LineBegin + 1;
  return Code.slice(LineBegin, Offset).trim().empty();
}

bool previousLineIsPragma(llvm::StringRef Code, unsigned Offset) {
  size_t LineBegin = Code.rfind('\n', Offset);
  if (LineBegin == llvm::StringRef::npos || LineBegin == 0)
    return false;
  size_t PrevBegin = Code.rfind('\n', LineBegin - 1);
  PrevBegin = PrevBegin == llvm::StringRef::npos ? 0 : PrevBegin + 1;
  return Code.slice(PrevBegin, LineBegin).trim().starts_with("#pragma");
}

struct ForFinder : RecursiveASTVisitor<ForFinder> {
  std::vector<const ForStmt *> Loops;
  unsigned AllLoops = 0;
  bool VisitForStmt(ForStmt *S) {
    Loops.push_back(S);
    ++AllLoops;
    return true;
  }
  bool VisitWhileStmt(WhileStmt *) {
    ++AllLoops;
    return true;
  }
  bool VisitDoStmt(DoStmt *) {
    ++AllLoops;
    return true;
  }
};

/// A loop whose trip count the compiler knows: `i < 8`, `i < N` with a
/// template parameter or constexpr N.
bool hasConstantTripCount(const ForStmt *F, const ASTContext &AST) {
  const auto *Cond =
      dyn_cast_or_null<BinaryOperator>(F->getCond()
                                           ? F->getCond()->IgnoreParenImpCasts()
                                           : nullptr);
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

class CudaUnrollRule : public Rule {
public:
  CudaUnrollRule()
      : Rule("cuda-unroll", "#pragma unroll on the innermost loops of device "
                            "code (full for constant trip counts, else 2, 4 "
                            "or 8)") {}
  bool isCudaOnly() const override { return true; }

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    llvm::StringRef Code = Ctx.getCode();
    const SourceManager &SM = Ctx.getSourceManager();
    struct Place {
      unsigned Offset;
      bool Constant;
    };
    std::vector<Place> Places;
    for (const FunctionDecl *FD : deviceFunctions(Ctx, false)) {
      ForFinder F;
      F.TraverseStmt(FD->getBody());
      for (const ForStmt *S : F.Loops) {
        ForFinder Inner;
        Inner.TraverseStmt(const_cast<Stmt *>(S->getBody()));
        if (Inner.AllLoops)
          continue;
        SourceLocation B = SM.getExpansionLoc(S->getBeginLoc());
        auto Off = Ctx.getFileOffset(B);
        if (!Off || *Off < Ctx.getEditBegin() || *Off >= Ctx.getEditEnd() ||
            !onOwnLine(Code, *Off) || previousLineIsPragma(Code, *Off))
          continue;
        Places.push_back({*Off, hasConstantTripCount(S, Ctx.getASTContext())});
      }
    }
    if (Places.empty())
      return;
    // Full unrolling where the count is known, and each factor everywhere
    // else.
    for (unsigned Factor : {0u, 4u, 2u, 8u}) {
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
        if (!addReplacement(E, Ctx, P.Offset, 0,
                            Pragma + "\n" + indentOf(Code, P.Offset)))
          return;
        ++N;
      }
      if (!N || (Factor && llvm::all_of(Places, [](const Place &P) {
                   return P.Constant;
                 }) && Factor != 4))
        continue;
      E.Description =
          Factor == 0
              ? llvm::formatv("fully unroll {0} constant-count loop{1}", N,
                              N == 1 ? "" : "s")
                    .str()
              : llvm::formatv("unroll {0} innermost loop{1} by {2}", N,
                              N == 1 ? "" : "s", Factor)
                    .str();
      Out.push_back(std::move(E));
    }
  }
};

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
                !FD->getName().starts_with("cudaMalloc") ||
                C->getNumArgs() < 1)
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
               .Cases("float2", "float4", "double2", "int2", "int4", true)
               .Cases("uint2", "uint4", "char2", "char4", "short2", true)
               .Cases("short4", "uchar2", "uchar4", "ushort2", "ushort4", true)
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
             "buffers at every launch), and reads through __ldg") {}
  bool isCudaOnly() const override { return true; }

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
        auto PTL = P->getTypeSourceInfo()->getTypeLoc().getAs<PointerTypeLoc>();
        auto Star = PTL ? Ctx.getFileOffset(PTL.getStarLoc()) : std::nullopt;
        auto Begin = Ctx.getFileOffset(
            P->getTypeSourceInfo()->getTypeLoc().getBeginLoc());
        if (!Star || !Begin) {
          Ok = false;
          break;
        }
        if (ReadOnly[K] && !P->getType()->getPointeeType().isConstQualified())
          Ok &= addReplacement(A, Ctx, *Begin, 0, "const ");
        bool SpaceAfter = *Star + 1 < Ctx.getCode().size() &&
                          llvm::isSpace(Ctx.getCode()[*Star + 1]);
        Ok &= addReplacement(A, Ctx, *Star + 1, 0,
                             SpaceAfter ? " __restrict__" : " __restrict__ ");
      }
      if (!Ok)
        continue;
      A.Description = "const __restrict__ pointers in " +
                      FD->getNameAsString();
      // With __ldg on the reads of the read-only ones.
      RuleEdit B = A;
      B.Score = 33;
      unsigned Loads = 0;
      struct Reads : RecursiveASTVisitor<Reads> {
        llvm::SmallPtrSet<const ParmVarDecl *, 8> Params;
        std::vector<const ArraySubscriptExpr *> Found;
        ASTContext &AST;
        explicit Reads(ASTContext &AST) : AST(AST) {}
        bool VisitImplicitCastExpr(ImplicitCastExpr *C) {
          if (C->getCastKind() != CK_LValueToRValue)
            return true;
          const auto *AS =
              dyn_cast<ArraySubscriptExpr>(C->getSubExpr()->IgnoreParens());
          if (!AS)
            return true;
          if (const auto *D = dyn_cast<DeclRefExpr>(
                  AS->getBase()->IgnoreParenImpCasts()))
            if (const auto *P = dyn_cast<ParmVarDecl>(D->getDecl()))
              if (Params.count(P) && isLdgType(AS->getType()))
                Found.push_back(AS);
          return true;
        }
      } R(AST);
      for (size_t K = 0; K < Ptrs.size(); ++K)
        if (ReadOnly[K])
          R.Params.insert(FD->getParamDecl(Ptrs[K]));
      R.TraverseStmt(FD->getBody());
      for (const ArraySubscriptExpr *AS : R.Found) {
        auto Range = Ctx.getFileRange(AS->getSourceRange());
        if (!Range)
          continue;
        RuleEdit Trial = B;
        if (addReplacement(Trial, Ctx, Range->first, 0, "__ldg(&") &&
            addReplacement(Trial, Ctx, Range->second, 0, ")")) {
          B = std::move(Trial);
          ++Loads;
        }
      }
      Out.push_back(std::move(A));
      if (Loads) {
        B.Description = llvm::formatv("const __restrict__ pointers and {0} "
                                      "__ldg load{1} in {2}",
                                      Loads, Loads == 1 ? "" : "s",
                                      FD->getNameAsString());
        Out.push_back(std::move(B));
      }
    }
  }
};

/// The fast intrinsic for a float math function, or "".
llvm::StringRef fastIntrinsicFor(llvm::StringRef Name) {
  return llvm::StringSwitch<llvm::StringRef>(Name)
      .Cases("exp", "expf", "__expf")
      .Cases("exp10", "exp10f", "__exp10f")
      .Cases("log", "logf", "__logf")
      .Cases("log2", "log2f", "__log2f")
      .Cases("log10", "log10f", "__log10f")
      .Cases("sin", "sinf", "__sinf")
      .Cases("cos", "cosf", "__cosf")
      .Cases("tan", "tanf", "__tanf")
      .Cases("pow", "powf", "__powf")
      .Default("");
}

class CudaFastMathRule : public Rule {
public:
  CudaFastMathRule()
      : Rule("cuda-fast-math", "float math in device code to the fast "
                               "intrinsics (__expf, __logf, __sinf, ...), "
                               "optionally __fdividef") {}
  bool isCudaOnly() const override { return true; }

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    struct Finder : RecursiveASTVisitor<Finder> {
      std::vector<const CallExpr *> Calls;
      std::vector<const BinaryOperator *> Divs;
      bool VisitCallExpr(CallExpr *C) {
        const FunctionDecl *FD = C->getDirectCallee();
        if (!FD || !FD->getIdentifier() ||
            fastIntrinsicFor(FD->getName()).empty())
          return true;
        // The float overload only: no intrinsic keeps double precision.
        if (!FD->getReturnType()->isSpecificBuiltinType(BuiltinType::Float) ||
            llvm::any_of(FD->parameters(), [](const ParmVarDecl *P) {
              return !P->getType()->isSpecificBuiltinType(BuiltinType::Float);
            }))
          return true;
        Calls.push_back(C);
        return true;
      }
      bool VisitBinaryOperator(BinaryOperator *B) {
        if (B->getOpcode() == BO_Div &&
            B->getType()->isSpecificBuiltinType(BuiltinType::Float) &&
            B->getLHS()->getType()->isSpecificBuiltinType(BuiltinType::Float) &&
            B->getRHS()->getType()->isSpecificBuiltinType(BuiltinType::Float))
          Divs.push_back(B);
        return true;
      }
    };
    Finder F;
    for (const FunctionDecl *FD : deviceFunctions(Ctx, false))
      F.TraverseStmt(FD->getBody());
    RuleEdit A = makeEdit("", 40);
    A.Group = "cuda-fast-math";
    unsigned Calls = 0;
    for (const CallExpr *C : F.Calls) {
      const Expr *Callee = C->getCallee()->IgnoreParenImpCasts();
      auto R = Ctx.getFileRange(Callee->getSourceRange());
      if (!R)
        continue;
      if (addReplacement(A, Ctx, R->first, R->second - R->first,
                         fastIntrinsicFor(C->getDirectCallee()->getName())))
        ++Calls;
    }
    RuleEdit B = A;
    B.Score = 36;
    unsigned Divs = 0;
    for (const BinaryOperator *D : F.Divs) {
      auto L = Ctx.getFileRange(D->getLHS()->getSourceRange());
      auto R = Ctx.getFileRange(D->getRHS()->getSourceRange());
      auto Whole = Ctx.getFileRange(D->getSourceRange());
      if (!L || !R || !Whole)
        continue;
      // Operands keep their text (and any edits inside them).
      RuleEdit Trial = B;
      if (addReplacement(Trial, Ctx, Whole->first, 0, "__fdividef(") &&
          addReplacement(Trial, Ctx, L->second, R->first - L->second, ", ") &&
          addReplacement(Trial, Ctx, Whole->second, 0, ")")) {
        B = std::move(Trial);
        ++Divs;
      }
    }
    if (Calls) {
      A.Description = llvm::formatv("fast math intrinsics ({0} call{1})",
                                    Calls, Calls == 1 ? "" : "s");
      Out.push_back(A);
    }
    if (Divs) {
      B.Description =
          llvm::formatv("fast math intrinsics ({0} call{1}) and __fdividef "
                        "({2} division{3})",
                        Calls, Calls == 1 ? "" : "s", Divs,
                        Divs == 1 ? "" : "s");
      Out.push_back(std::move(B));
    }
  }
};

class CudaGridStrideRule : public Rule {
public:
  CudaGridStrideRule()
      : Rule("cuda-grid-stride", "`i = global index; if (i < n)` kernels to "
                                 "grid-stride loops (correct for any grid)") {}
  bool isCudaOnly() const override { return true; }

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    llvm::StringRef Code = Ctx.getCode();
    for (const FunctionDecl *FD : deviceFunctions(Ctx, true)) {
      std::optional<IndexGuard> G = matchIndexGuard(FD, AST);
      if (!G)
        continue;
      auto DeclR = Ctx.getFileRange(G->Decl->getSourceRange());
      auto InitR = Ctx.getFileRange(G->Index->getInit()->getSourceRange());
      auto BoundR = Ctx.getFileRange(G->Bound->getSourceRange());
      auto FirstR = Ctx.getFileRange(G->Body.front()->getSourceRange());
      auto LastR = Ctx.getFileRange(G->Body.back()->getSourceRange());
      const auto *KBody = cast<CompoundStmt>(FD->getBody());
      auto RBrace = Ctx.getFileOffset(KBody->getRBracLoc());
      if (!DeclR || !InitR || !BoundR || !FirstR || !LastR || !RBrace)
        continue;
      std::string Type = G->Index->getType().getAsString();
      std::string Name = G->Index->getNameAsString();
      std::string Header = "for (" + Type + " " + Name + " = " +
                           Ctx.getText(InitR->first, InitR->second).str() +
                           "; " + Name + " < " +
                           Ctx.getText(BoundR->first, BoundR->second).str() +
                           "; " + Name + " += blockDim.x * gridDim.x)";
      // The statements the loop runs, as written (a compound body keeps its
      // braces; the statements after an early return get new ones).
      unsigned BodyEnd = G->EarlyReturn ? *RBrace : LastR->second;
      if (!G->EarlyReturn && !isa<CompoundStmt>(G->Body.front())) {
        // `if (i < n) stmt;`: the statement ends at its semicolon.
        size_t Semi = Code.find(';', LastR->second);
        if (Semi == llvm::StringRef::npos || Semi > *RBrace)
          continue;
        BodyEnd = Semi + 1;
      }
      std::string Stmts = Ctx.getText(FirstR->first, BodyEnd).str();
      std::string Indent = indentOf(Code, DeclR->first);
      // After an early return the statements move one level in.
      std::string Moved;
      for (char C : llvm::StringRef(Stmts).rtrim()) {
        Moved += C;
        if (C == '\n')
          Moved += "  ";
      }
      std::string Text = G->EarlyReturn ? Header + " {\n" + Indent + "  " +
                                              Moved + "\n" + Indent + "}\n"
                                        : Header + " " + Stmts;
      unsigned ReplaceEnd = BodyEnd;
      if (G->EarlyReturn) {
        // Up to the kernel's closing brace, keeping its line's indentation.
        ReplaceEnd = *RBrace;
        size_t LineBegin = Code.rfind('\n', *RBrace);
        if (LineBegin != llvm::StringRef::npos &&
            Code.slice(LineBegin + 1, *RBrace).trim().empty())
          ReplaceEnd = LineBegin + 1;
      }
      RuleEdit E = makeEdit("grid-stride loop in " + FD->getNameAsString(),
                            25);
      if (!addReplacement(E, Ctx, DeclR->first, ReplaceEnd - DeclR->first,
                          Text))
        continue;
      Out.push_back(std::move(E));
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createCudaUnrollRule() {
  return std::make_unique<CudaUnrollRule>();
}
std::unique_ptr<Rule> maxcode::createCudaRestrictLdgRule() {
  return std::make_unique<CudaRestrictLdgRule>();
}
std::unique_ptr<Rule> maxcode::createCudaFastMathRule() {
  return std::make_unique<CudaFastMathRule>();
}
std::unique_ptr<Rule> maxcode::createCudaGridStrideRule() {
  return std::make_unique<CudaGridStrideRule>();
}
