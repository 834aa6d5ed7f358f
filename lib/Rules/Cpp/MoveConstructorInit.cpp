//===-- MoveConstructorInit.cpp - Move constructors that copy -------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// clang-tidy's performance-move-constructor-init, with the fix: in a
// user-written move constructor `S(S &&O) : Base(O), Name(O.Name)`, the
// parameter is an lvalue, so its base and members are copied; wrapping them
// in std::move moves them (`Base(std::move(O))`, `Name(std::move(O.Name))`),
// as the constructor's name promises.
//
// The move leaves the source in a moved-from state, so each wrapped source
// must be read nowhere else in the constructor: a member `O.Name` only in
// its initializer, a base's part of O only in its base's initializer, and
// O itself nowhere but in member accesses of the class's own fields and in
// base initializers (a base's move constructor sees only its own part of
// O). Only types whose move constructor is usable, not deleted, and does
// more than their copy (not trivial) are worth it.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;
using namespace clang::ast_matchers;

namespace {

/// What an initializer copies from the move constructor's parameter.
struct CopiedPart {
  const Expr *Source = nullptr;     ///< `O` or `O.Name`, as written.
  const FieldDecl *Field = nullptr; ///< Name, for `O.Name`.
  const DeclRefExpr *Ref = nullptr; ///< The `O` in it.
};

/// The part of \p Param that initializer \p Init copies with the copy
/// constructor of its (class) type: the whole parameter for a base, one
/// of its own fields for a member; nothing otherwise.
std::optional<CopiedPart> copiedPart(const CXXCtorInitializer *Init,
                                     const ParmVarDecl *Param,
                                     const CXXRecordDecl *Class) {
  if (!Init->isWritten() ||
      !(Init->isBaseInitializer() || Init->isMemberInitializer()))
    return std::nullopt;
  const Expr *E = Init->getInit();
  if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E))
    E = Cleanups->getSubExpr();
  const auto *Copy = dyn_cast<CXXConstructExpr>(E);
  if (!Copy || Copy->getNumArgs() < 1 ||
      !Copy->getConstructor()->isCopyConstructor() ||
      !movesBetterThanCopies(Copy->getConstructor()->getParent()))
    return std::nullopt;
  // Default arguments (an allocator) stay what they are.
  for (unsigned I = 1; I < Copy->getNumArgs(); ++I)
    if (!isa<CXXDefaultArgExpr>(Copy->getArg(I)))
      return std::nullopt;
  CopiedPart Part;
  Part.Source = Copy->getArg(0)->IgnoreImpCasts();
  // The member copied must be no const: std::move of it would copy too.
  if (Part.Source->getType().isConstQualified())
    return std::nullopt;
  const CXXRecordDecl *Copied = Copy->getConstructor()->getParent();
  if (Init->isBaseInitializer()) {
    if (!declaresSameEntity(Init->getBaseClass()->getAsCXXRecordDecl(), Copied))
      return std::nullopt;
    // A constructor template of the base would take the derived `S &&`
    // over the base's move constructor, which needs a conversion.
    if (llvm::any_of(Copied->decls(), [](const Decl *D) {
          const auto *T = dyn_cast<FunctionTemplateDecl>(D);
          return T && isa<CXXConstructorDecl>(T->getTemplatedDecl());
        }))
      return std::nullopt;
    Part.Ref = dyn_cast<DeclRefExpr>(Part.Source);
  } else if (const auto *Member = dyn_cast<MemberExpr>(Part.Source)) {
    Part.Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
    Part.Ref = dyn_cast<DeclRefExpr>(Member->getBase()->IgnoreParenImpCasts());
    // A field of the class itself: the bases' moves do not touch it.
    if (!Part.Field || Member->isArrow() || Part.Field->getParent() != Class ||
        !declaresSameEntity(Part.Field->getType()->getAsCXXRecordDecl(),
                            Copied))
      return std::nullopt;
  }
  if (!Part.Ref || Part.Ref->getDecl() != Param)
    return std::nullopt;
  return Part;
}

/// How the constructor reads its parameter at \p Ref: the field it reads
/// (`O.Name`), or null with \p Whole set for a base initializer's `O`, or
/// neither for anything else.
const FieldDecl *readField(const DeclRefExpr *Ref, const CXXRecordDecl *Class,
                           const CXXConstructorDecl *Ctor, ASTContext &AST,
                           bool &Whole) {
  Whole = false;
  const Stmt *P = parentStmt(AST, Ref);
  while (P && isa<ImplicitCastExpr>(P))
    P = parentStmt(AST, P);
  if (const auto *Member = dyn_cast_or_null<MemberExpr>(P)) {
    const auto *F = dyn_cast<FieldDecl>(Member->getMemberDecl());
    return F && !Member->isArrow() && F->getParent() == Class ? F : nullptr;
  }
  for (const CXXCtorInitializer *Init : Ctor->inits())
    if (Init->isBaseInitializer() && Init->isWritten()) {
      const Expr *E = Init->getInit();
      if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E))
        E = Cleanups->getSubExpr();
      if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
        if (Construct->getNumArgs() >= 1 &&
            Construct->getArg(0)->IgnoreImpCasts() == Ref)
          Whole = true;
    }
  return nullptr;
}

class MoveConstructorInitRule : public Rule {
public:
  MoveConstructorInitRule()
      : Rule("move-constructor-init",
             "members and bases a move constructor copies from its "
             "parameter, moved with std::move "
             "(performance-move-constructor-init)",
             "move in move ctor") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    // The constructors are members of classes, usually outside the target:
    // every one the scope lets the rule edit.
    for (const FunctionDecl *FD : Ctx.getFileFunctions()) {
      const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD);
      if (!Ctor || !Ctor->isMoveConstructor() || !Ctor->isUserProvided() ||
          Ctor->isImplicit() || Ctor->isDependentContext() ||
          Ctor->getNumParams() != 1)
        continue;
      const ParmVarDecl *Param = Ctor->getParamDecl(0);
      // `S(const S &&)`: std::move of it would still copy.
      if (Param->getType()->getPointeeType().isConstQualified() ||
          Param->getType()->getPointeeType().isVolatileQualified())
        continue;
      const CXXRecordDecl *Class = Ctor->getParent();

      // Every read of the parameter in the constructor: its initializers
      // and its body.
      llvm::DenseMap<const FieldDecl *, unsigned> FieldReads;
      unsigned WholeReads = 0;
      bool OtherReads = false;
      auto Count = [&](const Stmt *S) {
        for (const BoundNodes &N :
             match(findAll(
                       declRefExpr(to(varDecl(equalsNode(Param)))).bind("ref")),
                   *S, AST)) {
          bool Whole = false;
          const FieldDecl *F = readField(N.getNodeAs<DeclRefExpr>("ref"), Class,
                                         Ctor, AST, Whole);
          if (F)
            ++FieldReads[F];
          else if (Whole)
            ++WholeReads;
          else
            OtherReads = true;
        }
      };
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (Init->isWritten())
          Count(Init->getInit());
      Count(Ctor->getBody());
      if (OtherReads)
        continue;

      RuleEdit E = makeEdit("", 45);
      std::vector<unsigned> Lines;
      for (const CXXCtorInitializer *Init : Ctor->inits()) {
        std::optional<CopiedPart> Part = copiedPart(Init, Param, Class);
        // A moved-from member read again, or a moved-from base whose
        // object another base initializer reads.
        if (!Part || (Part->Field && FieldReads.lookup(Part->Field) != 1) ||
            (!Part->Field && WholeReads != 1))
          continue;
        auto R = Ctx.getEditRange(Part->Source->getSourceRange());
        RuleEdit Trial = E;
        if (!R || !addReplacement(Trial, Ctx, *R,
                                  ("std::move(" + Ctx.getText(*R) + ")").str()))
          continue;
        E = std::move(Trial);
        Lines.push_back(Ctx.getUserLine(Init->getSourceLocation()));
      }
      if (Lines.empty())
        continue;
      // std::move's header, unless the file has it (or everything) already.
      bool Included = llvm::any_of(findMainIncludes(Ctx), [](const auto &I) {
        return streamHeaderSpelling(I) == "<bits/stdc++.h>" ||
               llvm::StringRef(I.Path).ends_with("/utility");
      });
      if (!Included && !addHeader(E, Ctx, "<utility>"))
        continue;
      E.Description =
          llvm::formatv("move constructor of {0} moves what it copied ({1})",
                        Class->getNameAsString(), describeLines(Lines));
      Out.push_back(std::move(E));
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createMoveConstructorInitRule() {
  return std::make_unique<MoveConstructorInitRule>();
}
