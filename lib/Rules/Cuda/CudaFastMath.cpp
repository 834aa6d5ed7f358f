//===-- CudaFastMath.cpp - Fast float intrinsics in device code -----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// expf, logf, sinf, ... in device code to the hardware intrinsics __expf,
// __logf, __sinf, ... (less accurate in the last bits, many times faster);
// as an alternative, float divisions to __fdividef too.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;

namespace {

/// The fast intrinsic for a float math function, or "".
llvm::StringRef fastIntrinsicFor(llvm::StringRef Name) {
  return llvm::StringSwitch<llvm::StringRef>(Name)
      .Cases({"exp", "expf"}, "__expf")
      .Cases({"exp10", "exp10f"}, "__exp10f")
      .Cases({"log", "logf"}, "__logf")
      .Cases({"log2", "log2f"}, "__log2f")
      .Cases({"log10", "log10f"}, "__log10f")
      .Cases({"sin", "sinf"}, "__sinf")
      .Cases({"cos", "cosf"}, "__cosf")
      .Cases({"tan", "tanf"}, "__tanf")
      .Cases({"pow", "powf"}, "__powf")
      .Default("");
}

class CudaFastMathRule : public Rule {
public:
  CudaFastMathRule()
      : Rule("cuda-fast-math",
             "float math in device code to the fast intrinsics (__expf, "
             "__logf, __sinf, ...), optionally __fdividef",
             "fast math", RuleLanguages::Cuda) {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    struct Finder : RecursiveASTVisitor<Finder> {
      const ASTContext &AST;
      explicit Finder(const ASTContext &AST) : AST(AST) {}
      /// What folds to a constant (`1.0f / 255.0f`) costs nothing at run
      /// time: an intrinsic there would add the work it claims to save.
      bool isConstant(const Expr *E) const {
        return !E->isValueDependent() && E->isEvaluatable(AST);
      }
      std::vector<const CallExpr *> Calls;
      std::vector<const BinaryOperator *> Divs;
      bool VisitCallExpr(CallExpr *C) {
        const FunctionDecl *FD = C->getDirectCallee();
        if (!FD || !FD->getIdentifier() ||
            fastIntrinsicFor(FD->getName()).empty())
          return true;
        // The float overload only: no intrinsic keeps double precision.
        if (!FD->getReturnType()->isSpecificBuiltinType(BuiltinType::Float) ||
            llvm::any_of(FD->parameters(),
                         [](const ParmVarDecl *P) {
                           return !P->getType()->isSpecificBuiltinType(
                               BuiltinType::Float);
                         }) ||
            llvm::all_of(C->arguments(),
                         [&](const Expr *A) { return isConstant(A); }))
          return true;
        Calls.push_back(C);
        return true;
      }
      bool VisitBinaryOperator(BinaryOperator *B) {
        if (B->getOpcode() == BO_Div &&
            B->getType()->isSpecificBuiltinType(BuiltinType::Float) &&
            B->getLHS()->getType()->isSpecificBuiltinType(BuiltinType::Float) &&
            B->getRHS()->getType()->isSpecificBuiltinType(BuiltinType::Float) &&
            !isConstant(B))
          Divs.push_back(B);
        return true;
      }
    };
    Finder F(Ctx.getASTContext());
    for (const FunctionDecl *FD : deviceFunctions(Ctx, false))
      F.TraverseStmt(FD->getBody());
    RuleEdit A = makeEdit("", 40);
    A.Group = "cuda-fast-math";
    unsigned Calls = 0;
    for (const CallExpr *C : F.Calls) {
      const Expr *Callee = C->getCallee()->IgnoreParenImpCasts();
      auto R = Ctx.getEditRange(Callee->getSourceRange());
      if (R &&
          addReplacement(A, Ctx, *R,
                         fastIntrinsicFor(C->getDirectCallee()->getName())))
        ++Calls;
    }
    RuleEdit B = A;
    B.Score = 36;
    unsigned Divs = 0;
    for (const BinaryOperator *D : F.Divs) {
      auto L = Ctx.getEditRange(D->getLHS()->getSourceRange());
      auto R = Ctx.getEditRange(D->getRHS()->getSourceRange());
      auto Whole = Ctx.getEditRange(D->getSourceRange());
      if (!L || !R || !Whole)
        continue;
      // Operands keep their text (and any edits inside them).
      RuleEdit Trial = B;
      if (insertText(Trial, Ctx, Whole->getBegin(), "__fdividef(") &&
          addReplacement(
              Trial, Ctx,
              CharSourceRange::getCharRange(L->getEnd(), R->getBegin()),
              ", ") &&
          insertText(Trial, Ctx, Whole->getEnd(), ")")) {
        B = std::move(Trial);
        ++Divs;
      }
    }
    if (Calls) {
      A.Description = llvm::formatv("fast math intrinsics ({0} call{1})", Calls,
                                    Calls == 1 ? "" : "s");
      Out.push_back(A);
    }
    if (Divs) {
      B.Description = llvm::formatv(
          "fast math intrinsics ({0} call{1}) and __fdividef "
          "({2} division{3})",
          Calls, Calls == 1 ? "" : "s", Divs, Divs == 1 ? "" : "s");
      Out.push_back(std::move(B));
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createCudaFastMathRule() {
  return std::make_unique<CudaFastMathRule>();
}
