//===-- StaticMainArrays.cpp - Large zeroed arrays of main made static ----===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Large arrays declared at the top level of main, zero-initialised or not
// initialised, become static: main runs once, so the meaning is the same,
// and the zeroing (a memset of the whole array on every run) is done by the
// loader's zero pages instead.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;

namespace {

/// True when \p Init sets every element to zero.
bool isZeroInit(const Expr *Init) {
  Init = Init->IgnoreImplicit();
  if (isa<ImplicitValueInitExpr>(Init))
    return true;
  if (const auto *IL = dyn_cast<InitListExpr>(Init)) {
    for (const Expr *E : IL->inits())
      if (!isZeroInit(E))
        return false;
    return true;
  }
  const Expr *X = Init->IgnoreParenImpCasts();
  if (const auto *I = dyn_cast<IntegerLiteral>(X))
    return I->getValue() == 0;
  if (const auto *F = dyn_cast<FloatingLiteral>(X))
    return F->getValue().isPosZero();
  if (const auto *B = dyn_cast<CXXBoolLiteralExpr>(X))
    return !B->getValue();
  return isa<CXXNullPtrLiteralExpr>(X);
}

/// Lambdas in main that copy a variable, and gotos (which could run a
/// declaration twice).
struct MainScan : RecursiveASTVisitor<MainScan> {
  llvm::SmallPtrSet<const VarDecl *, 8> CopiedByLambda;
  bool HasGoto = false;
  bool VisitLambdaExpr(LambdaExpr *L) {
    for (const LambdaCapture &C : L->captures())
      if (C.capturesVariable() && C.getCaptureKind() == LCK_ByCopy)
        if (const auto *V = dyn_cast<VarDecl>(C.getCapturedVar()))
          CopiedByLambda.insert(V);
    return true;
  }
  bool VisitGotoStmt(GotoStmt *) { return !(HasGoto = true); }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *) { return !(HasGoto = true); }
};

class StaticMainArraysRule : public Rule {
public:
  StaticMainArraysRule()
      : Rule("static-main-arrays",
             "large zero-initialised arrays local to main become static (no "
             "memset on every run)",
             "static arrays") {}

  std::vector<std::pair<std::string, std::string>>
  getOptionDefaults() const override {
    return {{"MinBytes", "4096"}};
  }

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    int64_t MinBytes = Ctx.getOption(*this, "MinBytes", int64_t(4096));
    for (const FunctionDecl *FD : Ctx.getFileFunctions()) {
      if (!FD->isMain())
        continue;
      const auto *Body = dyn_cast_or_null<CompoundStmt>(FD->getBody());
      if (!Body)
        continue;
      MainScan Scan;
      Scan.TraverseStmt(const_cast<CompoundStmt *>(Body));
      if (Scan.HasGoto)
        continue;
      RuleEdit E = makeEdit("", 50);
      std::vector<std::string> Names;
      std::vector<unsigned> Lines;
      for (const Stmt *S : Body->body()) {
        const auto *DS = dyn_cast<DeclStmt>(S);
        if (!DS || !DS->isSingleDecl())
          continue;
        const auto *V = dyn_cast<VarDecl>(DS->getSingleDecl());
        if (!V || V->isStaticLocal() || V->getType().isConstQualified() ||
            Scan.CopiedByLambda.count(V))
          continue;
        if (!AST.getAsConstantArrayType(V->getType()))
          continue;
        QualType Elem = AST.getBaseElementType(V->getType());
        if (!Elem->isScalarType() ||
            AST.getTypeSizeInChars(V->getType()).getQuantity() < MinBytes)
          continue;
        if (V->hasInit() && !isZeroInit(V->getInit()))
          continue;
        auto R = Ctx.getEditRange(DS->getSourceRange());
        if (!R || !insertText(E, Ctx, R->getBegin(), "static "))
          continue;
        Names.push_back(V->getNameAsString());
        Lines.push_back(Ctx.getUserLine(V->getLocation()));
      }
      if (Names.empty())
        continue;
      std::string List;
      for (const std::string &N : Names)
        List += (List.empty() ? "" : ", ") + N;
      E.Description = llvm::formatv("static arrays in main: {0} ({1})", List,
                                    describeLines(Lines));
      Out.push_back(std::move(E));
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createStaticMainArraysRule() {
  return std::make_unique<StaticMainArraysRule>();
}
