//===-- PragmaRules.cpp - Telling the compiler more -----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
//   gcc-pragmas              `#pragma GCC optimize("O3,unroll-loops")`, and
//                            with it `#pragma GCC target(...)` naming only
//                            extensions this machine has; GCC only.
//   restrict-pointer-params  `__restrict__` on the pointer parameters of a
//                            function that writes through one of them, when
//                            every call in the file passes distinct arrays.
//
//===----------------------------------------------------------------------===//

#include "Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TypeLoc.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;

namespace {

class GccPragmasRule : public Rule {
public:
  GccPragmasRule()
      : Rule("gcc-pragmas", "GCC optimize and target pragmas (GCC only; "
                            "target extensions only if this machine has "
                            "them)") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    if (!Ctx.getOptions().CompilerIsGCC || Ctx.isCuda() ||
        !Ctx.isCPlusPlus())
      return;
    llvm::StringRef Code = Ctx.getCode();
    if (Code.contains("#pragma GCC optimize") ||
        Code.contains("#pragma GCC target"))
      return;
    // At the top of the file, so that every function (and the inline code
    // of the headers) is compiled with them; under the target scope, right
    // before the target.
    unsigned At = Ctx.getOptions().Scope == EditScope::Target
                      ? Ctx.getTarget().BeginOffset
                      : 0;
    if (At != 0) {
      // Keep the pragma on its own line.
      size_t LineBegin = Code.rfind('\n', At);
      LineBegin = LineBegin == llvm::StringRef::npos ? 0 : LineBegin + 1;
      if (!Code.slice(LineBegin, At).trim().empty())
        return;
      At = LineBegin;
    }
    std::string Optimize = "#pragma GCC optimize(\"O3,unroll-loops\")\n";
    RuleEdit A = makeEdit("#pragma GCC optimize(\"O3,unroll-loops\")", 30);
    A.Group = "gcc-pragmas";
    if (addReplacement(A, Ctx, At, 0, Optimize))
      Out.push_back(std::move(A));

    std::string Features;
    for (const std::string &F : Ctx.getOptions().HostFeatures)
      Features += (Features.empty() ? "" : ",") + F;
    if (Features.empty())
      return;
    std::string Target = "#pragma GCC target(\"" + Features + "\")\n";
    RuleEdit B = makeEdit("#pragma GCC optimize(\"O3,unroll-loops\") and "
                          "target(\"" + Features + "\")",
                          28);
    B.Group = "gcc-pragmas";
    if (addReplacement(B, Ctx, At, 0, Optimize + Target))
      Out.push_back(std::move(B));
  }
};

class RestrictPointerParamsRule : public Rule {
public:
  RestrictPointerParamsRule()
      : Rule("restrict-pointer-params",
             "__restrict__ on pointer parameters when every call passes "
             "distinct arrays") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    if (Ctx.isCuda())
      return; // cuda-restrict-ldg handles kernels.
    ASTContext &AST = Ctx.getASTContext();
    for (const FunctionDecl *FD : editableFunctions(Ctx)) {
      if (FD->isMain() || FD->isTemplated() || !FD->getBody() ||
          std::distance(FD->redecls_begin(), FD->redecls_end()) != 1)
        continue;
      std::vector<unsigned> Ptrs;
      bool Writes = false;
      for (unsigned I = 0; I < FD->getNumParams(); ++I) {
        const ParmVarDecl *P = FD->getParamDecl(I);
        QualType T = P->getType();
        if (!T->isPointerType() || T.isRestrictQualified() ||
            !T->getPointeeType()->isScalarType())
          continue;
        Ptrs.push_back(I);
        Writes |= writesThrough(P, FD->getBody());
      }
      if (Ptrs.size() < 2 || !Writes || !callsPassDistinctArrays(FD, Ptrs, AST))
        continue;
      RuleEdit E = makeEdit("", 15);
      bool Ok = true;
      for (unsigned I : Ptrs) {
        const ParmVarDecl *P = FD->getParamDecl(I);
        auto PTL = P->getTypeSourceInfo()->getTypeLoc().getAs<PointerTypeLoc>();
        if (!PTL) {
          Ok = false;
          break;
        }
        auto Star = Ctx.getFileOffset(PTL.getStarLoc());
        // `float *y` -> `float * __restrict__ y`.
        bool SpaceAfter = Star && *Star + 1 < Ctx.getCode().size() &&
                          llvm::isSpace(Ctx.getCode()[*Star + 1]);
        if (!Star || !Ctx.isEditable(P->getSourceRange()) ||
            !addReplacement(E, Ctx, *Star + 1, 0,
                            SpaceAfter ? " __restrict__" : " __restrict__ ")) {
          Ok = false;
          break;
        }
      }
      if (!Ok)
        continue;
      E.Description = "__restrict__ on the " + std::to_string(Ptrs.size()) +
                      " pointer parameters of " +
                      FD->getQualifiedNameAsString();
      Out.push_back(std::move(E));
    }
  }

private:
  /// Every call to \p FD in the file passes, for the parameters \p Ptrs,
  /// storage of pairwise distinct variables; and there is at least one call
  /// and no other use of the function.
  static bool callsPassDistinctArrays(const FunctionDecl *FD,
                                      llvm::ArrayRef<unsigned> Ptrs,
                                      ASTContext &AST) {
    struct Finder : RecursiveASTVisitor<Finder> {
      const FunctionDecl *FD;
      std::vector<const CallExpr *> Calls;
      unsigned Refs = 0;
      explicit Finder(const FunctionDecl *FD) : FD(FD) {}
      bool VisitCallExpr(CallExpr *C) {
        if (C->getDirectCallee() &&
            C->getDirectCallee()->getCanonicalDecl() == FD->getCanonicalDecl())
          Calls.push_back(C);
        return true;
      }
      bool VisitDeclRefExpr(DeclRefExpr *E) {
        if (E->getDecl()->getCanonicalDecl() == FD->getCanonicalDecl())
          ++Refs;
        return true;
      }
    } F(FD);
    F.TraverseDecl(AST.getTranslationUnitDecl());
    if (F.Calls.empty() || F.Refs != F.Calls.size())
      return false;
    for (const CallExpr *C : F.Calls) {
      llvm::SmallPtrSet<const VarDecl *, 4> Seen;
      for (unsigned I : Ptrs) {
        if (I >= C->getNumArgs())
          return false;
        const VarDecl *V = storageVariable(C->getArg(I));
        if (!V || !Seen.insert(V).second)
          return false;
      }
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createGccPragmasRule() {
  return std::make_unique<GccPragmasRule>();
}
std::unique_ptr<Rule> maxcode::createRestrictPointerParamsRule() {
  return std::make_unique<RestrictPointerParamsRule>();
}
