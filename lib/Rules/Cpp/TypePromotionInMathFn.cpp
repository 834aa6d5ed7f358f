//===-- TypePromotionInMathFn.cpp - sqrt(float) to std::sqrt(float) -------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// clang-tidy's performance-type-promotion-in-math-fn, as a measured variant:
// `::sqrt(f)` with a float `f` converts it to double, computes in double and
// (often) converts the result back; `std::sqrt(f)`, <cmath>'s float
// overload, computes in float. The rewrite names the float overload that
// the translation unit declares (`std::NAME`, else C's `NAMEf`), with the
// same arguments. The float functions round to float, so the result may
// differ from the double one's in its last bits: the tool's output check
// decides whether the program still prints what it printed.
//
// The call's type becomes float (or stays int/long for ilogb, lrint, ...),
// so calls whose type is deduced (an `auto` variable, an argument of a
// function template or of an overloaded function) are left alone: the
// deduced type or the chosen overload would change with it.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/StringMap.h"

using namespace maxcode;
using namespace clang;
using namespace clang::ast_matchers;

namespace {

/// The C math functions clang-tidy's check knows, of double arguments that
/// have float counterparts.
const char *const MathFunctions[] = {
    "acos",      "acosh",  "asin",      "asinh",      "atan",      "atanh",
    "cbrt",      "ceil",   "cos",       "cosh",       "erf",       "erfc",
    "exp",       "exp2",   "expm1",     "fabs",       "floor",     "ilogb",
    "lgamma",    "llrint", "log",       "log10",      "log1p",     "log2",
    "logb",      "lrint",  "nearbyint", "rint",       "round",     "sin",
    "sinh",      "sqrt",   "tan",       "tanh",       "tgamma",    "trunc",
    "llround",   "lround", "atan2",     "copysign",   "fdim",      "fmax",
    "fmin",      "fmod",   "hypot",     "ldexp",      "nextafter", "pow",
    "remainder", "fma",    "frexp",     "nexttoward", "remquo",    "scalbln",
    "scalbn"};

bool isDouble(QualType T) {
  return T.getCanonicalType()->isSpecificBuiltinType(BuiltinType::Double);
}
bool isFloat(QualType T) {
  return T.getCanonicalType()->isSpecificBuiltinType(BuiltinType::Float);
}

/// True when \p Arg is a float implicitly converted to double.
bool isPromotedFloat(const Expr *Arg) {
  const auto *Cast = dyn_cast<ImplicitCastExpr>(Arg->IgnoreParens());
  return Cast && Cast->getCastKind() == CK_FloatingCast &&
         isFloat(Cast->getSubExpr()->getType());
}

/// The float declarations the translation unit has of the functions:
/// `std::NAME` and `::NAMEf`, by their qualified name.
using FloatOverloads = llvm::StringMap<std::vector<const FunctionDecl *>>;

FloatOverloads findFloatOverloads(ASTContext &AST) {
  std::vector<std::string> Names;
  for (const char *Name : MathFunctions) {
    Names.push_back(std::string("::std::") + Name);
    Names.push_back(std::string("::") + Name + "f");
  }
  std::vector<llvm::StringRef> Refs(Names.begin(), Names.end());
  FloatOverloads Out;
  for (const BoundNodes &N :
       match(findAll(functionDecl(hasAnyName(Refs)).bind("fn")),
             *AST.getTranslationUnitDecl(), AST)) {
    const auto *FD = N.getNodeAs<FunctionDecl>("fn");
    std::string Key = (isInStd(FD) ? "std::" : "") + FD->getNameAsString();
    Out[Key].push_back(FD);
  }
  return Out;
}

/// True when \p FD takes what \p Callee takes with every double a float.
bool isFloatCounterpart(const FunctionDecl *FD, const FunctionDecl *Callee) {
  if (FD->getNumParams() != Callee->getNumParams() || FD->isTemplated() ||
      FD->isVariadic())
    return false;
  for (unsigned I = 0; I < FD->getNumParams(); ++I) {
    QualType Want = Callee->getParamDecl(I)->getType();
    QualType Have = FD->getParamDecl(I)->getType();
    if (isDouble(Want) ? !isFloat(Have)
                       : Want.getCanonicalType().getUnqualifiedType() !=
                             Have.getCanonicalType().getUnqualifiedType())
      return false;
  }
  return true;
}

/// True when \p S is in a function or lambda whose return type is deduced.
bool inDeducedReturn(ASTContext &AST, const Stmt *S) {
  DynTypedNodeList Parents = AST.getParents(*S);
  while (Parents.size() == 1) {
    if (const auto *L = Parents[0].get<LambdaExpr>())
      return !L->hasExplicitResultType();
    if (const auto *FD = Parents[0].get<FunctionDecl>())
      return FD->getDeclaredReturnType()->getContainedDeducedType() != nullptr;
    if (const auto *P = Parents[0].get<Stmt>())
      Parents = AST.getParents(*P);
    else
      return true;
  }
  return true;
}

/// True when \p C is a `<<` of std::basic_ostream, which prints a float as
/// the double of the same value.
bool isStreamInsertion(const CXXOperatorCallExpr *C) {
  const auto *M = dyn_cast_or_null<CXXMethodDecl>(C->getDirectCallee());
  return C->getOperator() == OO_LessLess && M && isInStd(M) &&
         M->getParent()->getIdentifier() &&
         M->getParent()->getName() == "basic_ostream";
}

/// True when the type of \p E's value decides something once the call in
/// it returns float: an `auto` variable or return type, an argument of a
/// function template or of an overloaded function or operator, of a
/// constructor or a braced list, or any use not known to convert it to a
/// type of its own. Arithmetic on the value passes the question up.
bool typeShows(ASTContext &AST, const Expr *E) {
  const Stmt *Child = E;
  while (true) {
    DynTypedNodeList Parents = AST.getParents(*Child);
    if (Parents.size() != 1)
      return true;
    if (const auto *V = Parents[0].get<VarDecl>())
      return V->getType()->getContainedDeducedType() != nullptr;
    const Stmt *P = Parents[0].get<Stmt>();
    if (!P)
      return true;
    // A conversion to a fixed type (`float y = sqrt(x)`) hides the change.
    if (const auto *Cast = dyn_cast<ImplicitCastExpr>(P)) {
      if (Cast->getCastKind() != CK_NoOp)
        return false;
    } else if (isa<ReturnStmt>(P)) {
      return inDeducedReturn(AST, P);
    } else if (const auto *B = dyn_cast<BinaryOperator>(P)) {
      // An assignment converts to its target; a comparison gives a bool.
      if ((B->isAssignmentOp() && B->getRHS() == Child) ||
          B->isComparisonOp() || (B->isCommaOp() && B->getLHS() == Child))
        return false;
      if (B->isAssignmentOp())
        return true;
    } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P)) {
      return !isStreamInsertion(Op) || Op->getArg(1) != Child;
    } else if (const auto *C = dyn_cast<CallExpr>(P)) {
      const FunctionDecl *Callee = C->getDirectCallee();
      if (!Callee || C->getCallee() == Child || Callee->isTemplated() ||
          Callee->getPrimaryTemplate() || Callee->isTemplateInstantiation())
        return true;
      // A variadic argument is promoted back to double.
      if (Callee->isVariadic() && C->getNumArgs() > Callee->getNumParams() &&
          llvm::is_contained(
              llvm::ArrayRef(C->getArgs() + Callee->getNumParams(),
                             C->getNumArgs() - Callee->getNumParams()),
              Child))
        return false;
      // Another overload may take the float better.
      const IdentifierInfo *Name = Callee->getIdentifier();
      return !Name || !Callee->getDeclContext()
                           ->getRedeclContext()
                           ->lookup(Name)
                           .isSingleResult();
    } else if (const auto *U = dyn_cast<UnaryOperator>(P)) {
      if (U->getOpcode() != UO_Minus && U->getOpcode() != UO_Plus)
        return true;
    } else if (!isa<ParenExpr>(P) && !isa<MaterializeTemporaryExpr>(P) &&
               !isa<ExprWithCleanups>(P)) {
      return true;
    }
    Child = P;
  }
}

class TypePromotionInMathFnRule : public Rule {
public:
  TypePromotionInMathFnRule()
      : Rule("type-promotion-in-math-fn",
             "calls of C double math functions with float arguments to the "
             "float overloads (performance-type-promotion-in-math-fn)",
             "float math") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    std::vector<std::string> Names;
    for (const char *Name : MathFunctions)
      Names.push_back(std::string("::") + Name);
    std::vector<llvm::StringRef> Refs(Names.begin(), Names.end());
    auto Call = callExpr(callee(functionDecl(hasAnyName(Refs)).bind("fn")))
                    .bind("call");
    std::optional<FloatOverloads> Overloads;
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      FunctionEdit E(makeEdit("", 30), Ctx, FD);
      for (const BoundNodes &N : match(findAll(Call), *FD->getBody(), AST)) {
        const auto *C = N.getNodeAs<CallExpr>("call");
        const auto *Callee = N.getNodeAs<FunctionDecl>("fn");
        if (!promotesEveryFloat(C, Callee) || typeShows(AST, C))
          continue;
        // The callee is written as its plain name, not `std::sqrt` (which
        // would have chosen the float overload) nor `::sqrt`.
        const auto *Ref =
            dyn_cast<DeclRefExpr>(C->getCallee()->IgnoreImpCasts());
        if (!Ref || Ref->hasQualifier() || Ref->hasExplicitTemplateArgs())
          continue;
        auto R = Ctx.getEditRange(Ref->getSourceRange());
        if (!R)
          continue;
        if (!Overloads)
          Overloads = findFloatOverloads(AST);
        std::string NewName =
            floatName(*Overloads, Callee, Ctx.getSourceManager(),
                      Ctx.getSourceManager().getExpansionLoc(C->getBeginLoc()));
        if (!NewName.empty())
          E.replace(C->getBeginLoc(), R, NewName);
      }
      E.addTo(Out, "float math functions for float arguments");
    }
  }

private:
  /// True when \p Callee takes doubles and every one of them is a promoted
  /// float in \p C (its other parameters, int or pointer, are the float
  /// overload's too).
  static bool promotesEveryFloat(const CallExpr *C,
                                 const FunctionDecl *Callee) {
    QualType Result = Callee->getReturnType();
    if (C->getNumArgs() != Callee->getNumParams() || Callee->isVariadic() ||
        !(isDouble(Result) || Result->isIntegerType()))
      return false;
    unsigned Doubles = 0;
    for (unsigned I = 0; I < Callee->getNumParams(); ++I) {
      if (!isDouble(Callee->getParamDecl(I)->getType()))
        continue;
      if (!isPromotedFloat(C->getArg(I)))
        return false;
      ++Doubles;
    }
    return Doubles > 0;
  }

  /// `std::NAME` when <cmath>'s float overload is declared before \p At,
  /// else `NAMEf` when C's float function is, else "".
  static std::string floatName(const FloatOverloads &Overloads,
                               const FunctionDecl *Callee,
                               const SourceManager &SM, SourceLocation At) {
    std::string Name = Callee->getNameAsString();
    for (const auto &[Key, Spelling] :
         {std::pair<std::string, std::string>{"std::" + Name, "std::" + Name},
          {Name + "f", Name + "f"}}) {
      auto It = Overloads.find(Key);
      if (It == Overloads.end())
        continue;
      for (const FunctionDecl *FD : It->second)
        if (isFloatCounterpart(FD, Callee) &&
            SM.isBeforeInTranslationUnit(SM.getExpansionLoc(FD->getLocation()),
                                         At))
          return Spelling;
    }
    return "";
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createTypePromotionInMathFnRule() {
  return std::make_unique<TypePromotionInMathFnRule>();
}
