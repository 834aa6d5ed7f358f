//===-- NoexceptMoveConstructor.cpp - noexcept on user move operations ----===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// clang-tidy's performance-noexcept-move-constructor, as a variant that is
// measured before it is suggested. std::vector (and every container that
// relocates through std::move_if_noexcept) moves its elements when it grows
// only when their move constructor is noexcept; otherwise it copies them, to
// keep its strong exception guarantee. A user-written move constructor or
// move assignment without an exception specification (or with a
// `noexcept(expr)` that evaluates to false) gets `noexcept`, on every
// declaration of it, since they must agree.
//
// Only where nothing it runs can throw, so that `noexcept` (which turns an
// escaping exception into std::terminate) changes nothing but the library's
// choice: its member initialisers, including the implicit ones and default
// member initialisers, and its body make no call of a function that is not
// non-throwing (as Clang resolved the callee's exception specification), no
// `new`, no `throw`, no dynamic_cast to a reference and no typeid of an
// object.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;

namespace {

/// A move constructor or move assignment that may become noexcept if
/// nothing it runs can throw: user provided (one defaulted on its first
/// declaration has the members' exception specification already), defined
/// in this file, and not virtual (every overrider would have to be noexcept
/// too).
bool isCandidate(const CXXMethodDecl *M) {
  const auto *Ctor = dyn_cast<CXXConstructorDecl>(M);
  if (!(Ctor ? Ctor->isMoveConstructor() : M->isMoveAssignmentOperator()) ||
      M->isImplicit() || M->isDeleted() || M->isVirtual() ||
      M->getCanonicalDecl()->isExplicitlyDefaulted())
    return false;
  return M->getDefinition() != nullptr;
}

class NoexceptMoveConstructorRule : public Rule {
public:
  NoexceptMoveConstructorRule()
      : Rule("noexcept-move-constructor",
             "noexcept on user move constructors and move assignments that "
             "cannot throw, so that containers move rather than copy them "
             "(performance-noexcept-move-constructor)",
             "noexcept move") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    std::vector<const CXXRecordDecl *> Records;
    std::vector<const FunctionDecl *> Candidates;
    // Not templates: the pattern's calls are not resolved, and every
    // instantiation would have to be safe.
    for (const CXXRecordDecl *RD : mainFileClasses(Ctx)) {
      Records.push_back(RD);
      for (const CXXMethodDecl *M : RD->methods())
        if (isCandidate(M))
          Candidates.push_back(M);
    }
    AssumedSet Proven = provenNothrow(Candidates, AST);
    for (const CXXRecordDecl *RD : Records) {
      RuleEdit E = makeEdit("", 40);
      std::vector<unsigned> Lines;
      for (const CXXMethodDecl *M : RD->methods()) {
        if (!isCandidate(M) || !Proven.count(M->getCanonicalDecl()))
          continue;
        RuleEdit Trial = E;
        std::vector<unsigned> TrialLines = Lines;
        if (!makeNoexcept(Trial, Ctx, M, TrialLines))
          continue;
        E = std::move(Trial);
        Lines = std::move(TrialLines);
      }
      if (Lines.empty())
        continue;
      E.Description =
          llvm::formatv("noexcept move operations of {0} ({1})",
                        RD->getQualifiedNameAsString(), describeLines(Lines));
      Out.push_back(std::move(E));
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createNoexceptMoveConstructorRule() {
  return std::make_unique<NoexceptMoveConstructorRule>();
}
