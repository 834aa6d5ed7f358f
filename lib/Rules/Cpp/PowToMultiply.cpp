//===-- PowToMultiply.cpp - pow(e, 2|3|4) to multiplications --------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `pow(e, 2)` is a libm call where `e * e` is one instruction. The product is
// computed in pow's result type (the base converted first, as pow converts
// it), so `(long long)pow(v[i] % k, 2)` keeps its value. A base that can be
// evaluated again without a difference (no side effects: variables, element
// reads, arithmetic) is repeated; any other base is evaluated once into a
// local declared right before the statement, when that keeps the order of
// evaluation (nothing else in the statement has an effect).
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;
using namespace clang::ast_matchers;

namespace {

/// The integer value of a literal exponent (2, 3.0, ...) in [2, Max].
std::optional<unsigned> smallExponent(const Expr *E, unsigned Max) {
  E = E->IgnoreParenImpCasts();
  if (const auto *I = dyn_cast<IntegerLiteral>(E)) {
    uint64_t V = I->getValue().getZExtValue();
    if (V >= 2 && V <= Max)
      return V;
  }
  if (const auto *F = dyn_cast<FloatingLiteral>(E)) {
    llvm::APFloat V = F->getValue();
    for (unsigned N = 2; N <= Max; ++N)
      if (V.compare(llvm::APFloat(V.getSemantics(), N)) ==
          llvm::APFloat::cmpEqual)
        return N;
  }
  return std::nullopt;
}

/// True when \p E reads as one operand after a cast: a name, a literal, a
/// member, an element or a call, which need no parentheses.
bool isPostfix(const Expr *E) {
  E = E->IgnoreImpCasts();
  return isa<DeclRefExpr>(E) || isa<IntegerLiteral>(E) ||
         isa<FloatingLiteral>(E) || isa<ParenExpr>(E) ||
         isa<ArraySubscriptExpr>(E) || isa<MemberExpr>(E) || isa<CallExpr>(E);
}

/// True when the call's value goes straight into something that needs no
/// parentheses around a product: an argument, an initializer, a return, the
/// right side of an assignment or a cast.
bool standsAlone(ASTContext &AST, const Expr *Call) {
  const Stmt *Child = Call;
  const Stmt *P = parentStmt(AST, Call);
  while (P && isa<ImplicitCastExpr>(P)) {
    Child = P;
    P = parentStmt(AST, P);
  }
  if (!P) // An initializer: the parent is the VarDecl.
    return true;
  if (isa<ParenExpr>(P) || isa<ReturnStmt>(P))
    return true;
  // An operand of an overloaded operator (`cout << pow(x, 2)`) binds as
  // the operator does; an argument of a call stands alone.
  if (isa<CXXOperatorCallExpr>(P))
    return false;
  if (const auto *C = dyn_cast<CallExpr>(P))
    return C->getCallee() != Child;
  if (const auto *B = dyn_cast<BinaryOperator>(P))
    return B->isAssignmentOp() && B->getRHS() == Child;
  return false;
}

/// The statement directly in a block that holds \p E, when \p E is
/// evaluated exactly once each time it runs (not under `&&`, `||`, `?:`, a
/// loop condition or a lambda) and nothing else in it has an effect before
/// \p E could be moved out.
const Stmt *hoistPoint(ASTContext &AST, const Expr *E) {
  const Stmt *Cur = E;
  while (true) {
    DynTypedNodeList Parents = AST.getParents(*Cur);
    if (Parents.size() != 1)
      return nullptr;
    if (const auto *VD = Parents[0].get<VarDecl>()) {
      DynTypedNodeList Up = AST.getParents(*VD);
      const auto *DS = Up.size() == 1 ? Up[0].get<DeclStmt>() : nullptr;
      if (!DS || !compoundParent(AST, DS))
        return nullptr;
      return DS;
    }
    const Stmt *P = Parents[0].get<Stmt>();
    if (!P)
      return nullptr;
    if (isa<CompoundStmt>(P))
      return Cur;
    if (isa<LambdaExpr>(P) || isa<ConditionalOperator>(P) ||
        isa<BinaryConditionalOperator>(P) || isa<ForStmt>(P) ||
        isa<WhileStmt>(P) || isa<DoStmt>(P) || isa<CXXForRangeStmt>(P))
      return nullptr;
    if (const auto *B = dyn_cast<BinaryOperator>(P))
      if (B->isLogicalOp() || B->isCommaOp())
        return nullptr;
    if (const auto *If = dyn_cast<IfStmt>(P))
      if (If->getCond() != Cur)
        return nullptr;
    Cur = P;
  }
}

/// True when \p S has no side effect outside \p Keep, but for its own
/// top-level assignment or initialisation.
bool onlyEffectIn(const Stmt *S, const Expr *Keep, ASTContext &AST) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const Expr *Keep;
    ASTContext &AST;
    const Stmt *Top;
    bool Effect = false;
    Finder(const Expr *Keep, ASTContext &AST, const Stmt *Top)
        : Keep(Keep), AST(AST), Top(Top) {}
    bool TraverseStmt(Stmt *S) {
      if (S == Keep || Effect)
        return true;
      return RecursiveASTVisitor::TraverseStmt(S);
    }
    bool VisitExpr(Expr *E) {
      if (E == Top && isa<BinaryOperator>(E) &&
          cast<BinaryOperator>(E)->isAssignmentOp())
        return isSimpleSideEffectFree(cast<BinaryOperator>(E)->getLHS(), AST) ||
               (Effect = true, false);
      if (isa<CallExpr>(E) || isa<CXXConstructExpr>(E) || isa<CXXNewExpr>(E) ||
          isa<CXXDeleteExpr>(E))
        Effect |= E->HasSideEffects(AST);
      if (const auto *B = dyn_cast<BinaryOperator>(E))
        Effect |= B->isAssignmentOp();
      if (const auto *U = dyn_cast<UnaryOperator>(E))
        Effect |= U->isIncrementDecrementOp();
      return !Effect;
    }
  } F(Keep, AST, S);
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D))
        if (VD->getInit())
          F.TraverseStmt(const_cast<Expr *>(VD->getInit()));
  } else {
    F.TraverseStmt(const_cast<Stmt *>(S));
  }
  return !F.Effect;
}

class PowToMultiplyRule : public Rule {
public:
  PowToMultiplyRule()
      : Rule("pow-to-multiply",
             "pow(e, 2|3|4) to multiplications in pow's result type (e "
             "through a local when it has side effects)",
             "multiplication") {}

  std::vector<std::pair<std::string, std::string>>
  getOptionDefaults() const override {
    return {{"MaxExponent", "4"}};
  }

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    unsigned Max = std::clamp<int64_t>(getMax(Ctx), 2, 8);
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      // A template's calls are typed in its instantiations, which must all
      // agree on the rewrite (the text is shared).
      std::vector<const FunctionDecl *> Bodies;
      if (FD->isTemplated())
        Bodies = instantiationsOf(FD);
      else
        Bodies.push_back(FD);
      std::map<unsigned, std::optional<Rewrite>> Calls;
      for (const FunctionDecl *Body : Bodies) {
        std::map<unsigned, Rewrite> Here = rewrites(Ctx, Body, Max);
        for (auto &[Off, R] : Calls)
          if (R && (!Here.count(Off) || !(Here[Off] == *R)))
            R.reset();
        if (Body == Bodies.front())
          for (auto &[Off, R] : Here)
            Calls[Off] = R;
      }
      RuleEdit E = makeEdit("", 35);
      std::vector<unsigned> Lines;
      unsigned Hoisted = 0;
      for (auto &[Off, R] : Calls) {
        if (!R)
          continue;
        RuleEdit Trial = E;
        std::string Text = R->Text;
        if (R->Hoist) {
          // Evaluate the base once, into a local before the statement.
          std::string Local = Ctx.getFreshName(
              Hoisted ? "Base" + std::to_string(Hoisted + 1) : "Base");
          if (!insertLineBefore(Trial, Ctx, R->Hoist,
                                "const auto " + Local + " = " + R->Base + ";"))
            continue;
          llvm::SmallVector<llvm::StringRef, 8> Parts;
          Text.clear();
          llvm::StringRef(R->Text).split(Parts, "\x01");
          for (size_t I = 0; I < Parts.size(); ++I)
            Text += (I ? Local : "") + Parts[I].str();
        }
        if (!addReplacement(Trial, Ctx, R->Call, Text))
          continue;
        E = std::move(Trial);
        Hoisted += R->Hoist != nullptr;
        Lines.push_back(R->Line);
      }
      if (Lines.empty())
        continue;
      E.Description = llvm::formatv(
          "pow with a small integer exponent -> multiplication in {0} ({1}{2})",
          describeFunction(FD), describeLines(Lines),
          Hoisted ? llvm::formatv(", {0} base{1} through a local", Hoisted,
                                  Hoisted == 1 ? "" : "s")
                        .str()
                  : std::string());
      Out.push_back(std::move(E));
    }
  }

private:
  /// The rewrite of one call: its range and new text (with \x01 where the
  /// local goes when the base is evaluated once before \c Hoist).
  struct Rewrite {
    CharSourceRange Call;
    std::string Text, Base;
    const Stmt *Hoist = nullptr;
    unsigned Line = 0;
    bool operator==(const Rewrite &O) const {
      return Text == O.Text && Base == O.Base &&
             (Hoist != nullptr) == (O.Hoist != nullptr);
    }
  };

  /// The calls of \p FD this rule rewrites, by the offset of their range.
  std::map<unsigned, Rewrite>
  rewrites(const RuleContext &Ctx, const FunctionDecl *FD, unsigned Max) const {
    ASTContext &AST = Ctx.getASTContext();
    const SourceManager &SM = Ctx.getSourceManager();
    std::map<unsigned, Rewrite> Out;
    auto Pow = callExpr(callee(functionDecl(hasAnyName(
                            "::pow", "::powf", "::powl", "::std::pow"))),
                        argumentCountIs(2))
                   .bind("call");
    for (const BoundNodes &N : match(findAll(Pow), *FD->getBody(), AST)) {
      const auto *C = N.getNodeAs<CallExpr>("call");
      std::optional<unsigned> Exp = smallExponent(C->getArg(1), Max);
      QualType Result = C->getType().getCanonicalType();
      if (!Exp || !Result->isRealFloatingType())
        continue;
      auto Call = Ctx.getEditRange(C->getSourceRange());
      const Expr *Base = C->getArg(0)->IgnoreImpCasts();
      auto BaseR = Ctx.getEditRange(Base->getSourceRange());
      if (!Call || !BaseR)
        continue;
      Rewrite R;
      R.Call = *Call;
      R.Line = Ctx.getUserLine(C->getBeginLoc());
      std::string X = Ctx.getText(*BaseR).str();
      bool ThroughLocal = !isRepeatable(Base, AST);
      if (ThroughLocal) {
        R.Hoist = hoistPoint(AST, C);
        if (!R.Hoist || !onlyEffectIn(R.Hoist, C, AST))
          continue;
        R.Base = X;
        X = "\x01";
      }
      std::string Operand = isPostfix(Base) || ThroughLocal ? X : "(" + X + ")";
      bool SameType = Base->getType().getCanonicalType().getUnqualifiedType() ==
                      Result.getUnqualifiedType();
      std::string Text =
          SameType ? Operand
                   : "(" + Result.getAsString(AST.getPrintingPolicy()) + ")" +
                         Operand;
      for (unsigned I = 1; I < *Exp; ++I)
        Text += " * " + Operand;
      if (!standsAlone(AST, C))
        Text = "(" + Text + ")";
      R.Text = Text;
      Out[SM.getFileOffset(Call->getBegin())] = R;
    }
    return Out;
  }

  int64_t getMax(const RuleContext &Ctx) const {
    return Ctx.getOption(*this, "MaxExponent", int64_t(4));
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createPowToMultiplyRule() {
  return std::make_unique<PowToMultiplyRule>();
}
