//===-- HoistLoopInvariant.cpp - size()/strlen() out of loop conditions ---===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `for (i = 0; i < strlen(s); ++i)` computes the length on every iteration;
// `v.size()` may be reloaded each time when the body writes memory. When
// the loop does not modify what the call reads, the value is computed once
// into a `const auto` before the loop.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;

namespace {

/// Calls in \p S to functions whose effects the rules cannot see: anything
/// but the standard library, builtins and the implicit member functions of
/// standard types.
bool callsUnknownCode(const Stmt *S) {
  struct Finder : RecursiveASTVisitor<Finder> {
    bool Found = false;
    bool VisitCallExpr(CallExpr *C) {
      const FunctionDecl *FD = C->getDirectCallee();
      if (!FD) {
        Found = true;
        return false;
      }
      if (FD->getBuiltinID() || FD->isInStdNamespace())
        return true;
      if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
        if (MD->getParent()->isInStdNamespace())
          return true;
      // C library functions declared in system headers.
      if (FD->getASTContext().getSourceManager().isInSystemHeader(
              FD->getLocation()) &&
          !FD->isCXXClassMember())
        return true;
      Found = true;
      return false;
    }
    bool VisitCXXConstructExpr(CXXConstructExpr *C) {
      if (!C->getConstructor()->getParent()->isInStdNamespace() &&
          !C->getConstructor()->isTrivial())
        Found = true;
      return !Found;
    }
  } F;
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Found;
}

/// True when \p S writes through a pointer or reference that is not a local
/// object of its own (it could alias anything).
bool writesThroughPointers(const Stmt *S) {
  bool Found = false;
  forEachStore(S, [&](const Expr *LHS) {
    if (const auto *U = dyn_cast<UnaryOperator>(LHS))
      Found |= U->getOpcode() == UO_Deref;
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(LHS))
      Found |= A->getBase()->IgnoreParenImpCasts()->getType()->isPointerType();
    if (const auto *D = dyn_cast<DeclRefExpr>(LHS))
      Found |= D->getDecl()->getType()->isReferenceType();
  });
  return Found;
}

/// True when every use of \p V in \p S only reads it: const member calls,
/// element reads through operator[]/at/front/back, array elements read, the
/// array passed as a pointer to const. ExprMutationAnalyzer counts any
/// non-const member call (a read through v[i]) as a change.
bool isOnlyReadIn(const VarDecl *V, const Stmt *S, ASTContext &AST) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *V;
    ASTContext &AST;
    bool Ok = true;
    Finder(const VarDecl *V, ASTContext &AST) : V(V), AST(AST) {}
    /// The value \p E designates is only read.
    bool isRead(const Expr *E) {
      const Stmt *P = parentStmt(AST, E);
      while (P && isa<ParenExpr>(P))
        P = parentStmt(AST, P);
      if (const auto *C = dyn_cast_or_null<ImplicitCastExpr>(P))
        return C->getCastKind() == CK_LValueToRValue;
      if (const auto *ME = dyn_cast_or_null<MemberExpr>(P))
        return ME->getType().isConstQualified() || isRead(ME);
      return false;
    }
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      if (D->getDecl() != V)
        return true;
      const Stmt *P = parentStmt(AST, D);
      while (P && (isa<ParenExpr>(P) ||
                   (isa<ImplicitCastExpr>(P) &&
                    cast<ImplicitCastExpr>(P)->getCastKind() == CK_NoOp)))
        P = parentStmt(AST, P);
      if (const auto *ME = dyn_cast_or_null<MemberExpr>(P)) {
        const auto *MD = dyn_cast<CXXMethodDecl>(ME->getMemberDecl());
        const auto *Call =
            dyn_cast_or_null<CXXMemberCallExpr>(parentStmt(AST, ME));
        if (!MD || !Call)
          return Ok = false;
        if (MD->isConst())
          return true;
        llvm::StringRef Name = MD->getIdentifier() ? MD->getName() : "";
        if ((Name == "at" || Name == "front" || Name == "back") && isRead(Call))
          return true;
        return Ok = false;
      }
      if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(P)) {
        if (Op->getOperator() == OO_Subscript && isRead(Op))
          return true;
        if (const auto *MD =
                dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee()))
          if (MD->isConst())
            return true;
        return Ok = false;
      }
      if (const auto *C = dyn_cast_or_null<ImplicitCastExpr>(P)) {
        if (C->getCastKind() == CK_LValueToRValue)
          return true;
        if (C->getCastKind() != CK_ArrayToPointerDecay)
          return Ok = false;
        const Stmt *Up = parentStmt(AST, C);
        if (const auto *AS = dyn_cast_or_null<ArraySubscriptExpr>(Up))
          return isRead(AS) || (Ok = false);
        if (const auto *Conv = dyn_cast_or_null<ImplicitCastExpr>(Up))
          if (Conv->getType()->isPointerType() &&
              Conv->getType()->getPointeeType().isConstQualified())
            return true;
        return Ok = false;
      }
      return Ok = false;
    }
  } F(V, AST);
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Ok;
}

/// A call whose value only depends on one variable: `v.size()`,
/// `s.length()`, `strlen(s)`. Returns the variable.
const VarDecl *invariantCallVar(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!MD || !MD->getIdentifier() || MC->getNumArgs() != 0 ||
        (MD->getName() != "size" && MD->getName() != "length") ||
        !MD->getParent()->isInStdNamespace())
      return nullptr;
    const auto *DRE = dyn_cast<DeclRefExpr>(
        MC->getImplicitObjectArgument()->IgnoreParenImpCasts());
    return DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  }
  if (const auto *C = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = C->getDirectCallee();
    if (!FD || !FD->getIdentifier() || FD->getName() != "strlen" ||
        C->getNumArgs() != 1)
      return nullptr;
    const auto *DRE =
        dyn_cast<DeclRefExpr>(C->getArg(0)->IgnoreParenImpCasts());
    return DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  }
  return nullptr;
}

/// Whether \p E (a side of a loop condition) is worth hoisting and safe:
/// it calls size/length/strlen, and its variables do not change in the loop.
bool isHoistable(const Expr *E, const Stmt *Loop, const Stmt *FuncBody,
                 const llvm::SmallPtrSetImpl<const VarDecl *> &LoopVars,
                 ASTContext &AST, bool &HasCall) {
  E = E->IgnoreParenImpCasts();
  if (const VarDecl *V = invariantCallVar(E)) {
    HasCall = true;
    if (LoopVars.count(V) || !isOnlyReadIn(V, Loop, AST) ||
        hasAliases(V, FuncBody))
      return false;
    // Globals and references may change through calls and pointers the
    // analysis does not follow.
    if (!V->isLocalVarDeclOrParm() || V->getType()->isReferenceType())
      return !callsUnknownCode(Loop) && !writesThroughPointers(Loop);
    return true;
  }
  if (isa<IntegerLiteral>(E))
    return true;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    return V && !LoopVars.count(V) && !isMutatedIn(V, Loop, AST) &&
           V->isLocalVarDeclOrParm() && !V->getType()->isReferenceType();
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    return (B->isAdditiveOp() || B->isMultiplicativeOp()) &&
           isHoistable(B->getLHS(), Loop, FuncBody, LoopVars, AST, HasCall) &&
           isHoistable(B->getRHS(), Loop, FuncBody, LoopVars, AST, HasCall);
  return false;
}

class HoistLoopInvariantRule : public Rule {
public:
  HoistLoopInvariantRule()
      : Rule("hoist-loop-invariant",
             "size()/length()/strlen() in loop conditions, on data the loop "
             "does not modify, computed once before the loop",
             "hoisted bound") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      RuleEdit E = makeEdit("", 45);
      std::vector<std::string> What;
      std::vector<unsigned> Lines;
      for (const Stmt *S : loopsIn(FD->getBody())) {
        const auto *For = dyn_cast<ForStmt>(S);
        if (!For || !For->getCond())
          continue;
        const auto *Cond =
            dyn_cast<BinaryOperator>(For->getCond()->IgnoreParenImpCasts());
        if (!Cond || !Cond->isComparisonOp())
          continue;
        // Variables the loop header changes.
        llvm::SmallPtrSet<const VarDecl *, 8> LoopVars;
        if (For->getInc())
          for (const VarDecl *V : referencedVars(For->getInc()))
            LoopVars.insert(V);
        if (const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit()))
          for (const Decl *D : Init->decls())
            if (const auto *V = dyn_cast<VarDecl>(D))
              LoopVars.insert(V);
        const Expr *Side = nullptr;
        for (const Expr *Candidate : {Cond->getRHS(), Cond->getLHS()}) {
          // A cast around the call (`i < (int)v.size()`) stays in place.
          Candidate = Candidate->IgnoreParenCasts();
          bool HasCall = false;
          if (isHoistable(Candidate, For, FD->getBody(), LoopVars, AST,
                          HasCall) &&
              HasCall) {
            Side = Candidate;
            break;
          }
        }
        if (!Side)
          continue;
        auto SideR = Ctx.getEditRange(Side->getSourceRange());
        auto ForR = statementRange(Ctx, For);
        if (!SideR || !ForR)
          continue;
        // Names stay distinct between the loops of one edit.
        std::string Name = Ctx.getFreshName(
            What.empty() ? std::string("Bound")
                         : "Bound" + std::to_string(What.size() + 1));
        std::string SideText = Ctx.getText(*SideR).str();
        std::string Decl = "const auto " + Name + " = " + SideText + ";";
        RuleEdit Trial = E;
        bool Ok;
        if (compoundParent(AST, For) && startsLine(Ctx, ForR->getBegin())) {
          Ok = insertText(Trial, Ctx, ForR->getBegin(), Decl + "\n");
        } else {
          // A loop that is the body of an if or another loop: a block
          // keeps the declaration its own.
          Ok = insertText(Trial, Ctx, ForR->getBegin(), "{\n" + Decl + "\n") &&
               insertText(Trial, Ctx, ForR->getEnd(), "\n}");
        }
        Ok = Ok && addReplacement(Trial, Ctx, *SideR, Name);
        if (!Ok)
          continue;
        E = std::move(Trial);
        What.push_back(SideText);
        Lines.push_back(Ctx.getUserLine(For->getBeginLoc()));
      }
      if (What.empty())
        continue;
      E.Description =
          "hoist " + What.front() +
          (What.size() > 1
               ? llvm::formatv(" and {0} more", What.size() - 1).str()
               : std::string()) +
          " out of loop conditions in " + describeFunction(FD) + " (" +
          describeLines(Lines) + ")";
      Out.push_back(std::move(E));
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createHoistLoopInvariantRule() {
  return std::make_unique<HoistLoopInvariantRule>();
}
