//===-- CopyRules.cpp - Rules that avoid copies ---------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
//   const-ref-param   a by-value parameter of a type that is expensive to
//                     copy, never modified, becomes `const T &`.
//   range-for-copy    `for (auto x : c)` over expensive elements, never
//                     modified, becomes `for (const auto &x : c)`.
//   substr-compare    `a == s.substr(i, n)` becomes `s.compare(i, n, a) == 0`
//                     (no temporary string).
//
//===----------------------------------------------------------------------===//

#include "Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/AST/TypeLoc.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;

/// True for types whose copy costs more than a reference: records with a
/// non-trivial copy constructor, or larger than two pointers.
static bool isExpensiveToCopy(QualType T, const ASTContext &AST) {
  T = T.getCanonicalType();
  if (T->isReferenceType() || T->isDependentType() || T->isIncompleteType())
    return false;
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition())
    return false;
  if (!RD->hasTrivialCopyConstructor() || !RD->hasTrivialDestructor())
    return true;
  return AST.getTypeSize(T) > 2 * AST.getTypeSize(AST.VoidPtrTy);
}

/// Inserts `const ` before the type (unless already const) and `&` before
/// the name of \p VD, whose type is written in the main file.
static bool makeConstRef(const RuleContext &Ctx, RuleEdit &E,
                         const DeclaratorDecl *VD) {
  TypeSourceInfo *TSI = VD->getTypeSourceInfo();
  if (!TSI)
    return false;
  TypeLoc TL = TSI->getTypeLoc();
  auto TypeRange = Ctx.getFileRange(TL.getSourceRange());
  auto NameOff = Ctx.getFileOffset(VD->getLocation());
  if (!TypeRange || !NameOff || *NameOff < TypeRange->second ||
      !Ctx.isEditable(VD->getSourceRange()))
    return false;
  // Only `T name`: arrays, function types and such keep their spelling.
  llvm::StringRef Between =
      Ctx.getText(TypeRange->second, *NameOff);
  if (!Between.trim().empty())
    return false;
  if (!VD->getType().isConstQualified() &&
      !addReplacement(E, Ctx, TypeRange->first, 0, "const "))
    return false;
  return addReplacement(E, Ctx, *NameOff, 0, "&");
}

namespace {

/// True when some expression takes the address of \p FD or names it other
/// than as the callee of a call (it may be stored as a pointer whose type
/// would change).
class AddressTakenFinder : public RecursiveASTVisitor<AddressTakenFinder> {
public:
  explicit AddressTakenFinder(const FunctionDecl *FD) : FD(FD) {}
  bool VisitCallExpr(CallExpr *C) {
    if (const auto *DRE =
            dyn_cast<DeclRefExpr>(C->getCallee()->IgnoreParenImpCasts()))
      Callees.insert(DRE);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (E->getDecl()->getCanonicalDecl() == FD->getCanonicalDecl())
      Refs.push_back(E);
    return true;
  }
  bool taken() const {
    return llvm::any_of(Refs,
                        [&](const DeclRefExpr *E) { return !Callees.count(E); });
  }

private:
  const FunctionDecl *FD;
  llvm::SmallPtrSet<const DeclRefExpr *, 16> Callees;
  std::vector<const DeclRefExpr *> Refs;
};

class ConstRefParamRule : public Rule {
public:
  ConstRefParamRule()
      : Rule("const-ref-param",
             "by-value parameters of expensive types that are never "
             "modified to const references") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    // Functions, and the lambdas inside them.
    std::vector<const FunctionDecl *> Functions;
    struct Lambdas : RecursiveASTVisitor<Lambdas> {
      std::vector<const FunctionDecl *> &Out;
      explicit Lambdas(std::vector<const FunctionDecl *> &Out) : Out(Out) {}
      bool VisitLambdaExpr(LambdaExpr *L) {
        Out.push_back(L->getCallOperator());
        return true;
      }
    };
    for (const FunctionDecl *FD : editableFunctions(Ctx)) {
      Functions.push_back(FD);
      Lambdas L(Functions);
      L.TraverseStmt(FD->getBody());
    }
    for (const FunctionDecl *FD : Functions) {
      if (FD->isMain() || FD->isTemplated() || !FD->getBody())
        continue;
      if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
        if (MD->isVirtual() || (MD->getParent()->isLambda() == false &&
                                MD->isOverloadedOperator()))
          continue;
      // One declaration only: a prototype elsewhere would no longer match.
      if (std::distance(FD->redecls_begin(), FD->redecls_end()) != 1)
        continue;
      AddressTakenFinder Taken(FD);
      Taken.TraverseDecl(AST.getTranslationUnitDecl());
      if (Taken.taken())
        continue;
      RuleEdit E = makeEdit("", 40);
      std::vector<std::string> Names;
      for (const ParmVarDecl *P : FD->parameters()) {
        if (!P->getIdentifier() || !isExpensiveToCopy(P->getType(), AST) ||
            isMutatedIn(P, FD->getBody(), AST))
          continue;
        RuleEdit Trial = E;
        if (!makeConstRef(Ctx, Trial, P))
          continue;
        E = std::move(Trial);
        Names.push_back(P->getNameAsString());
      }
      if (Names.empty())
        continue;
      std::string Where;
      if (const auto *MD = dyn_cast<CXXMethodDecl>(FD);
          MD && MD->getParent()->isLambda())
        Where = "a lambda";
      else
        Where = FD->getQualifiedNameAsString();
      std::string List;
      for (const std::string &N : Names)
        List += (List.empty() ? "" : ", ") + N;
      E.Description = "pass " + List + " of " + Where + " by const reference";
      Out.push_back(std::move(E));
    }
  }
};

class RangeForCopyRule : public Rule {
public:
  RangeForCopyRule()
      : Rule("range-for-copy",
             "range-for variables that copy expensive elements and are never "
             "modified to const references") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    struct Finder : RecursiveASTVisitor<Finder> {
      std::vector<const CXXForRangeStmt *> Loops;
      bool VisitCXXForRangeStmt(CXXForRangeStmt *S) {
        Loops.push_back(S);
        return true;
      }
    };
    ASTContext &AST = Ctx.getASTContext();
    RuleEdit E = makeEdit("", 35);
    unsigned Count = 0;
    for (const FunctionDecl *FD : editableFunctions(Ctx)) {
      Finder F;
      F.TraverseStmt(FD->getBody());
      for (const CXXForRangeStmt *S : F.Loops) {
        const VarDecl *V = S->getLoopVariable();
        if (!V || isa<DecompositionDecl>(V) ||
            !isExpensiveToCopy(V->getType(), AST) ||
            isMutatedIn(V, S->getBody(), AST))
          continue;
        RuleEdit Trial = E;
        if (!makeConstRef(Ctx, Trial, V))
          continue;
        E = std::move(Trial);
        ++Count;
      }
    }
    if (!Count)
      return;
    E.Description = llvm::formatv("range-for by const reference ({0} loop{1})",
                                  Count, Count == 1 ? "" : "s");
    Out.push_back(std::move(E));
  }
};

const Expr *skipTemporaries(const Expr *E) {
  while (true) {
    const Expr *Next = E->IgnoreParenImpCasts();
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(Next))
      Next = M->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(Next))
      Next = B->getSubExpr();
    else if (const auto *C = dyn_cast<CXXConstructExpr>(Next);
             C && C->getNumArgs() == 1 &&
             C->getConstructor()->isCopyOrMoveConstructor())
      Next = C->getArg(0);
    if (Next == E)
      return E;
    E = Next;
  }
}

bool isStdStringType(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  const auto *RD = T->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() && RD->getName() == "basic_string" &&
         RD->isInStdNamespace();
}

/// `s.substr(...)` on a std::string.
const CXXMemberCallExpr *asSubstr(const Expr *E) {
  const auto *Call = dyn_cast<CXXMemberCallExpr>(skipTemporaries(E));
  if (!Call || !Call->getMethodDecl() ||
      !Call->getMethodDecl()->getIdentifier() ||
      Call->getMethodDecl()->getName() != "substr" ||
      !isStdStringType(Call->getImplicitObjectArgument()->getType()))
    return nullptr;
  return Call;
}

class SubstrCompareRule : public Rule {
public:
  SubstrCompareRule()
      : Rule("substr-compare",
             "comparisons with s.substr(i, n) to s.compare(i, n, ...) "
             "(no temporary string)") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    struct Finder : RecursiveASTVisitor<Finder> {
      std::vector<const CXXOperatorCallExpr *> Ops;
      bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *E) {
        if ((E->getOperator() == OO_EqualEqual ||
             E->getOperator() == OO_ExclaimEqual) &&
            E->getNumArgs() == 2)
          Ops.push_back(E);
        return true;
      }
    };
    RuleEdit E = makeEdit("", 45);
    unsigned Count = 0;
    for (const FunctionDecl *FD : editableFunctions(Ctx)) {
      Finder F;
      F.TraverseStmt(FD->getBody());
      for (const CXXOperatorCallExpr *Op : F.Ops) {
        std::string Text = rewrite(Ctx, Op);
        auto R = Ctx.getFileRange(Op->getSourceRange());
        if (Text.empty() || !R)
          continue;
        RuleEdit Trial = E;
        if (!addReplacement(Trial, Ctx, R->first, R->second - R->first, Text))
          continue;
        E = std::move(Trial);
        ++Count;
      }
    }
    if (!Count)
      return;
    E.Description =
        llvm::formatv("substr comparison -> compare ({0} place{1})", Count,
                      Count == 1 ? "" : "s");
    Out.push_back(std::move(E));
  }

private:
  /// The text of \p E as written, or "" when it is not one piece of the
  /// main file.
  static std::string textOf(const RuleContext &Ctx, const Expr *E) {
    auto R = Ctx.getSpelledRange(E->getSourceRange());
    if (!R)
      return "";
    return Ctx.getText(R->first, R->second).str();
  }

  static std::string rewrite(const RuleContext &Ctx,
                             const CXXOperatorCallExpr *Op) {
    const Expr *L = Op->getArg(0), *R = Op->getArg(1);
    const CXXMemberCallExpr *Sub = asSubstr(L);
    const Expr *Other = R;
    if (!Sub) {
      Sub = asSubstr(R);
      Other = L;
    }
    if (!Sub || Sub->getNumArgs() < 1 || Sub->getNumArgs() > 2)
      return "";
    // The comparison must be std::string's own operator.
    const FunctionDecl *Callee = Op->getDirectCallee();
    if (!Callee || !Callee->isInStdNamespace())
      return "";
    std::string Object = textOf(Ctx, Sub->getImplicitObjectArgument());
    std::string Pos = textOf(Ctx, Sub->getArg(0));
    std::string Len = Sub->getNumArgs() == 2 && !isa<CXXDefaultArgExpr>(
                                                    Sub->getArg(1))
                          ? textOf(Ctx, Sub->getArg(1))
                          : "std::string::npos";
    if (Object.empty() || Pos.empty() || Len.empty())
      return "";
    std::string Rhs;
    if (const CXXMemberCallExpr *OtherSub = asSubstr(Other)) {
      std::string O = textOf(Ctx, OtherSub->getImplicitObjectArgument());
      std::string OPos = textOf(Ctx, OtherSub->getArg(0));
      std::string OLen =
          OtherSub->getNumArgs() == 2 &&
                  !isa<CXXDefaultArgExpr>(OtherSub->getArg(1))
              ? textOf(Ctx, OtherSub->getArg(1))
              : "std::string::npos";
      if (O.empty() || OPos.empty() || OLen.empty())
        return "";
      Rhs = O + ", " + OPos + ", " + OLen;
    } else {
      QualType T = Other->IgnoreParenImpCasts()->getType();
      if (!isStdStringType(T) && !T->isPointerType() && !T->isArrayType())
        return "";
      Rhs = textOf(Ctx, Other->IgnoreImpCasts());
      if (Rhs.empty())
        return "";
    }
    bool Arrow = isa<MemberExpr>(Sub->getCallee()->IgnoreParenImpCasts()) &&
                 cast<MemberExpr>(Sub->getCallee()->IgnoreParenImpCasts())
                     ->isArrow();
    return "(" + Object + (Arrow ? "->" : ".") + "compare(" + Pos + ", " +
           Len + ", " + Rhs + ")" +
           (Op->getOperator() == OO_EqualEqual ? " == 0" : " != 0") + ")";
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createConstRefParamRule() {
  return std::make_unique<ConstRefParamRule>();
}
std::unique_ptr<Rule> maxcode::createRangeForCopyRule() {
  return std::make_unique<RangeForCopyRule>();
}
std::unique_ptr<Rule> maxcode::createSubstrCompareRule() {
  return std::make_unique<SubstrCompareRule>();
}
