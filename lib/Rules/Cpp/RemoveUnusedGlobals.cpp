//===-- RemoveUnusedGlobals.cpp - Unreferenced standard-library globals ---===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A global `vector<int> g[100100];` that nothing reads still constructs and
// destroys its elements at every run, and makes the program load libstdc++.
// Unreferenced globals of standard-library types whose initializer only
// builds standard values from constants are removed, with their line.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Tooling/Transformer/SourceCode.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;

namespace {

/// True when constructing \p T may need the C++ runtime (allocation,
/// non-trivial constructors or destructors): the only reason to remove an
/// unused global.
bool needsRuntime(QualType T) {
  T = T.getCanonicalType();
  while (const ArrayType *AT = T->getAsArrayTypeUnsafe())
    T = AT->getElementType().getCanonicalType();
  const auto *RD = T->getAsCXXRecordDecl();
  return RD && RD->hasDefinition() &&
         (!RD->hasTrivialDestructor() || !RD->hasTrivialDefaultConstructor());
}

bool isStdRecord(QualType T) {
  T = T.getCanonicalType();
  while (const ArrayType *AT = T->getAsArrayTypeUnsafe())
    T = AT->getElementType().getCanonicalType();
  const auto *RD = T->getAsCXXRecordDecl();
  return RD && isInStd(RD);
}

/// The initializer only builds standard-library values from constants.
bool isPureStdInit(const Expr *Init) {
  if (!Init)
    return true;
  struct Checker : RecursiveASTVisitor<Checker> {
    bool Ok = true;
    bool VisitCallExpr(CallExpr *C) {
      const FunctionDecl *FD = C->getDirectCallee();
      if (!FD || !isInStd(FD))
        Ok = false;
      return Ok;
    }
    bool VisitCXXConstructExpr(CXXConstructExpr *C) {
      if (!isInStd(C->getConstructor()))
        Ok = false;
      return Ok;
    }
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      const auto *VD = dyn_cast<VarDecl>(E->getDecl());
      if (VD && !VD->getType().isConstQualified())
        Ok = false;
      return Ok;
    }
    bool VisitCXXNewExpr(CXXNewExpr *) { return Ok = false; }
    bool VisitLambdaExpr(LambdaExpr *) { return Ok = false; }
  } C;
  C.TraverseStmt(const_cast<Expr *>(Init));
  return C.Ok;
}

class RemoveUnusedGlobalsRule : public Rule {
public:
  RemoveUnusedGlobalsRule()
      : Rule("remove-unused-globals",
             "remove unreferenced globals of standard-library types (their "
             "construction alone needs the C++ runtime)",
             "unused globals", RuleLanguages::CPlusPlusAndCuda) {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    const SourceManager &SM = Ctx.getSourceManager();
    RuleEdit E = makeEdit("", 55);
    std::vector<std::string> Names;
    std::vector<unsigned> Lines;
    // Declarators sharing one declaration (`vector<int> a, b;`) stay.
    llvm::DenseMap<SourceLocation, unsigned> DeclsAt;
    for (const Decl *D : AST.getTranslationUnitDecl()->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D))
        ++DeclsAt[VD->getBeginLoc()];
    for (const Decl *D : AST.getTranslationUnitDecl()->decls()) {
      const auto *VD = dyn_cast<VarDecl>(D);
      if (!VD || VD->isReferenced() || VD->isUsed() ||
          VD->hasExternalStorage() || !needsRuntime(VD->getType()) ||
          !isStdRecord(VD->getType()) || !isPureStdInit(VD->getInit()) ||
          DeclsAt[VD->getBeginLoc()] != 1)
        continue;
      // A declaration may start with a macro (`vi g[N];` for vector<int>):
      // it goes with the macro's name.
      SourceRange Written(SM.getExpansionLoc(VD->getBeginLoc()),
                          SM.getExpansionLoc(VD->getEndLoc()));
      if (!Ctx.isEditable(Written))
        continue;
      auto R = Ctx.getEditRange(tooling::maybeExtendRange(
          CharSourceRange::getTokenRange(Written), tok::semi, AST));
      if (!R || !Ctx.getText(*R).ends_with(";"))
        continue;
      if (!addReplacement(E, Ctx, wholeLines(Ctx, *R), ""))
        return;
      Names.push_back(VD->getNameAsString());
      Lines.push_back(Ctx.getUserLine(VD->getLocation()));
    }
    if (Names.empty())
      return;
    std::string List;
    for (const std::string &N : Names)
      List += (List.empty() ? "" : ", ") + N;
    E.Description =
        llvm::formatv("remove unused global{0} {1} ({2})",
                      Names.size() == 1 ? "" : "s", List, describeLines(Lines));
    Out.push_back(std::move(E));
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createRemoveUnusedGlobalsRule() {
  return std::make_unique<RemoveUnusedGlobalsRule>();
}
