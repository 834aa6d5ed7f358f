//===-- NoexceptSwap.cpp - noexcept on user swap functions ----------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// clang-tidy's performance-noexcept-swap, as a variant that is measured
// before it is suggested. A user-written `void swap(S &)` member or
// `swap(S &, S &)` free function without an exception specification (or
// with a `noexcept(expr)` that evaluates to false) gets `noexcept`, on
// every declaration of it, since they must agree: std::is_nothrow_swappable
// then holds, and the compiler need not keep the unwinding paths of its
// callers (std::sort and std::reverse call it through std::iter_swap).
//
// Only where nothing the swap runs can throw, so that `noexcept` (which
// turns an escaping exception into std::terminate) changes nothing else:
// its body swaps and moves through functions that are non-throwing as
// Clang resolved their exception specifications (std::swap of scalars,
// pointers, strings and vectors, their member swaps, std::move), and has
// no `new`, no `throw`, and no call of anything else.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;
using namespace clang::ast_matchers;

namespace {

/// The class a swap exchanges objects of: \p FD is a non-static, non-virtual
/// member `swap(S &)` of S, or a free `swap(S &, S &)`, neither a template
/// nor in one; null otherwise.
const CXXRecordDecl *swappedClass(const FunctionDecl *FD) {
  if (FD->isImplicit() || FD->isDeleted() || FD->isDependentContext() ||
      FD->getTemplatedKind() != FunctionDecl::TK_NonTemplate || isInStd(FD))
    return nullptr;
  auto RefTo = [](const ParmVarDecl *P) -> const CXXRecordDecl * {
    QualType T = P->getType();
    if (!T->isLValueReferenceType() || T->getPointeeType().isConstQualified())
      return nullptr;
    const CXXRecordDecl *RD = T->getPointeeType()->getAsCXXRecordDecl();
    return RD ? RD->getCanonicalDecl() : nullptr;
  };
  const CXXRecordDecl *RD = nullptr;
  if (const auto *M = dyn_cast<CXXMethodDecl>(FD)) {
    if (M->isStatic() || M->isVirtual() || M->getNumParams() != 1)
      return nullptr;
    RD = RefTo(M->getParamDecl(0));
    if (RD != M->getParent()->getCanonicalDecl())
      return nullptr;
  } else {
    if (FD->getNumParams() != 2)
      return nullptr;
    RD = RefTo(FD->getParamDecl(0));
    if (!RD || RD != RefTo(FD->getParamDecl(1)))
      return nullptr;
  }
  if (!RD || RD->isDependentContext() ||
      isa<ClassTemplateSpecializationDecl>(RD) || isInStd(RD))
    return nullptr;
  return RD;
}

class NoexceptSwapRule : public Rule {
public:
  NoexceptSwapRule()
      : Rule("noexcept-swap",
             "noexcept on user swap functions that only swap and move "
             "members without throwing (performance-noexcept-swap)",
             "noexcept swap", RuleLanguages::CPlusPlusAndCuda) {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    llvm::SmallPtrSet<const FunctionDecl *, 8> Seen;
    std::vector<const FunctionDecl *> Candidates;
    for (const BoundNodes &N :
         match(functionDecl(hasName("swap"), isExpansionInMainFile())
                   .bind("swap"),
               AST)) {
      const auto *FD = N.getNodeAs<FunctionDecl>("swap");
      const FunctionDecl *Def = FD->getDefinition();
      if (Seen.insert(FD->getCanonicalDecl()).second && swappedClass(FD) &&
          Def && !Def->isDefaulted())
        Candidates.push_back(FD->getCanonicalDecl());
    }
    AssumedSet Proven = provenNothrow(Candidates, AST);
    for (const FunctionDecl *FD : Candidates) {
      if (!Proven.count(FD))
        continue;
      RuleEdit E = makeEdit("", 20);
      std::vector<unsigned> Lines;
      if (!makeNoexcept(E, Ctx, FD, Lines))
        continue;
      std::string What =
          isa<CXXMethodDecl>(FD)
              ? describeFunction(FD)
              : "free swap of " + swappedClass(FD)->getQualifiedNameAsString();
      E.Description =
          llvm::formatv("noexcept {0} ({1})", What, describeLines(Lines));
      Out.push_back(std::move(E));
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createNoexceptSwapRule() {
  return std::make_unique<NoexceptSwapRule>();
}
