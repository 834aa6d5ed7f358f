//===-- MemoizeRecursion.cpp - A memo table for pure recursions -----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A function of integral arguments that only computes on them (no globals
// but constants, no pointers, no calls but to itself and pure math) and
// calls itself more than once recomputes the same calls exponentially
// often. A static std::map keyed by the arguments returns each result once
// computed; the body runs as a lambda, so its own returns stay as written.
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

/// Checks that a function only computes on its arguments: no globals that
/// are not constants, no pointers, no calls but to itself and pure math.
class PurityChecker : public RecursiveASTVisitor<PurityChecker> {
public:
  explicit PurityChecker(const FunctionDecl *FD) : FD(FD) {}

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    const ValueDecl *D = E->getDecl();
    if (isa<EnumConstantDecl>(D) || isa<FunctionDecl>(D))
      return true;
    const auto *V = dyn_cast<VarDecl>(D);
    if (!V)
      return Pure = false;
    if (V->isLocalVarDeclOrParm() && !V->isStaticLocal()) {
      if (V->getType()->isPointerType() || V->getType()->isReferenceType())
        Pure = false;
      return Pure;
    }
    // A global must be a constant the compiler knows.
    if (!V->getType().isConstQualified() || !V->hasInit() ||
        !V->getInit()->isConstantInitializer(V->getASTContext(), false))
      Pure = false;
    return Pure;
  }
  bool VisitCallExpr(CallExpr *C) {
    const FunctionDecl *Callee = C->getDirectCallee();
    if (!Callee)
      return Pure = false;
    if (Callee->getCanonicalDecl() == FD->getCanonicalDecl()) {
      ++SelfCalls;
      return true;
    }
    // Builtins the compiler itself treats as pure (__builtin_popcount, ...).
    if (unsigned ID = Callee->getBuiltinID())
      if (Callee->getASTContext().BuiltinInfo.isConst(ID))
        return true;
    if (Callee->isInStdNamespace() && Callee->getIdentifier() &&
        llvm::is_contained({"min", "max", "abs", "gcd", "lcm"},
                           Callee->getName()))
      return true;
    return Pure = false;
  }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *) { return Pure = false; }
  bool VisitCXXConstructExpr(CXXConstructExpr *) { return Pure = false; }
  bool VisitCXXNewExpr(CXXNewExpr *) { return Pure = false; }
  bool VisitCXXThrowExpr(CXXThrowExpr *) { return Pure = false; }
  bool VisitLambdaExpr(LambdaExpr *) { return Pure = false; }
  bool VisitAsmStmt(AsmStmt *) { return Pure = false; }
  bool VisitGotoStmt(GotoStmt *) { return Pure = false; }
  bool VisitVarDecl(VarDecl *V) {
    if (V->isStaticLocal())
      Pure = false;
    return Pure;
  }

  bool Pure = true;
  unsigned SelfCalls = 0;

private:
  const FunctionDecl *FD;
};

class MemoizeRecursionRule : public Rule {
public:
  MemoizeRecursionRule()
      : Rule("memoize-recursion",
             "a memo table for pure recursive functions of integral "
             "arguments that call themselves more than once",
             "memo table", RuleLanguages::CPlusPlus) {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    const PrintingPolicy &PP = Ctx.getASTContext().getPrintingPolicy();
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      if (FD->isMain() || FD->isTemplated() || isa<CXXMethodDecl>(FD) ||
          FD->getNumParams() == 0 || FD->getNumParams() > 4 ||
          FD->isVariadic() || FD->isConstexpr())
        continue;
      QualType R = FD->getReturnType();
      if (!R->isIntegerType() && !R->isRealFloatingType())
        continue;
      bool IntegralArgs = llvm::all_of(FD->parameters(), [](ParmVarDecl *P) {
        return P->getType()->isIntegralOrEnumerationType() &&
               !P->getType()->isReferenceType() && P->getIdentifier();
      });
      if (!IntegralArgs)
        continue;
      PurityChecker C(FD);
      C.TraverseStmt(FD->getBody());
      if (!C.Pure || C.SelfCalls < 2)
        continue;
      const auto *Body = dyn_cast<CompoundStmt>(FD->getBody());
      if (!Body)
        continue;
      auto L = Ctx.getEditRange(SourceRange(Body->getLBracLoc()));
      auto RB = Ctx.getEditRange(SourceRange(Body->getRBracLoc()));
      if (!L || !RB)
        continue;
      std::string RType = R.getUnqualifiedType().getAsString(PP);
      std::string KeyTypes, KeyArgs;
      for (const ParmVarDecl *P : FD->parameters()) {
        KeyTypes += (KeyTypes.empty() ? "" : ", ") +
                    P->getType().getUnqualifiedType().getAsString(PP);
        KeyArgs += (KeyArgs.empty() ? "" : ", ") + P->getNameAsString();
      }
      std::string Memo = Ctx.getFreshName("Memo");
      std::string Key = Ctx.getFreshName("Key");
      std::string Found = Ctx.getFreshName("Found");
      std::string Result = Ctx.getFreshName("Result");
      std::string Head =
          "\n// clang-maxcode memoize-recursion: the function is pure.\n"
          "static std::map<std::tuple<" +
          KeyTypes + ">, " + RType + "> " + Memo + ";\nconst std::tuple<" +
          KeyTypes + "> " + Key + "(" + KeyArgs + ");\nauto " + Found + " = " +
          Memo + ".find(" + Key + ");\nif (" + Found + " != " + Memo +
          ".end())\nreturn " + Found + "->second;\nconst " + RType + " " +
          Result + " = [&]() -> " + RType + " {";
      std::string Tail = "}();\n" + Memo + ".emplace(" + Key + ", " + Result +
                         ");\nreturn " + Result + ";\n";
      RuleEdit E = makeEdit(llvm::formatv("memoize {0} ({1} recursive calls; "
                                          "line {2})",
                                          describeFunction(FD), C.SelfCalls,
                                          Ctx.getUserLine(FD->getLocation()))
                                .str(),
                            70);
      if (!insertText(E, Ctx, L->getEnd(), Head) ||
          !insertText(E, Ctx, RB->getBegin(), Tail))
        continue;
      // The table needs <map> and <tuple>.
      bool All = llvm::any_of(findMainIncludes(Ctx), [](const MainInclude &I) {
        return streamHeaderSpelling(I) == "<bits/stdc++.h>";
      });
      if (!All &&
          (!addHeader(E, Ctx, "<map>") || !addHeader(E, Ctx, "<tuple>")))
        continue;
      Out.push_back(std::move(E));
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createMemoizeRecursionRule() {
  return std::make_unique<MemoizeRecursionRule>();
}
