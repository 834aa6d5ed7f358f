//===-- MathRules.cpp - Arithmetic and recursion rules --------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
//   pow-to-multiply     pow(x, 2|3|4) with a simple x to multiplications in
//                       pow's result type (no libm call).
//   memoize-recursion   a pure function of integral arguments that calls
//                       itself more than once gets a memo table.
//
//===----------------------------------------------------------------------===//

#include "Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;

namespace {

/// The integer value of a literal exponent (2, 3.0, ...), if small.
std::optional<unsigned> smallExponent(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *I = dyn_cast<IntegerLiteral>(E)) {
    uint64_t V = I->getValue().getZExtValue();
    if (V >= 2 && V <= 4)
      return V;
  }
  if (const auto *F = dyn_cast<FloatingLiteral>(E)) {
    llvm::APFloat V = F->getValue();
    for (unsigned N : {2u, 3u, 4u})
      if (V.compare(llvm::APFloat(V.getSemantics(), N)) ==
          llvm::APFloat::cmpEqual)
        return N;
  }
  return std::nullopt;
}

class PowToMultiplyRule : public Rule {
public:
  PowToMultiplyRule()
      : Rule("pow-to-multiply",
             "pow(x, 2|3|4) to multiplications in pow's result type") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    struct Finder : RecursiveASTVisitor<Finder> {
      std::vector<const CallExpr *> Calls;
      bool shouldVisitTemplateInstantiations() const { return false; }
      bool VisitCallExpr(CallExpr *C) {
        const FunctionDecl *FD = C->getDirectCallee();
        if (FD && FD->getIdentifier() && C->getNumArgs() == 2 &&
            (FD->getName() == "pow" || FD->getName() == "powf" ||
             FD->getName() == "powl"))
          Calls.push_back(C);
        return true;
      }
    };
    ASTContext &AST = Ctx.getASTContext();
    RuleEdit E = makeEdit("", 35);
    unsigned Count = 0;
    for (const FunctionDecl *FD : editableFunctions(Ctx)) {
      Finder F;
      F.TraverseStmt(FD->getBody());
      for (const CallExpr *C : F.Calls) {
        std::optional<unsigned> N = smallExponent(C->getArg(1));
        const Expr *Base = C->getArg(0);
        QualType Result = C->getType().getCanonicalType();
        if (!N || !Result->isRealFloatingType() ||
            !isSimpleSideEffectFree(Base, AST))
          continue;
        auto Call = Ctx.getFileRange(C->getSourceRange());
        auto B = Ctx.getSpelledRange(Base->IgnoreImpCasts()->getSourceRange());
        if (!Call || !B)
          continue;
        std::string X = "(" + Ctx.getText(B->first, B->second).str() + ")";
        std::string Text = "((" + Result.getAsString() + ")" + X;
        for (unsigned I = 1; I < *N; ++I)
          Text += " * " + X;
        Text += ")";
        RuleEdit Trial = E;
        if (!addReplacement(Trial, Ctx, Call->first,
                            Call->second - Call->first, Text))
          continue;
        E = std::move(Trial);
        ++Count;
      }
    }
    if (!Count)
      return;
    E.Description = llvm::formatv("pow with a small integer exponent -> "
                                  "multiplication ({0} place{1})",
                                  Count, Count == 1 ? "" : "s");
    Out.push_back(std::move(E));
  }
};

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
             "arguments that call themselves more than once") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    if (!Ctx.isCPlusPlus() || Ctx.isCuda())
      return;
    for (const FunctionDecl *FD : editableFunctions(Ctx)) {
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
      auto L = Ctx.getFileOffset(Body->getLBracLoc());
      auto RB = Ctx.getFileOffset(Body->getRBracLoc());
      if (!L || !RB || !Ctx.isEditable(Body->getSourceRange()))
        continue;
      std::string RType = R.getUnqualifiedType().getAsString(
          Ctx.getASTContext().getPrintingPolicy());
      std::string KeyTypes, KeyArgs;
      for (const ParmVarDecl *P : FD->parameters()) {
        KeyTypes += (KeyTypes.empty() ? "" : ", ") +
                    P->getType().getUnqualifiedType().getAsString(
                        Ctx.getASTContext().getPrintingPolicy());
        KeyArgs += (KeyArgs.empty() ? "" : ", ") + P->getNameAsString();
      }
      std::string Memo = Ctx.getFreshName("Memo");
      std::string Key = Ctx.getFreshName("Key");
      std::string Found = Ctx.getFreshName("Found");
      std::string Result = Ctx.getFreshName("Result");
      std::string Head =
          "\n  // clang-maxcode memoize-recursion: the function is pure.\n"
          "  static std::map<std::tuple<" + KeyTypes + ">, " + RType + "> " +
          Memo + ";\n  const std::tuple<" + KeyTypes + "> " + Key + "(" +
          KeyArgs + ");\n  auto " + Found + " = " + Memo + ".find(" + Key +
          ");\n  if (" + Found + " != " + Memo + ".end())\n    return " +
          Found + "->second;\n  const " + RType + " " + Result + " = [&]() -> " +
          RType + " {";
      std::string Tail = "}();\n  " + Memo + ".emplace(" + Key + ", " +
                         Result + ");\n  return " + Result + ";\n";
      RuleEdit E = makeEdit("memoize " + FD->getQualifiedNameAsString() +
                                " (" + std::to_string(C.SelfCalls) +
                                " recursive calls)",
                            70);
      if (!addReplacement(E, Ctx, *L + 1, 0, Head) ||
          !addReplacement(E, Ctx, *RB, 0, Tail))
        continue;
      // The table needs <map> and <tuple>.
      if (!addHeaders(Ctx, E))
        continue;
      Out.push_back(std::move(E));
    }
  }

private:
  static bool addHeaders(const RuleContext &Ctx, RuleEdit &E) {
    std::vector<IncludeLine> Includes = findIncludeLines(Ctx);
    bool HasAll = llvm::any_of(Includes, [](const IncludeLine &I) {
      return I.Name == "bits/stdc++.h";
    });
    if (HasAll)
      return true;
    std::string Text;
    for (const char *H : {"map", "tuple"})
      if (llvm::none_of(Includes,
                        [&](const IncludeLine &I) { return I.Name == H; }))
        Text += std::string("#include <") + H + ">\n";
    unsigned At = Includes.empty() ? 0 : Includes.back().LineEnd;
    return Text.empty() || addReplacement(E, Ctx, At, 0, Text);
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createPowToMultiplyRule() {
  return std::make_unique<PowToMultiplyRule>();
}
std::unique_ptr<Rule> maxcode::createMemoizeRecursionRule() {
  return std::make_unique<MemoizeRecursionRule>();
}
