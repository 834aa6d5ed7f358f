//===-- ImplicitConversionInLoop.cpp - const T & to const auto & ----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// clang-tidy's performance-implicit-conversion-in-loop, with the fix it
// leaves to the reader: `for (const std::pair<int, std::string> &P : M)`
// over a std::map<int, std::string>, whose elements are
// std::pair<const int, std::string>, does not bind P to the element: it
// converts each element to a temporary pair, copying the string.
// `const auto &P` binds to the element.
//
// The variable's type changes from T to the element's type, so the rule
// makes sure no use can tell: only the conversions of the standard
// library, between std::pair types whose members differ only in const
// (every use of the variable reads a member, `P.first`, of the same type),
// or from a C string to std::string (every use prints it to a
// std::ostream). The copies it saves are of standard types and of
// trivially copyable ones, so no constructor with an effect of its own runs
// one time less.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Lex/Lexer.h"

using namespace maxcode;
using namespace clang;
using namespace clang::ast_matchers;

namespace {

/// True when copying a \p T runs no code of the program's own: a trivially
/// copyable type, or a standard class template of such types (strings,
/// containers, pairs).
bool copiesWithoutEffects(QualType T, const ASTContext &AST, unsigned Depth) {
  T = T.getCanonicalType();
  if (T->isDependentType() || Depth > 8)
    return false;
  if (T.isTriviallyCopyableType(AST))
    return true;
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T->getAsCXXRecordDecl());
  if (!Spec || !isInStd(Spec))
    return false;
  for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray()) {
    if (Arg.getKind() == TemplateArgument::Type &&
        !copiesWithoutEffects(Arg.getAsType(), AST, Depth + 1))
      return false;
    if (Arg.getKind() != TemplateArgument::Type &&
        Arg.getKind() != TemplateArgument::Integral)
      return false;
  }
  return true;
}

/// When \p V is initialised by converting the element to a temporary, the
/// element's type (its expression before the conversion).
std::optional<QualType> convertedElementType(const VarDecl *V) {
  const Expr *Init = V->getInit();
  if (!Init)
    return std::nullopt;
  if (const auto *FE = dyn_cast<FullExpr>(Init))
    Init = FE->getSubExpr();
  const auto *MTE = dyn_cast<MaterializeTemporaryExpr>(Init);
  if (!MTE)
    return std::nullopt;
  const Expr *Sub = MTE->getSubExpr();
  while (true) {
    if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(Sub))
      Sub = B->getSubExpr();
    else if (const auto *ICE = dyn_cast<ImplicitCastExpr>(Sub);
             ICE && ICE->getCastKind() == CK_NoOp)
      Sub = ICE->getSubExpr();
    else
      break;
  }
  // A constructor of the standard library (an implicit one is written as a
  // ConstructorConversion cast around it, or as the construction itself).
  if (const auto *ICE = dyn_cast<ImplicitCastExpr>(Sub);
      ICE && ICE->getCastKind() == CK_ConstructorConversion)
    Sub = ICE->getSubExpr();
  while (const auto *B = dyn_cast<CXXBindTemporaryExpr>(Sub))
    Sub = B->getSubExpr();
  const auto *Construct = dyn_cast<CXXConstructExpr>(Sub);
  if (!Construct || Construct->getNumArgs() < 1 ||
      Construct->getConstructor()->isCopyOrMoveConstructor() ||
      !isInStd(Construct->getConstructor()))
    return std::nullopt;
  for (unsigned I = 1; I < Construct->getNumArgs(); ++I)
    if (!isa<CXXDefaultArgExpr>(Construct->getArg(I)))
      return std::nullopt;
  return Construct->getArg(0)->IgnoreImplicit()->getType();
}

/// True when std::pair \p To differs from std::pair \p From only in the
/// const of its members.
bool pairsAlike(QualType From, QualType To) {
  const auto *F = stdSpecialization(From.getNonReferenceType(), "pair");
  const auto *T = stdSpecialization(To.getNonReferenceType(), "pair");
  if (!F || !T)
    return false;
  for (unsigned I = 0; I < 2; ++I) {
    const TemplateArgument &A = F->getTemplateArgs()[I];
    const TemplateArgument &B = T->getTemplateArgs()[I];
    if (A.getKind() != TemplateArgument::Type ||
        B.getKind() != TemplateArgument::Type ||
        A.getAsType().getCanonicalType().getUnqualifiedType() !=
            B.getAsType().getCanonicalType().getUnqualifiedType())
      return false;
  }
  return true;
}

/// A C string, which prints as the std::string made of it prints.
bool printsAsString(QualType T) {
  T = T.getCanonicalType();
  return T->isPointerType() && T->getPointeeType()->isCharType();
}

/// The parent of \p E above parentheses and no-op casts, and its child.
std::pair<const Stmt *, const Stmt *> useParent(ASTContext &AST,
                                                const Expr *E) {
  const Stmt *Child = E;
  while (true) {
    DynTypedNodeList Parents = AST.getParents(*Child);
    const Stmt *P = Parents.size() == 1 ? Parents[0].get<Stmt>() : nullptr;
    if (!P)
      return {nullptr, Child};
    const auto *ICE = dyn_cast<ImplicitCastExpr>(P);
    if (!isa<ParenExpr>(P) && (!ICE || ICE->getCastKind() != CK_NoOp))
      return {P, Child};
    Child = P;
  }
}

/// True when \p Use of the loop variable reads a member of a pair.
bool readsPairMember(ASTContext &AST, const DeclRefExpr *Use) {
  auto [P, Child] = useParent(AST, Use);
  const auto *ME = dyn_cast_or_null<MemberExpr>(P);
  return ME && !ME->isArrow() && isa<FieldDecl>(ME->getMemberDecl());
}

/// True when \p Use of the loop variable is printed: `os << Use`.
bool isPrinted(ASTContext &AST, const DeclRefExpr *Use) {
  auto [P, Child] = useParent(AST, Use);
  const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(P);
  if (!Op || Op->getOperator() != OO_LessLess || Op->getNumArgs() != 2 ||
      Op->getArg(1) != Child || !Op->getDirectCallee() ||
      !isInStd(Op->getDirectCallee()))
    return false;
  const auto *Stream = stdSpecialization(
      Op->getArg(0)->getType().getNonReferenceType(), "basic_ostream");
  return Stream &&
         Stream->getTemplateArgs()[0].getKind() == TemplateArgument::Type &&
         Stream->getTemplateArgs()[0].getAsType()->isCharType();
}

class ImplicitConversionInLoopRule : public Rule {
public:
  ImplicitConversionInLoopRule()
      : Rule("implicit-conversion-in-loop",
             "range-for const T & variables bound to a converted copy of "
             "each element to const auto & "
             "(performance-implicit-conversion-in-loop)",
             "const auto & loop variable") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      FunctionEdit E(makeEdit("", 40), Ctx, FD);
      for (const BoundNodes &N :
           match(findAll(cxxForRangeStmt().bind("for")), *FD->getBody(), AST)) {
        const auto *S = N.getNodeAs<CXXForRangeStmt>("for");
        const VarDecl *V = S->getLoopVariable();
        if (!V || !convertsEachElement(Ctx, S))
          continue;
        // The type as written in the file (not a macro's): from the
        // declaration's start (its `const`) to the name, which must follow
        // it directly.
        TypeLoc TL = V->getTypeSourceInfo()->getTypeLoc();
        if (V->getBeginLoc().isMacroID() || TL.getBeginLoc().isMacroID() ||
            TL.getEndLoc().isMacroID())
          continue;
        std::optional<Token> Next = Lexer::findNextToken(
            TL.getEndLoc(), Ctx.getSourceManager(), AST.getLangOpts());
        if (!Next || Next->getLocation() != V->getLocation())
          continue;
        E.replace(S->getBeginLoc(),
                  Ctx.getEditRange(CharSourceRange::getCharRange(
                      V->getBeginLoc(), V->getLocation())),
                  "const auto &");
      }
      E.addTo(Out, "range-for variables bound to the elements, not converted "
                   "copies,");
    }
  }

private:
  /// True when the loop variable of \p S is a `const T &` bound to a
  /// conversion of each element that `const auto &` saves without a use
  /// telling the difference.
  static bool convertsEachElement(const RuleContext &Ctx,
                                  const CXXForRangeStmt *S) {
    ASTContext &AST = Ctx.getASTContext();
    const VarDecl *V = S->getLoopVariable();
    if (isa<DecompositionDecl>(V) || V->isImplicit() || V->hasAttrs() ||
        !V->getTypeSourceInfo() || V->getType()->isDependentType() ||
        V->getType()->getContainedDeducedType() ||
        !V->getType()->isLValueReferenceType())
      return false;
    QualType T = V->getType()->getPointeeType();
    if (!T.isConstQualified() || T.isVolatileQualified())
      return false;
    std::optional<QualType> Element = convertedElementType(V);
    if (!Element || Element->isNull() || (*Element)->isDependentType() ||
        !copiesWithoutEffects(T, AST, 0))
      return false;
    bool Pairs = pairsAlike(*Element, T);
    bool Strings = isStdString(T) && printsAsString(*Element);
    if (!Pairs && !Strings)
      return false;
    for (const BoundNodes &N :
         match(findAll(declRefExpr(to(varDecl(equalsNode(V)))).bind("use")),
               *S->getBody(), AST)) {
      const auto *Use = N.getNodeAs<DeclRefExpr>("use");
      if (Pairs ? !readsPairMember(AST, Use) : !isPrinted(AST, Use))
        return false;
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createImplicitConversionInLoopRule() {
  return std::make_unique<ImplicitConversionInLoopRule>();
}
