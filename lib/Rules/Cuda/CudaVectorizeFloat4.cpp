//===-- CudaVectorizeFloat4.cpp - Element-wise kernels on float4 ----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Element-wise float/int kernels (`i = global index; if (i < n) ...a[i]...`)
// load and store four elements at a time (float4/int4) when every buffer
// is 16-byte aligned, with the scalar loop for the rest and as the path
// taken otherwise, so the kernel is correct for any launch.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "maxcode/Support/Debug.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#define DEBUG_TYPE "maxcode-rules"

using namespace maxcode;
using namespace clang;

namespace {

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
             "(scalar when unaligned)",
             "float4 loads", RuleLanguages::Cuda) {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    for (const FunctionDecl *K : deviceFunctions(Ctx, true)) {
      std::optional<IndexGuard> G = matchIndexGuard(K, AST);
      if (!G)
        continue;
      std::vector<Access> Accesses;
      std::vector<const DeclRefExpr *> IndexUses;
      QualType Elem;
      if (!collect(*G, AST, Accesses, IndexUses, Elem))
        continue;
      if (std::optional<RuleEdit> E =
              vectorize(Ctx, K, *G, Accesses, IndexUses, Elem))
        Out.push_back(std::move(*E));
    }
  }

private:
  /// The parameters a kernel accesses, how, and their vector variables.
  struct ParamUses {
    std::vector<const ParmVarDecl *> Params; ///< In order of first access.
    llvm::DenseMap<const ParmVarDecl *, bool> Read, Written, Conditional;
    llvm::DenseMap<const ParmVarDecl *, std::string> VecName;
  };

  /// The vector version of kernel \p K, or none when it cannot be written.
  std::optional<RuleEdit>
  vectorize(const RuleContext &Ctx, const FunctionDecl *K, const IndexGuard &G,
            llvm::ArrayRef<Access> Accesses,
            llvm::ArrayRef<const DeclRefExpr *> IndexUses,
            QualType Elem) const {
    ASTContext &AST = Ctx.getASTContext();
    std::string Vec =
        Elem->isSpecificBuiltinType(BuiltinType::Float) ? "float4" : "int4";
    auto Stmts = statementsRange(Ctx, G.Body.front(), G.Body.back());
    auto Whole =
        statementsRange(Ctx, G.Decl, G.EarlyReturn ? G.Body.back() : G.Guard);
    std::string BoundText = Ctx.getSourceText(G.Bound).str();
    std::string InitText = Ctx.getSourceText(G.Index->getInit()).str();
    if (!Stmts || !Whole || BoundText.empty() || InitText.empty())
      return std::nullopt;
    std::string Body = Ctx.getText(*Stmts).str();
    if (G.EarlyReturn || !isa<CompoundStmt>(G.Body.front()))
      Body = "{\n" + Body + "\n}";
    std::string Bound = "(" + BoundText + ")";
    // Without its const: the loops below change their copies.
    std::string IndexType =
        G.Index->getType().getUnqualifiedType().getAsString();
    std::string I = G.Index->getNameAsString();
    std::string Tid = Ctx.getFreshName("Tid");
    std::string Stride = Ctx.getFreshName("Stride");
    std::string V = Ctx.getFreshName("Vec");
    ParamUses U = paramUses(Ctx, G, Accesses, AST);

    std::string Aligned;
    for (const ParmVarDecl *P : U.Params)
      Aligned += (Aligned.empty() ? "" : " | ") +
                 ("reinterpret_cast<unsigned long long>(" +
                  P->getNameAsString() + ")");
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    OS << "const " << IndexType << " " << Tid << " = " << InitText << ";\n"
       << "const " << IndexType << " " << Stride
       << " = blockDim.x * gridDim.x;\n"
       << "if (((" << Aligned << ") & 15) == 0) {\n"
       << "for (" << IndexType << " " << V << " = " << Tid << "; " << V << " < "
       << Bound << " / 4; " << V << " += " << Stride << ") {\n";
    for (const ParmVarDecl *P : U.Params) {
      std::string Name = P->getNameAsString();
      bool Load =
          U.Read.lookup(P) || U.Conditional.lookup(P) || !U.Written.lookup(P);
      bool Store = U.Written.lookup(P);
      OS << (Store ? "" : "const ") << Vec << " " << U.VecName[P];
      if (Load)
        OS << " = reinterpret_cast<" << (Store ? "" : "const ") << Vec << " *>("
           << Name << ")[" << V << "]";
      OS << ";\n";
    }
    if (!writeLanes(Ctx, Accesses, IndexUses, U, V, *Stmts, OS))
      return std::nullopt;
    for (const ParmVarDecl *P : U.Params)
      if (U.Written.lookup(P))
        OS << "reinterpret_cast<" << Vec << " *>(" << P->getNameAsString()
           << ")[" << V << "] = " << U.VecName[P] << ";\n";
    OS << "}\n"
       << "for (" << IndexType << " " << I << " = " << Bound << " / 4 * 4 + "
       << Tid << "; " << I << " < " << Bound << "; " << I << " += " << Stride
       << ") " << Body << "\n"
       << "} else {\n"
       << "for (" << IndexType << " " << I << " = " << Tid << "; " << I << " < "
       << Bound << "; " << I << " += " << Stride << ") " << Body << "\n}";
    RuleEdit E =
        makeEdit(llvm::formatv("{0} loads and stores in {1} ({2} "
                               "buffer{3})",
                               Vec, K->getNameAsString(), U.Params.size(),
                               U.Params.size() == 1 ? "" : "s")
                     .str(),
                 50);
    if (!addReplacement(E, Ctx, *Whole, Text))
      return std::nullopt;
    return E;
  }

  /// Per parameter: how it is accessed, and its vector variable.
  static ParamUses paramUses(const RuleContext &Ctx, const IndexGuard &G,
                             llvm::ArrayRef<Access> Accesses, ASTContext &AST) {
    ParamUses U;
    for (const Access &A : Accesses) {
      if (!llvm::is_contained(U.Params, A.Param))
        U.Params.push_back(A.Param);
      (A.Written ? U.Written : U.Read)[A.Param] = true;
    }
    // A store under a condition leaves other lanes as they were: load
    // them first.
    for (const Access &A : Accesses)
      if (A.Written && !isTopLevelStore(A.E, G.Body, AST))
        U.Conditional[A.Param] = true;
    for (const ParmVarDecl *P : U.Params)
      U.VecName[P] = Ctx.getFreshName(P->getNameAsString() + "4");
    return U;
  }

  /// Writes the statements once per lane of the vectors (\p V is the
  /// vector index); false when they cannot be.
  static bool writeLanes(const RuleContext &Ctx,
                         llvm::ArrayRef<Access> Accesses,
                         llvm::ArrayRef<const DeclRefExpr *> IndexUses,
                         const ParamUses &U, const std::string &V,
                         CharSourceRange Stmts, llvm::raw_ostream &OS) {
    const SourceManager &SM = Ctx.getSourceManager();
    // Each lane: the statements with the accesses on the vectors' lanes,
    // made by the same replacements a variant is made of, on the file.
    const char *Lanes = "xyzw";
    unsigned StmtsBegin = SM.getFileOffset(Stmts.getBegin());
    unsigned StmtsEnd = SM.getFileOffset(Stmts.getEnd());
    bool Ok = true;
    for (unsigned L = 0; L < 4 && Ok; ++L) {
      RuleEdit Lane;
      for (const Access &A : Accesses) {
        auto R = Ctx.getEditRange(A.E->getSourceRange());
        Ok &= R && addReplacement(Lane, Ctx, *R,
                                  U.VecName.lookup(A.Param) + "." + Lanes[L]);
      }
      for (const DeclRefExpr *D : IndexUses) {
        auto R = Ctx.getEditRange(D->getSourceRange());
        Ok &=
            R && addReplacement(Lane, Ctx, *R,
                                "(" + V + " * 4 + " + std::to_string(L) + ")");
      }
      llvm::Expected<std::string> Edited =
          tooling::applyAllReplacements(Ctx.getCode(), Lane.Replaces);
      if (!Ok || !Edited) {
        if (!Edited) {
          llvm::Error E = Edited.takeError();
          MAXCODE_DEBUG(llvm::dbgs()
                        << DEBUG_TYPE << ": cuda-vectorize-float4: lane "
                        << Lanes[L] << "'s edits do not apply: "
                        << llvm::toString(std::move(E)) << "\n");
          llvm::consumeError(std::move(E));
        }
        Ok = false;
        break;
      }
      unsigned B = Lane.Replaces.getShiftedCodePosition(StmtsBegin);
      unsigned E = Lane.Replaces.getShiftedCodePosition(StmtsEnd);
      OS << "{\n" << llvm::StringRef(*Edited).slice(B, E) << "\n}\n";
    }
    return Ok;
  }

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
    bool AnyWrite =
        llvm::any_of(Accesses, [](const Access &A) { return A.Written; });
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

} // namespace

std::unique_ptr<Rule> maxcode::createCudaVectorizeFloat4Rule() {
  return std::make_unique<CudaVectorizeFloat4Rule>();
}
