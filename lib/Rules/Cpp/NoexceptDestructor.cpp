//===-- NoexceptDestructor.cpp - noexcept(false-ish) destructors ----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// clang-tidy's performance-noexcept-destructor, as a variant that is
// measured before it is suggested. A destructor declared without an
// exception specification is noexcept already (C++11), unless a member's or
// base's destructor may throw; what the check finds to rewrite is a
// destructor declared `noexcept(expr)` where expr is false without being
// the literal `false` (a trait or constant that happens to be false). Such a
// class is not nothrow-destructible, and so not nothrow-move-constructible
// either (the traits destroy the object they construct): std::vector copies
// its elements when it grows instead of moving them. The rule rewrites the
// specification to `noexcept`, on every declaration, since they must agree.
//
// Only where the destructor cannot throw, so that `noexcept` (which turns
// an escaping exception into std::terminate) changes nothing but the
// library's choices: not virtual (every overrider would have to be noexcept
// too), every member's and base's destructor non-throwing, and a body (if
// it has one in this file) with no `throw`, no `new` and no call of a
// function that is not non-throwing as Clang resolved it (delete, free and
// noexcept functions are fine).
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;

namespace {

/// True when destroying the members and bases of \p RD cannot throw.
bool subobjectsDestroyWithoutThrowing(const CXXRecordDecl *RD,
                                      const ASTContext &AST) {
  for (const FieldDecl *F : RD->fields())
    if (!destroysWithoutThrowing(F->getType(), AST))
      return false;
  for (const CXXBaseSpecifier &B : RD->bases())
    if (!destroysWithoutThrowing(B.getType(), AST))
      return false;
  for (const CXXBaseSpecifier &B : RD->vbases())
    if (!destroysWithoutThrowing(B.getType(), AST))
      return false;
  return true;
}

class NoexceptDestructorRule : public Rule {
public:
  NoexceptDestructorRule()
      : Rule("noexcept-destructor",
             "noexcept(expr) that evaluates to false on destructors that "
             "cannot throw, to noexcept (performance-noexcept-destructor)",
             "noexcept destructor") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    // Not templates: the specification may be false for some arguments
    // only.
    for (const CXXRecordDecl *RD : mainFileClasses(Ctx)) {
      const CXXDestructorDecl *Dtor = editableDestructor(RD);
      if (!Dtor || !subobjectsDestroyWithoutThrowing(RD, AST))
        continue;
      // A body defined elsewhere could throw; a defaulted one runs only the
      // subobjects' destructors.
      const FunctionDecl *Def = Dtor->getDefinition();
      if (!Dtor->getCanonicalDecl()->isExplicitlyDefaulted() &&
          (!Def || mayThrow(Def, AST)))
        continue;
      // Every declaration `noexcept(expr)` (makeNoexcept requires them to
      // agree), rewritten to `noexcept`.
      RuleEdit E = makeEdit("", 25);
      std::vector<unsigned> Lines;
      if (writtenSpec(Dtor) != WrittenSpec::FalseExpr ||
          !makeNoexcept(E, Ctx, Dtor, Lines))
        continue;
      E.Description =
          llvm::formatv("noexcept destructor of {0} ({1})",
                        RD->getQualifiedNameAsString(), describeLines(Lines));
      Out.push_back(std::move(E));
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createNoexceptDestructorRule() {
  return std::make_unique<NoexceptDestructorRule>();
}
