//===-- RestrictPointerParams.cpp - __restrict__ on distinct arrays -------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `__restrict__` on the pointer parameters of a function that writes
// through one of them, when every call in the file passes storage of
// pairwise distinct variables: the compiler may then keep values in
// registers and vectorise without checking for overlap.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Lex/Lexer.h"

using namespace maxcode;
using namespace clang;

namespace {

class RestrictPointerParamsRule : public Rule {
public:
  RestrictPointerParamsRule()
      : Rule("restrict-pointer-params",
             "__restrict__ on pointer parameters when every call passes "
             "distinct arrays",
             "__restrict__",
             // cuda-restrict-ldg handles kernels.
             RuleLanguages::Host) {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    const SourceManager &SM = Ctx.getSourceManager();
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
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
        auto Star = PTL ? Ctx.getEditRange(SourceRange(PTL.getStarLoc()))
                        : std::nullopt;
        // `float *y` -> `float *__restrict__ y` once formatted.
        if (!Star || !Ctx.isEditable(P->getSourceRange()) ||
            !insertText(E, Ctx, Star->getEnd(), " __restrict__ ")) {
          Ok = false;
          break;
        }
      }
      (void)SM;
      if (!Ok)
        continue;
      E.Description = "__restrict__ on the " + std::to_string(Ptrs.size()) +
                      " pointer parameters of " + describeFunction(FD) +
                      " (line " +
                      std::to_string(Ctx.getUserLine(FD->getLocation())) + ")";
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

std::unique_ptr<Rule> maxcode::createRestrictPointerParamsRule() {
  return std::make_unique<RestrictPointerParamsRule>();
}
