//===-- StringAppend.cpp - s = s + x to s += x ----------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// clang-tidy's performance-inefficient-string-concatenation, with the fix it
// leaves to the reader: `s = s + x + y;` builds a new string the size of s
// for every `+` and copies s into it, quadratic in a loop that grows s;
// `s += x; s += y;` appends in place. The same string operator+ and +=
// accept the same operands (strings, C strings, characters), so each
// operand appends what its `+` would have.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace maxcode;
using namespace clang;
using namespace clang::ast_matchers;

namespace {

/// The operands appended by `S + A + B ...` when its leftmost operand is the
/// variable \p S itself: A, B, ... in order; empty otherwise.
std::vector<const Expr *> appendedTo(const VarDecl *S, const Expr *E) {
  std::vector<const Expr *> Operands;
  E = E->IgnoreImplicit()->IgnoreParens();
  while (const auto *Plus = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (Plus->getOperator() != OO_Plus || Plus->getNumArgs() != 2 ||
        !isStdString(Plus->getType()))
      return {};
    Operands.push_back(Plus->getArg(1));
    E = Plus->getArg(0)->IgnoreImplicit()->IgnoreParens();
    // The chain's left operand may be an implicit copy of the string.
    if (const auto *C = dyn_cast<CXXConstructExpr>(E); C && C->getNumArgs())
      E = C->getArg(0)->IgnoreImplicit()->IgnoreParens();
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  if (!Ref || Ref->getDecl() != S)
    return {};
  std::reverse(Operands.begin(), Operands.end());
  return Operands;
}

class StringAppendRule : public Rule {
public:
  StringAppendRule()
      : Rule("string-append",
             "s = s + x + y on a std::string to s += x; s += y "
             "(performance-inefficient-string-concatenation)",
             "string +=") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      FunctionEdit E(makeEdit("", 40), Ctx, FD);
      for (const BoundNodes &N :
           match(findAll(cxxOperatorCallExpr(hasOverloadedOperatorName("="))
                             .bind("assign")),
                 *FD->getBody(), AST)) {
        const auto *Assign = N.getNodeAs<CXXOperatorCallExpr>("assign");
        if (Assign->getNumArgs() != 2)
          continue;
        const auto *Lhs = dyn_cast<DeclRefExpr>(
            Assign->getArg(0)->IgnoreImplicit()->IgnoreParens());
        const auto *S = Lhs ? dyn_cast<VarDecl>(Lhs->getDecl()) : nullptr;
        if (!S || !isStdString(S->getType().getNonReferenceType()))
          continue;
        std::vector<const Expr *> Operands = appendedTo(S, Assign->getArg(1));
        // More than one operand only as a statement of its own, where the
        // appends can be statements too.
        // (The temporaries of `+` wrap the statement in ExprWithCleanups.)
        const Stmt *Statement = Assign;
        if (const Stmt *P = parentStmt(AST, Assign);
            P && isa<ExprWithCleanups>(P))
          Statement = P;
        if (Operands.empty() ||
            (Operands.size() > 1 && !compoundParent(AST, Statement)))
          continue;
        std::string Name = Lhs->getNameInfo().getAsString();
        std::string Text;
        bool Ok = true;
        for (const Expr *Op : Operands) {
          auto R = Ctx.getEditRange(Op->getSourceRange());
          if (!R) {
            Ok = false;
            break;
          }
          Text += (Text.empty() ? "" : "; ") + Name +
                  " += " + Ctx.getText(*R).str();
        }
        if (Ok)
          E.replace(Assign->getBeginLoc(),
                    Ctx.getEditRange(Assign->getSourceRange()), Text);
      }
      E.addTo(Out, "string appends in place");
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createStringAppendRule() {
  return std::make_unique<StringAppendRule>();
}
