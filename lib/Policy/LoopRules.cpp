//===-- LoopRules.cpp - Rules about loops ---------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
//   hoist-loop-invariant     size()/length()/strlen() in a loop condition, on
//                            something the loop does not modify, computed
//                            once before the loop.
//   reserve-before-push-back v.reserve(...) before a counted loop that
//                            push_backs into v once per iteration.
//   loop-unroll-pragma       `#pragma GCC unroll N` (or Clang's) before the
//                            innermost loops of the target.
//
//===----------------------------------------------------------------------===//

#include "Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;

namespace {

struct LoopFinder : RecursiveASTVisitor<LoopFinder> {
  std::vector<const Stmt *> Loops;
  bool VisitForStmt(ForStmt *S) {
    Loops.push_back(S);
    return true;
  }
  bool VisitWhileStmt(WhileStmt *S) {
    Loops.push_back(S);
    return true;
  }
  bool VisitDoStmt(DoStmt *S) {
    Loops.push_back(S);
    return true;
  }
  bool VisitCXXForRangeStmt(CXXForRangeStmt *S) {
    Loops.push_back(S);
    return true;
  }
};

std::vector<const Stmt *> loopsIn(const Stmt *S) {
  LoopFinder F;
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Loops;
}

bool isLoop(const Stmt *S) {
  return isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S) ||
         isa<CXXForRangeStmt>(S);
}

/// The byte range a statement occupies in the main file, through its
/// semicolon.
std::optional<std::pair<unsigned, unsigned>>
statementRange(const RuleContext &Ctx, const Stmt *S) {
  return statementFileRange(Ctx, S, S);
}

/// The statement's parent, when it is a compound statement.
const CompoundStmt *compoundParent(ASTContext &AST, const Stmt *S) {
  DynTypedNodeList Parents = AST.getParents(*S);
  if (Parents.size() != 1)
    return nullptr;
  return Parents[0].get<CompoundStmt>();
}

/// The whitespace that starts the line holding \p Offset.
std::string indentAt(llvm::StringRef Code, unsigned Offset) {
  size_t LineBegin = Code.rfind('\n', Offset);
  LineBegin = LineBegin == llvm::StringRef::npos ? 0 : LineBegin + 1;
  llvm::StringRef Line = Code.slice(LineBegin, Offset);
  size_t N = Line.find_first_not_of(" \t");
  return Line.take_front(N == llvm::StringRef::npos ? Line.size() : N).str();
}

/// True when only whitespace precedes \p Offset on its line.
bool startsLine(llvm::StringRef Code, unsigned Offset) {
  size_t LineBegin = Code.rfind('\n', Offset);
  LineBegin = LineBegin == llvm::StringRef::npos ? 0 : LineBegin + 1;
  return Code.slice(LineBegin, Offset).trim().empty();
}

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
      SourceLocation L = FD->getLocation();
      if (FD->getASTContext().getSourceManager().isInSystemHeader(L) &&
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
  struct Finder : RecursiveASTVisitor<Finder> {
    bool Found = false;
    void check(const Expr *LHS) {
      LHS = LHS->IgnoreParenImpCasts();
      if (const auto *U = dyn_cast<UnaryOperator>(LHS))
        if (U->getOpcode() == UO_Deref)
          Found = true;
      if (const auto *A = dyn_cast<ArraySubscriptExpr>(LHS))
        if (A->getBase()->IgnoreParenImpCasts()->getType()->isPointerType())
          Found = true;
      if (const auto *D = dyn_cast<DeclRefExpr>(LHS))
        if (D->getDecl()->getType()->isReferenceType())
          Found = true;
    }
    bool VisitBinaryOperator(BinaryOperator *B) {
      if (B->isAssignmentOp())
        check(B->getLHS());
      return true;
    }
    bool VisitCompoundAssignOperator(CompoundAssignOperator *B) {
      check(B->getLHS());
      return true;
    }
    bool VisitUnaryOperator(UnaryOperator *U) {
      if (U->isIncrementDecrementOp())
        check(U->getSubExpr());
      return true;
    }
  } F;
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Found;
}

/// True when \p V's address or a non-const reference to it is taken
/// anywhere in \p Scope (an alias could change it behind the analysis).
bool hasAliases(const VarDecl *V, const Stmt *Scope, ASTContext &AST) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *V;
    ASTContext &AST;
    bool Found = false;
    Finder(const VarDecl *V, ASTContext &AST) : V(V), AST(AST) {}
    bool VisitLambdaExpr(LambdaExpr *L) {
      for (const LambdaCapture &C : L->captures())
        if (C.capturesVariable() && C.getCapturedVar() == V &&
            C.getCaptureKind() == LCK_ByRef)
          Found = true;
      if (L->getCaptureDefault() == LCD_ByRef)
        Found = true;
      return true;
    }
    bool VisitVarDecl(VarDecl *D) {
      if (!D->getType()->isReferenceType() && !D->getType()->isPointerType())
        return true;
      if (D->getType()->isReferenceType() &&
          D->getType().getNonReferenceType().isConstQualified())
        return true;
      if (const Expr *Init = D->getInit())
        for (const VarDecl *R : referencedVars(Init))
          if (R == V)
            Found = true;
      return true;
    }
    bool VisitUnaryOperator(UnaryOperator *U) {
      if (U->getOpcode() == UO_AddrOf)
        if (const auto *D =
                dyn_cast<DeclRefExpr>(U->getSubExpr()->IgnoreParenImpCasts()))
          if (D->getDecl() == V)
            Found = true;
      return true;
    }
  } F(V, AST);
  F.TraverseStmt(const_cast<Stmt *>(Scope));
  return F.Found;
}

/// True when every use of \p V in \p S only reads it: const member calls,
/// element reads through operator[]/at/front/back, array elements read,
/// the array passed as a pointer to const. ExprMutationAnalyzer counts any
/// non-const member call (a read through v[i]) as a change.
bool isOnlyReadIn(const VarDecl *V, const Stmt *S, ASTContext &AST) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *V;
    ASTContext &AST;
    bool Ok = true;
    Finder(const VarDecl *V, ASTContext &AST) : V(V), AST(AST) {}
    const Stmt *parent(const Stmt *X) {
      DynTypedNodeList Ps = AST.getParents(*X);
      return Ps.size() == 1 ? Ps[0].get<Stmt>() : nullptr;
    }
    /// The value \p E designates is only read.
    bool isRead(const Expr *E) {
      const Stmt *P = parent(E);
      while (P && isa<ParenExpr>(P)) {
        E = cast<Expr>(P);
        P = parent(P);
      }
      if (const auto *C = dyn_cast_or_null<ImplicitCastExpr>(P))
        return C->getCastKind() == CK_LValueToRValue;
      if (const auto *ME = dyn_cast_or_null<MemberExpr>(P))
        return ME->getType().isConstQualified() || isRead(ME);
      return false;
    }
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      if (D->getDecl() != V)
        return true;
      const Stmt *P = parent(D);
      // Parentheses, and the qualification conversion of a const call.
      while (P && (isa<ParenExpr>(P) ||
                   (isa<ImplicitCastExpr>(P) &&
                    cast<ImplicitCastExpr>(P)->getCastKind() == CK_NoOp)))
        P = parent(P);
      // A member call: const, or an element read.
      if (const auto *ME = dyn_cast_or_null<MemberExpr>(P)) {
        const auto *MD = dyn_cast<CXXMethodDecl>(ME->getMemberDecl());
        const auto *Call =
            dyn_cast_or_null<CXXMemberCallExpr>(parent(ME));
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
      // An array: decays to a pointer that is subscripted and read, or
      // passed where a pointer to const is expected.
      if (const auto *C = dyn_cast_or_null<ImplicitCastExpr>(P)) {
        if (C->getCastKind() == CK_LValueToRValue)
          return true;
        if (C->getCastKind() != CK_ArrayToPointerDecay)
          return Ok = false;
        const Stmt *Up = parent(C);
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
/// it calls size/length/strlen, its variables do not change in the loop.
bool isHoistable(const Expr *E, const Stmt *Loop, const Stmt *FuncBody,
                 const llvm::SmallPtrSetImpl<const VarDecl *> &LoopVars,
                 ASTContext &AST, bool &HasCall) {
  E = E->IgnoreParenImpCasts();
  if (const VarDecl *V = invariantCallVar(E)) {
    HasCall = true;
    if (LoopVars.count(V) || !isOnlyReadIn(V, Loop, AST) ||
        hasAliases(V, FuncBody, AST))
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
             "does not modify, computed once before the loop") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    llvm::StringRef Code = Ctx.getCode();
    RuleEdit E = makeEdit("", 45);
    std::vector<std::string> What;
    for (const FunctionDecl *FD : editableFunctions(Ctx)) {
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
        auto SideRange = Ctx.getSpelledRange(Side->getSourceRange());
        auto ForRange = statementRange(Ctx, For);
        if (!SideRange || !ForRange ||
            ForRange->first < Ctx.getEditBegin() ||
            ForRange->second > Ctx.getEditEnd())
          continue;
        // Names stay distinct between the loops of one edit.
        std::string Name = Ctx.getFreshName(
            What.empty() ? std::string("Bound")
                         : "Bound" + std::to_string(What.size() + 1));
        std::string SideText =
            Ctx.getText(SideRange->first, SideRange->second).str();
        std::string Decl = "const auto " + Name + " = " + SideText + ";";
        RuleEdit Trial = E;
        bool Ok;
        if (compoundParent(AST, For) && startsLine(Code, ForRange->first)) {
          Ok = addReplacement(Trial, Ctx, ForRange->first, 0,
                              Decl + "\n" + indentAt(Code, ForRange->first));
        } else {
          Ok = addReplacement(Trial, Ctx, ForRange->first, 0,
                              "{ " + Decl + " ") &&
               addReplacement(Trial, Ctx, ForRange->second, 0, " }");
        }
        Ok = Ok && addReplacement(Trial, Ctx, SideRange->first,
                                  SideRange->second - SideRange->first, Name);
        if (!Ok)
          continue;
        E = std::move(Trial);
        What.push_back(SideText);
      }
    }
    if (What.empty())
      return;
    E.Description = "hoist " + What.front() +
                    (What.size() > 1
                         ? llvm::formatv(" and {0} more", What.size() - 1).str()
                         : std::string()) +
                    " out of loop conditions";
    Out.push_back(std::move(E));
  }
};

/// `for (int i = A; i < B; ++i)` with A and B loop-invariant: the trip
/// count's text, `(B) - (A)`.
std::optional<std::string> tripCount(const RuleContext &Ctx, const ForStmt *F,
                                     ASTContext &AST) {
  const auto *Init = dyn_cast_or_null<DeclStmt>(F->getInit());
  if (!Init || !Init->isSingleDecl())
    return std::nullopt;
  const auto *I = dyn_cast<VarDecl>(Init->getSingleDecl());
  if (!I || !I->getInit() || !I->getType()->isIntegerType())
    return std::nullopt;
  const auto *Cond =
      dyn_cast_or_null<BinaryOperator>(F->getCond()->IgnoreParenImpCasts());
  if (!Cond || (Cond->getOpcode() != BO_LT && Cond->getOpcode() != BO_LE))
    return std::nullopt;
  const auto *LHS = dyn_cast<DeclRefExpr>(Cond->getLHS()->IgnoreParenImpCasts());
  if (!LHS || LHS->getDecl() != I)
    return std::nullopt;
  const Expr *Inc = F->getInc() ? F->getInc()->IgnoreParenImpCasts() : nullptr;
  const auto *U = dyn_cast_or_null<UnaryOperator>(Inc);
  if (!U || !U->isIncrementOp())
    return std::nullopt;
  const Expr *Bound = Cond->getRHS();
  if (!isSimpleSideEffectFree(Bound, AST) ||
      !isSimpleSideEffectFree(I->getInit(), AST))
    return std::nullopt;
  for (const VarDecl *V : referencedVars(Bound))
    if (V == I || isMutatedIn(V, F->getBody(), AST))
      return std::nullopt;
  auto B = Ctx.getSpelledRange(Bound->getSourceRange());
  auto A = Ctx.getSpelledRange(I->getInit()->getSourceRange());
  if (!A || !B)
    return std::nullopt;
  std::string Count = "(" + Ctx.getText(B->first, B->second).str() + ") - (" +
                      Ctx.getText(A->first, A->second).str() + ")";
  if (Cond->getOpcode() == BO_LE)
    Count += " + 1";
  return Count;
}

class ReserveBeforePushBackRule : public Rule {
public:
  ReserveBeforePushBackRule()
      : Rule("reserve-before-push-back",
             "reserve() before a counted loop that appends to a vector once "
             "per iteration") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    llvm::StringRef Code = Ctx.getCode();
    RuleEdit E = makeEdit("", 25);
    unsigned Count = 0;
    for (const FunctionDecl *FD : editableFunctions(Ctx)) {
      for (const Stmt *S : loopsIn(FD->getBody())) {
        const auto *For = dyn_cast<ForStmt>(S);
        if (!For || !compoundParent(AST, For))
          continue;
        std::optional<std::string> Trip = tripCount(Ctx, For, AST);
        if (!Trip)
          continue;
        // One push_back or emplace_back, unconditional, at the top of the
        // body, into a local vector used for nothing else in the loop.
        const auto *Body = dyn_cast<CompoundStmt>(For->getBody());
        const Stmt *Single = Body ? nullptr : For->getBody();
        std::vector<const Stmt *> Top;
        if (Body)
          Top.assign(Body->body_begin(), Body->body_end());
        else
          Top.push_back(Single);
        const VarDecl *Vec = nullptr;
        unsigned Appends = 0;
        for (const Stmt *T : Top) {
          const auto *TE = dyn_cast_or_null<Expr>(T);
          const auto *MC =
              TE ? dyn_cast<CXXMemberCallExpr>(TE->IgnoreImplicit()) : nullptr;
          if (!MC)
            continue;
          const CXXMethodDecl *MD = MC->getMethodDecl();
          if (!MD || !MD->getIdentifier() ||
              (MD->getName() != "push_back" && MD->getName() != "emplace_back"))
            continue;
          const auto *RD = MD->getParent();
          if (!RD->getIdentifier() || RD->getName() != "vector" ||
              !RD->isInStdNamespace())
            continue;
          const auto *DRE = dyn_cast<DeclRefExpr>(
              MC->getImplicitObjectArgument()->IgnoreParenImpCasts());
          const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
          if (!V || !V->isLocalVarDecl() || V->getType()->isReferenceType())
            continue;
          if (Vec && Vec != V)
            continue;
          Vec = V;
          ++Appends;
        }
        if (!Vec || Appends != 1)
          continue;
        // Any other use of the vector in the loop (in a nested loop, an
        // inner if) makes the count unsure.
        unsigned Uses = 0;
        struct Counter : RecursiveASTVisitor<Counter> {
          const VarDecl *V;
          unsigned &N;
          Counter(const VarDecl *V, unsigned &N) : V(V), N(N) {}
          bool VisitDeclRefExpr(DeclRefExpr *D) {
            N += D->getDecl() == V;
            return true;
          }
        } C(Vec, Uses);
        C.TraverseStmt(const_cast<Stmt *>(For->getBody()));
        if (Uses != 1)
          continue;
        auto ForRange = statementRange(Ctx, For);
        if (!ForRange || !startsLine(Code, ForRange->first) ||
            ForRange->first < Ctx.getEditBegin() ||
            ForRange->second > Ctx.getEditEnd())
          continue;
        std::string Name = Vec->getNameAsString();
        std::string Text = "if (" + *Trip + " > 0)\n" +
                           indentAt(Code, ForRange->first) + "  " + Name +
                           ".reserve(" + Name + ".size() + (" + *Trip +
                           "));\n" + indentAt(Code, ForRange->first);
        RuleEdit Trial = E;
        if (!addReplacement(Trial, Ctx, ForRange->first, 0, Text))
          continue;
        E = std::move(Trial);
        ++Count;
      }
    }
    if (!Count)
      return;
    E.Description = llvm::formatv("reserve before {0} push_back loop{1}",
                                  Count, Count == 1 ? "" : "s");
    Out.push_back(std::move(E));
  }
};

class LoopUnrollPragmaRule : public Rule {
public:
  LoopUnrollPragmaRule()
      : Rule("loop-unroll-pragma",
             "unroll pragmas (4 or 8) on the innermost loops of the target") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    if (Ctx.isCuda())
      return; // cuda-unroll handles device code.
    const FunctionDecl *FD = Ctx.getTargetDecl();
    if (!FD || !FD->getBody())
      return;
    ASTContext &AST = Ctx.getASTContext();
    llvm::StringRef Code = Ctx.getCode();
    std::vector<std::pair<unsigned, const Stmt *>> Places;
    for (const Stmt *S : loopsIn(FD->getBody())) {
      if (isa<CXXForRangeStmt>(S) || isa<DoStmt>(S))
        continue;
      // Innermost only.
      const Stmt *Body = isa<ForStmt>(S) ? cast<ForStmt>(S)->getBody()
                                         : cast<WhileStmt>(S)->getBody();
      if (!loopsIn(Body).empty())
        continue;
      auto R = statementRange(Ctx, S);
      if (!R || !compoundParent(AST, S) || !startsLine(Code, R->first) ||
          !Ctx.isInTarget(SourceRange(
              Ctx.getSourceManager().getExpansionRange(S->getBeginLoc())
                  .getBegin())))
        continue;
      // Already annotated?
      size_t PrevLine = Code.rfind('\n', R->first);
      if (PrevLine != llvm::StringRef::npos) {
        size_t PrevBegin = Code.rfind('\n', PrevLine ? PrevLine - 1 : 0);
        PrevBegin = PrevBegin == llvm::StringRef::npos ? 0 : PrevBegin + 1;
        if (Code.slice(PrevBegin, PrevLine).trim().starts_with("#pragma"))
          continue;
      }
      Places.push_back({R->first, S});
    }
    if (Places.empty())
      return;
    for (unsigned Factor : {4u, 8u}) {
      RuleEdit E = makeEdit("", Factor == 4 ? 16 : 15);
      E.Group = "loop-unroll-pragma";
      for (const auto &[Offset, S] : Places) {
        std::string Pragma = Ctx.getOptions().CompilerIsGCC
                                 ? "#pragma GCC unroll " + std::to_string(Factor)
                                 : "#pragma unroll " + std::to_string(Factor);
        if (!addReplacement(E, Ctx, Offset, 0,
                            Pragma + "\n" + indentAt(Code, Offset)))
          return;
      }
      E.Description = llvm::formatv("unroll {0} innermost loop{1} by {2}",
                                    Places.size(),
                                    Places.size() == 1 ? "" : "s", Factor);
      Out.push_back(std::move(E));
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createHoistLoopInvariantRule() {
  return std::make_unique<HoistLoopInvariantRule>();
}
std::unique_ptr<Rule> maxcode::createReserveBeforePushBackRule() {
  return std::make_unique<ReserveBeforePushBackRule>();
}
std::unique_ptr<Rule> maxcode::createLoopUnrollPragmaRule() {
  return std::make_unique<LoopUnrollPragmaRule>();
}
