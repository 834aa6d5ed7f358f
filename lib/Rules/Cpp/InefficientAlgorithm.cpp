//===-- InefficientAlgorithm.cpp - std::find on a set to set::find --------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// clang-tidy's performance-inefficient-algorithm, as a measured variant:
// `std::find(s.begin(), s.end(), x)` walks a std::set element by element
// where `s.find(x)` descends the tree (or hashes, for an unordered set).
// Likewise std::count, and std::lower_bound, std::upper_bound and
// std::equal_range on an ordered set.
//
// The algorithms compare with `==` (and `<`); the set with its comparator
// or its hash and equality. They find the same elements when those are the
// defaults (std::less, std::hash, std::equal_to of the key) and the key's
// `==` and `<` agree with them: integers, enums, pointers, std::string. Not
// floating point: a NaN equals nothing under `==` but is equivalent to
// everything under `<`. The value searched for must convert to the key
// without a change of value (the set converts it; the algorithm compares
// it as it is).
//
// What differs is the result's type, and which of several equal elements
// a multiset's find returns: the rewrite is made where neither shows. A
// multiset's find, or a find whose iterator type is not the algorithm's
// (const_iterator from cbegin), only when the result is compared with the
// set's end(); lower_bound, upper_bound and equal_range only when the
// types agree; count (size_type where the algorithm returned a
// difference_type) only where its value is converted, compared with a
// non-negative constant, added, stored in a variable of a declared type or
// printed.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace maxcode;
using namespace clang;
using namespace clang::ast_matchers;

namespace {

/// A standard set type with the default ordering, hash and equality.
struct SetType {
  const ClassTemplateSpecializationDecl *Record = nullptr;
  QualType Key;
  bool Ordered = false;
  bool Multi = false;
};

/// True for keys whose `==` (and `<`) agree with the set's ordering and
/// equality.
bool hasAgreeingEquality(QualType Key) {
  Key = Key.getCanonicalType();
  return Key->isIntegralOrEnumerationType() || Key->isPointerType() ||
         isStdString(Key);
}

std::optional<SetType> asSetType(QualType T) {
  SetType S;
  for (llvm::StringRef Name :
       {"set", "multiset", "unordered_set", "unordered_multiset"}) {
    S.Record = stdSpecialization(T, Name);
    if (!S.Record)
      continue;
    S.Ordered = !Name.starts_with("unordered");
    S.Multi = Name.contains("multi");
    break;
  }
  if (!S.Record)
    return std::nullopt;
  const TemplateArgumentList &Args = S.Record->getTemplateArgs();
  if (Args.size() < (S.Ordered ? 2u : 3u) ||
      Args[0].getKind() != TemplateArgument::Type)
    return std::nullopt;
  S.Key = Args[0].getAsType();
  if (!hasAgreeingEquality(S.Key))
    return std::nullopt;
  if (S.Ordered ? !isStdTemplateOf(Args[1], "less", S.Key)
                : !isStdTemplateOf(Args[1], "hash", S.Key) ||
                      !isStdTemplateOf(Args[2], "equal_to", S.Key))
    return std::nullopt;
  return S;
}

/// True when a value of type \p From converts to the key \p Key without a
/// change of value, so that the set finds what `==` finds.
bool convertsExactly(QualType From, QualType Key, const ASTContext &AST) {
  From = From.getCanonicalType().getUnqualifiedType();
  Key = Key.getCanonicalType().getUnqualifiedType();
  if (From == Key)
    return true;
  if (isStdString(Key)) {
    // A C string: the set makes a std::string of it, `==` compares with it.
    QualType Elem;
    if (From->isPointerType())
      Elem = From->getPointeeType();
    else if (From->isArrayType())
      Elem = AST.getAsArrayType(From)->getElementType();
    return !Elem.isNull() && Elem->isCharType();
  }
  return integerConvertsExactly(From, Key, AST);
}

/// \p E without the implicit copies and conversions of an iterator
/// argument.
const Expr *skipCopies(const Expr *E) {
  while (true) {
    const Expr *Next = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *C = dyn_cast<CXXConstructExpr>(Next);
        C && C->getNumArgs() == 1 &&
        C->getConstructor()->isCopyOrMoveConstructor())
      Next = C->getArg(0);
    if (Next == E)
      return E;
    E = Next;
  }
}

/// The object expression of a set, as the calls of its members see it.
struct SetObject {
  std::string Text; ///< As written: `S`, `Obj.Seen`, `P`.
  bool Arrow = false;
  bool Const = false;
  const Expr *Base = nullptr;
  SetType Type;
};

/// When \p E is `obj.Name()` (or `obj->Name()`) of a set for one of the
/// names \p Names, the set and which name.
std::optional<std::pair<SetObject, llvm::StringRef>>
setMemberCall(const RuleContext &Ctx, const Expr *E,
              llvm::ArrayRef<llvm::StringRef> Names) {
  const auto *Call = dyn_cast<CXXMemberCallExpr>(skipCopies(E));
  if (!Call || Call->getNumArgs() != 0)
    return std::nullopt;
  const auto *ME = dyn_cast<MemberExpr>(Call->getCallee()->IgnoreParens());
  const CXXMethodDecl *M = Call->getMethodDecl();
  if (!ME || ME->isImplicitAccess() || !M || !M->getIdentifier() ||
      !llvm::is_contained(Names, M->getName()))
    return std::nullopt;
  // The object's own type: not the const view a const member sees.
  const Expr *Base = ME->getBase();
  while (const auto *ICE = dyn_cast<ImplicitCastExpr>(Base)) {
    if (ICE->getCastKind() != CK_NoOp &&
        ICE->getCastKind() != CK_LValueToRValue)
      break;
    Base = ICE->getSubExpr();
  }
  QualType T = Base->getType();
  if (ME->isArrow()) {
    if (!T->isPointerType())
      return std::nullopt;
    T = T->getPointeeType();
  }
  std::optional<SetType> S = asSetType(T.getNonReferenceType());
  // The call is written out (`ALL(s)` hides what it calls).
  auto R = Ctx.getEditRange(ME->getBase()->getSourceRange());
  if (!S || !R || !Ctx.getEditRange(Call->getSourceRange()))
    return std::nullopt;
  SetObject O;
  O.Text = Ctx.getText(*R).str();
  O.Arrow = ME->isArrow();
  O.Const = T.getNonReferenceType().isConstQualified();
  O.Base = ME->getBase();
  O.Type = *S;
  return std::make_pair(O, M->getName());
}

/// The member \p Name of the set taking one argument that a call on an
/// object of constness \p Const selects.
const CXXMethodDecl *setMember(const SetObject &O, llvm::StringRef Name) {
  const CXXMethodDecl *ConstM = nullptr, *NonConstM = nullptr;
  ASTContext &AST = O.Type.Record->getASTContext();
  for (const NamedDecl *D : O.Type.Record->lookup(&AST.Idents.get(Name)))
    if (const auto *M = dyn_cast<CXXMethodDecl>(D); M && M->getNumParams() == 1)
      (M->isConst() ? ConstM : NonConstM) = M;
  if (O.Const || !NonConstM)
    return ConstM;
  return NonConstM;
}

/// The parent of \p E above parentheses, implicit conversions, temporaries
/// and copies, and the child of it that holds \p E.
std::pair<const Stmt *, const Stmt *> valueParent(ASTContext &AST,
                                                  const Expr *E) {
  const Stmt *Child = E;
  while (true) {
    DynTypedNodeList Parents = AST.getParents(*Child);
    if (Parents.size() != 1)
      return {nullptr, Child};
    const Stmt *P = Parents[0].get<Stmt>();
    if (!P)
      return {nullptr, Child};
    bool Transparent = isa<ParenExpr>(P) || isa<MaterializeTemporaryExpr>(P) ||
                       isa<CXXBindTemporaryExpr>(P) ||
                       (isa<ImplicitCastExpr>(P) &&
                        cast<ImplicitCastExpr>(P)->getCastKind() == CK_NoOp);
    if (const auto *C = dyn_cast<CXXConstructExpr>(P))
      Transparent = C->getNumArgs() == 1 &&
                    C->getConstructor()->isCopyOrMoveConstructor();
    if (!Transparent)
      return {P, Child};
    Child = P;
  }
}

/// True when \p Call's value is only compared (== or !=) with the end() or
/// cend() of the set \p O.
bool comparedWithEnd(const RuleContext &Ctx, const Expr *Call,
                     const SetObject &O) {
  auto [P, Child] = valueParent(Ctx.getASTContext(), Call);
  const Expr *Other = nullptr;
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(P)) {
    if ((Op->getOperator() != OO_EqualEqual &&
         Op->getOperator() != OO_ExclaimEqual) ||
        Op->getNumArgs() != 2)
      return false;
    Other = Op->getArg(0) == Child ? Op->getArg(1) : Op->getArg(0);
  } else if (const auto *B = dyn_cast_or_null<BinaryOperator>(P)) {
    if (!B->isEqualityOp())
      return false;
    Other = B->getLHS() == Child ? B->getRHS() : B->getLHS();
  } else {
    return false;
  }
  auto End = setMemberCall(Ctx, Other, {"end", "cend"});
  return End && End->first.Text == O.Text && End->first.Arrow == O.Arrow;
}

/// True when the type of \p E's value does not show: it is converted to an
/// arithmetic type, compared with a non-negative constant, added to or
/// subtracted from an arithmetic variable, stored in one of a declared
/// type, or printed. (A count is never negative, so a size_type holds the
/// same value as the difference_type did.)
bool countTypeHidden(ASTContext &AST, const Expr *E) {
  const Stmt *Child = E;
  DynTypedNodeList Parents = AST.getParents(*Child);
  while (Parents.size() == 1 && Parents[0].get<ParenExpr>()) {
    Child = Parents[0].get<ParenExpr>();
    Parents = AST.getParents(*Child);
  }
  if (Parents.size() != 1)
    return false;
  if (const auto *V = Parents[0].get<VarDecl>())
    return V->getType()->isArithmeticType() &&
           !V->getType()->getContainedDeducedType();
  const Stmt *P = Parents[0].get<Stmt>();
  if (const auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(P))
    return Cast->getCastKind() == CK_IntegralCast ||
           Cast->getCastKind() == CK_IntegralToBoolean ||
           Cast->getCastKind() == CK_IntegralToFloating;
  if (const auto *CA = dyn_cast_or_null<CompoundAssignOperator>(P))
    return (CA->getOpcode() == BO_AddAssign ||
            CA->getOpcode() == BO_SubAssign) &&
           CA->getRHS() == Child && CA->getLHS()->getType()->isArithmeticType();
  if (const auto *B = dyn_cast_or_null<BinaryOperator>(P)) {
    if (!B->isComparisonOp())
      return false;
    const Expr *Other = B->getLHS() == Child ? B->getRHS() : B->getLHS();
    Expr::EvalResult R;
    return Other->EvaluateAsInt(R, AST) && !R.Val.getInt().isNegative();
  }
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(P)) {
    const auto *M = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee());
    return Op->getOperator() == OO_LessLess && Op->getNumArgs() == 2 &&
           Op->getArg(1) == Child && M && isInStd(M) &&
           M->getParent()->getIdentifier() &&
           M->getParent()->getName() == "basic_ostream";
  }
  return false;
}

class InefficientAlgorithmRule : public Rule {
public:
  InefficientAlgorithmRule()
      : Rule("inefficient-algorithm",
             "std::find, std::count, std::lower_bound, std::upper_bound and "
             "std::equal_range over a whole std::set or std::unordered_set "
             "to the set's own member (performance-inefficient-algorithm)",
             "set lookup") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    auto Algo =
        callExpr(callee(functionDecl(hasAnyName(
                     "::std::find", "::std::count", "::std::lower_bound",
                     "::std::upper_bound", "::std::equal_range"))),
                 argumentCountIs(3))
            .bind("node");
    replaceEachMatch<CallExpr>(
        Ctx, makeEdit("", 45), Algo,
        [&](const CallExpr *Call) { return rewrite(Ctx, Call); },
        "set lookups instead of linear scans", Out);
  }

private:
  /// `s.find(x)` (...) for the algorithm call \p Call, or "".
  static std::string rewrite(const RuleContext &Ctx, const CallExpr *Call) {
    ASTContext &AST = Ctx.getASTContext();
    const FunctionDecl *Algo = Call->getDirectCallee();
    if (!Algo || Algo->getNumParams() != 3)
      return "";
    llvm::StringRef Name = Algo->getName();
    auto First = setMemberCall(Ctx, Call->getArg(0), {"begin", "cbegin"});
    auto Last = setMemberCall(Ctx, Call->getArg(1), {"end", "cend"});
    if (!First || !Last)
      return "";
    const SetObject &O = First->first;
    // The whole of one set, named the same way both times, and naming it
    // once instead of twice changes nothing.
    if (O.Text != Last->first.Text || O.Arrow != Last->first.Arrow ||
        (First->second == "begin") != (Last->second == "end") ||
        !isRepeatable(O.Base, AST))
      return "";
    bool Search = Name == "find" || Name == "count";
    if (!Search && !O.Type.Ordered)
      return "";
    // The value the algorithm compares, of the type it deduced.
    QualType Value = Algo->getParamDecl(2)->getType().getNonReferenceType();
    if (!convertsExactly(Value, O.Type.Key, AST))
      return "";
    if (Name == "count") {
      if (!countTypeHidden(AST, Call))
        return "";
    } else {
      const CXXMethodDecl *M = setMember(O, Name);
      if (!M)
        return "";
      bool SameType = M->getReturnType().getCanonicalType() ==
                      Call->getType().getCanonicalType();
      // A multiset's find returns one of the equal elements, not
      // necessarily the first: only whether there is one is the same.
      bool OnlyFound = (Name == "find" && (O.Type.Multi || !SameType));
      if (OnlyFound ? !comparedWithEnd(Ctx, Call, O) : !SameType)
        return "";
    }
    auto Arg = Ctx.getEditRange(Call->getArg(2)->getSourceRange());
    if (!Arg)
      return "";
    return (O.Text + (O.Arrow ? "->" : ".") + Name + "(" + Ctx.getText(*Arg) +
            ")")
        .str();
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createInefficientAlgorithmRule() {
  return std::make_unique<InefficientAlgorithmRule>();
}
