//===-- CudaWarpReduce.cpp - Warp-shuffle reduction before one atomic -----===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Every thread adding into one address with atomicAdd serialises on it. A
// warp-shuffle reduction first leaves one atomic per warp; blocks whose size
// is not a multiple of 32 keep the atomic of every thread.
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
             "reduction and one atomic per warp",
             "warp reduction", RuleLanguages::Cuda) {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    for (const FunctionDecl *K : deviceFunctions(Ctx, true)) {
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
      bool Supported = Param->isSpecificBuiltinType(BuiltinType::Float) ||
                       Param->isSpecificBuiltinType(BuiltinType::Double) ||
                       Param->isSpecificBuiltinType(BuiltinType::Int) ||
                       Param->isSpecificBuiltinType(BuiltinType::UInt) ||
                       Param->isSpecificBuiltinType(BuiltinType::ULongLong);
      if (!Supported || variesPerThread(Addr) || Addr->HasSideEffects(AST) ||
          T.isNull())
        continue;
      std::string AddrText = Ctx.getSourceText(Addr).str();
      std::string ValText = Ctx.getSourceText(Val).str();
      std::string CondText = Cond ? Ctx.getSourceText(Cond).str() : "";
      auto LastR = statementRange(Ctx, Last);
      if (AddrText.empty() || ValText.empty() || !LastR ||
          (Cond && CondText.empty()))
        continue;
      std::string Type = Param.getAsString();
      std::string V = Ctx.getFreshName("WarpSum");
      std::string Has = Ctx.getFreshName("Contributes");
      std::string Off = Ctx.getFreshName("Offset");
      std::string Text;
      llvm::raw_string_ostream OS(Text);
      OS << "{\n" << Type << " " << V << " = 0;\n";
      if (Cond)
        OS << "const bool " << Has << " = " << CondText << ";\n"
           << "if (" << Has << ")\n"
           << V << " = " << ValText << ";\n";
      else
        OS << V << " = " << ValText << ";\n";
      OS << "if ((blockDim.x & 31) == 0) {\n"
         << "for (int " << Off << " = 16; " << Off << " > 0; " << Off
         << " >>= 1)\n"
         << V << " += __shfl_down_sync(0xffffffffu, " << V << ", " << Off
         << ");\n"
         << "if ((threadIdx.x & 31) == 0)\n"
         << "atomicAdd(" << AddrText << ", " << V << ");\n"
         << "} else" << (Cond ? " if (" + Has + ")" : std::string()) << " {\n"
         << "atomicAdd(" << AddrText << ", " << V << ");\n"
         << "}\n"
         << "}";
      RuleEdit E = makeEdit("warp-shuffle reduction before atomicAdd in " +
                                K->getNameAsString(),
                            70);
      if (addReplacement(E, Ctx, *LastR, Text))
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

std::unique_ptr<Rule> maxcode::createCudaWarpReduceRule() {
  return std::make_unique<CudaWarpReduceRule>();
}
