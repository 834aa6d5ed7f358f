//===-- MoveConstArg.cpp - std::move that cannot move, removed ------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// clang-tidy's performance-move-const-arg, as a measured variant:
// `std::move(x)` where x is const (the result binds to `const T &` and is
// copied: the move only misleads the reader) or of a trivially copyable type
// (moving copies the bytes anyway) becomes `x`. This seldom changes the run
// time by itself; the search measures it and the minimiser drops it when it
// does not pay.
//
// Removing the move turns an xvalue into an lvalue, which can change what
// overload resolution picks. The rule proposes it only where it can show
// that the same function (or one that does the same: a trivial copy for a
// trivial move, std's `const &` overload for its `&&` one) receives the
// value:
// - a const argument: every candidate an lvalue `const T` binds to, an
//   xvalue `const T` binds to as well, so when the chosen one takes a
//   (`const`) lvalue reference, it stays chosen;
// - a non-const argument (trivially copyable): a `T &` overload would now
//   win, so the overloads of the callee (its class's members, or the
//   constructors) are looked up and none may take `T &` there.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace maxcode;
using namespace clang;
using namespace clang::ast_matchers;

namespace {

/// True when a non-const lvalue passed as parameter \p Index of \p Callee
/// cannot select another function of its overload set than an xvalue did:
/// none of them takes a non-const lvalue reference there, and no template
/// could deduce one (`U &`, `U &&`, `U &&...`). Only members and
/// constructors, whose class's lookup is the whole set; a free function's
/// set depends on the call site (using-directives, argument-dependent
/// lookup), so false.
bool noLvalueReferenceOverload(const FunctionDecl *Callee, unsigned Index) {
  const auto *M = dyn_cast<CXXMethodDecl>(Callee);
  if (!M)
    return false;
  for (const NamedDecl *D : M->getParent()->lookup(Callee->getDeclName())) {
    const FunctionDecl *F = D->getAsFunction();
    // A using-declaration, a member that is not a function, or one the
    // lvalue could select.
    if (!F || (F != D && !isa<FunctionTemplateDecl>(D)) ||
        paramTakesNonConstLvalue(F, Index))
      return false;
  }
  return true;
}

/// True when the class's copy constructor is usable and trivial, so that it
/// copies what its trivial move constructor would have.
bool hasTrivialUsableCopyConstructor(const CXXRecordDecl *RD) {
  bool Declared = false;
  for (const CXXConstructorDecl *C : RD->ctors()) {
    if (!C->isCopyConstructor())
      continue;
    QualType P = C->getParamDecl(0)->getType();
    if (C->isDeleted() || !C->isTrivial() ||
        !P->getPointeeType().isConstQualified())
      return false;
    Declared = true;
  }
  if (Declared)
    return true;
  // Not declared yet: the implicit one, unless a user-declared move deletes
  // it.
  return RD->needsImplicitCopyConstructor() &&
         !RD->defaultedCopyConstructorIsDeleted() &&
         !RD->hasUserDeclaredMoveConstructor() &&
         !RD->hasUserDeclaredMoveAssignment() &&
         RD->hasTrivialCopyConstructor() &&
         RD->implicitCopyConstructorHasConstParam();
}

/// For the std containers' `push_back(T &&)`-style members: whether
/// \p Callee has a sibling that is the same but for `const T &` at
/// \p Index, which a (trivially copyable) lvalue then selects to the same
/// effect.
bool hasStdConstRefTwin(const FunctionDecl *Callee, unsigned Index,
                        const ASTContext &AST) {
  const auto *M = dyn_cast<CXXMethodDecl>(Callee);
  if (!M || !isInStd(M) || !noLvalueReferenceOverload(M, Index))
    return false;
  QualType Moved = M->getParamDecl(Index)->getType()->getPointeeType();
  for (const NamedDecl *D : M->getParent()->lookup(M->getDeclName())) {
    const auto *F = dyn_cast<CXXMethodDecl>(D);
    if (!F || F == M || F->getNumParams() != M->getNumParams() ||
        F->getMethodQualifiers() != M->getMethodQualifiers())
      continue;
    bool Twin = true;
    for (unsigned I = 0, N = F->getNumParams(); I < N && Twin; ++I) {
      QualType A = F->getParamDecl(I)->getType();
      QualType B = M->getParamDecl(I)->getType();
      Twin = I == Index
                 ? A->isLValueReferenceType() &&
                       A->getPointeeType().isConstQualified() &&
                       AST.hasSameUnqualifiedType(A->getPointeeType(), Moved)
                 : AST.hasSameType(A, B);
    }
    if (Twin)
      return true;
  }
  return false;
}

/// True when an argument is never written in a form its neighbours could
/// bind into: a name, a member, an element, a call, or parenthesised.
bool isPostfix(const Expr *E) {
  E = E->IgnoreImpCasts();
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    return Op->getOperator() == OO_Subscript || Op->getOperator() == OO_Call;
  return isa<DeclRefExpr, MemberExpr, ArraySubscriptExpr, ParenExpr, CallExpr>(
      E);
}

/// True when \p E (past implicit conversions) is a whole argument of a call
/// or constructor, or a variable's initializer: text put in its place needs
/// no parentheses.
bool isWholeOperand(ASTContext &AST, const Expr *E) {
  DynTypedNodeList Parents = AST.getParents(*E);
  while (Parents.size() == 1 && Parents[0].get<ImplicitCastExpr>()) {
    E = Parents[0].get<ImplicitCastExpr>();
    Parents = AST.getParents(*E);
  }
  if (Parents.size() != 1)
    return false;
  if (Parents[0].get<VarDecl>())
    return true;
  if (const auto *Call = Parents[0].get<CallExpr>())
    return !isa<CXXOperatorCallExpr>(Call) && Call->getCallee() != E;
  return Parents[0].get<CXXConstructExpr>() != nullptr;
}

/// Whether `std::move(Arg)` (the call \p Move) can be `Arg` without the
/// value going elsewhere; \p Bare is set when the call is a whole argument
/// of a call or constructor, or inside parentheses, where the argument
/// needs no parentheses of its own.
bool removalKeepsMeaning(const CallExpr *Move, bool ArgConst, ASTContext &AST,
                         bool &Bare) {
  // Parentheses and no-op casts keep the value category: what is above them
  // receives the value.
  const Expr *Cur = Move;
  const Stmt *P = parentStmt(AST, Cur);
  while (P && (isa<ParenExpr>(P) ||
               (isa<ImplicitCastExpr>(P) &&
                cast<ImplicitCastExpr>(P)->getCastKind() == CK_NoOp))) {
    Bare |= isa<ParenExpr>(P);
    Cur = cast<Expr>(P);
    P = parentStmt(AST, P);
  }
  if (!P || !isa<Expr>(P) || cast<Expr>(P)->isInstantiationDependent())
    return false;
  // A scalar read: the value is all that is used.
  if (const auto *Cast = dyn_cast<ImplicitCastExpr>(P)) {
    if (Cast->getCastKind() != CK_LValueToRValue)
      return false;
    Bare |= isWholeOperand(AST, Cast);
    return true;
  }

  if (const auto *Construct = dyn_cast<CXXConstructExpr>(P)) {
    const CXXConstructorDecl *Ctor = Construct->getConstructor();
    unsigned Index = 0;
    while (Index < Construct->getNumArgs() && Construct->getArg(Index) != Cur)
      ++Index;
    if (Index >= Construct->getNumArgs() || Index >= Ctor->getNumParams())
      return false;
    Bare = true;
    QualType PT = Ctor->getParamDecl(Index)->getType();
    if (PT->isLValueReferenceType())
      return ArgConst || noLvalueReferenceOverload(Ctor, Index);
    // A trivial move constructor copies what the trivial copy constructor
    // an lvalue selects copies, when nothing else takes the lvalue.
    return PT->isRValueReferenceType() && !ArgConst &&
           Ctor->isMoveConstructor() && Ctor->isTrivial() &&
           hasTrivialUsableCopyConstructor(Ctor->getParent()) &&
           noLvalueReferenceOverload(Ctor, Index);
  }

  if (const auto *Call = dyn_cast<CallExpr>(P)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || Call->getCallee() == Cur)
      return false;
    unsigned Index = 0;
    while (Index < Call->getNumArgs() && Call->getArg(Index) != Cur)
      ++Index;
    if (Index >= Call->getNumArgs())
      return false;
    if (isa<CXXOperatorCallExpr>(Call)) {
      // A member operator's first argument is its object, whose
      // ref-qualifiers may tell an xvalue from an lvalue.
      if (isa<CXXMethodDecl>(Callee) && Index-- == 0)
        return false;
    } else {
      Bare = true;
    }
    if (Index >= Callee->getNumParams())
      return false;
    // Found through a using-declaration: the lookup of its class is not the
    // whole overload set.
    if (const auto *ME =
            dyn_cast<MemberExpr>(Call->getCallee()->IgnoreParens()))
      if (ME->getFoundDecl().getDecl() != Callee)
        return false;
    QualType PT = Callee->getParamDecl(Index)->getType();
    if (PT->isLValueReferenceType())
      return ArgConst || (!Callee->getPrimaryTemplate() &&
                          noLvalueReferenceOverload(Callee, Index));
    return PT->isRValueReferenceType() && !ArgConst &&
           !Callee->getPrimaryTemplate() &&
           hasStdConstRefTwin(Callee, Index, AST);
  }
  return false;
}

class MoveConstArgRule : public Rule {
public:
  MoveConstArgRule()
      : Rule("move-const-arg",
             "std::move of a const or trivially copyable value, which copies "
             "anyway, to the value itself (performance-move-const-arg)",
             "no std::move") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      // A template's pattern: what its instantiations pick is not settled.
      if (FD->isDependentContext())
        continue;
      FunctionEdit E(makeEdit("", 15), Ctx, FD);
      for (const BoundNodes &N :
           match(findAll(callExpr(callee(functionDecl(hasName("::std::move"))),
                                  argumentCountIs(1))
                             .bind("move")),
                 *FD->getBody(), AST)) {
        const auto *Move = N.getNodeAs<CallExpr>("move");
        // Its lambdas' too (the calls in a generic one are dependent), not
        // its local classes' members, which are functions of their own.
        if (enclosingFunction(AST, Move) != FD)
          continue;
        const Expr *Arg = Move->getArg(0);
        QualType T = Arg->getType();
        // Only a named lvalue: a moved prvalue stays an rvalue without
        // the move, and overloads would see no difference to argue from.
        if (!Arg->isLValue() || T->isDependentType() || T->isArrayType() ||
            T.isVolatileQualified())
          continue;
        bool ArgConst = T.isConstQualified();
        if (!ArgConst && !T.isTriviallyCopyableType(AST))
          continue;
        // Whether a closure type is trivially copyable is the
        // implementation's choice ([expr.prim.lambda]).
        if (const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
            RD && RD->isLambda())
          continue;
        bool Bare = false;
        if (!removalKeepsMeaning(Move, ArgConst, AST, Bare))
          continue;
        auto ArgRange = Ctx.getEditRange(Arg->getSourceRange());
        if (!ArgRange)
          continue;
        std::string Text = Ctx.getText(*ArgRange).str();
        if (!Bare && !isPostfix(Arg))
          Text = "(" + Text + ")";
        E.replace(Move->getBeginLoc(), Ctx.getEditRange(Move->getSourceRange()),
                  Text);
      }
      E.addTo(Out, "std::move that copies anyway removed");
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createMoveConstArgRule() {
  return std::make_unique<MoveConstArgRule>();
}
