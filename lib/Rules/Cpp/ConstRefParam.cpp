//===-- ConstRefParam.cpp - By-value parameters to const references -------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A parameter of a type that is not trivially copyable (a vector, a string,
// a map) passed by value is copied on every call. `const T &` avoids the
// copy whenever the function only reads it, and the compiler is the judge of
// that: the rule makes every such parameter of the target `const &`, parses
// the edited file once, and keeps the parameters whose function still
// compiles (an error is blamed on the parameters of the full-expression it
// is in, or on every parameter of its function). Reading through members
// with a const overload (`v[i]`, `m.find(k)`, `v.begin()`) compiles; writing
// does not.
//
// What the compiler cannot see is aliasing: a function that also writes
// through a reference or pointer of the same type, or writes a global of
// that type, might change what the reference sees, so its parameters stay.
// A parameter moved from (`std::move(p)`) is passed by value on purpose.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "maxcode/Support/Debug.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TypeLoc.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/FormatVariadic.h"

#define DEBUG_TYPE "maxcode-rules"

using namespace maxcode;
using namespace clang;
using namespace clang::ast_matchers;

namespace {

/// True when every instantiation of the template \p FD belongs to has an
/// expensive type for parameter \p I (and there is one).
bool expensiveInEveryInstantiation(const FunctionDecl *FD, unsigned I,
                                   const ASTContext &AST) {
  std::vector<const FunctionDecl *> Specs = instantiationsOf(FD);
  return !Specs.empty() && llvm::all_of(Specs, [&](const FunctionDecl *S) {
    return I < S->getNumParams() &&
           isExpensiveToCopy(S->getParamDecl(I)->getType(), AST);
  });
}

/// True when \p FD is named other than as a callee (its address taken, a
/// pointer or std::function made of it): the new signature would not fit.
bool isNamedNotCalled(const FunctionDecl *FD, ASTContext &AST) {
  const FunctionDecl *Canon = FD->getCanonicalDecl();
  auto Ref = declRefExpr(to(functionDecl(equalsNode(Canon)))).bind("ref");
  for (const BoundNodes &N : match(findAll(Ref), AST)) {
    const auto *R = N.getNodeAs<DeclRefExpr>("ref");
    const Stmt *P = parentStmt(AST, R);
    while (P && isa<ImplicitCastExpr>(P) &&
           cast<ImplicitCastExpr>(P)->getCastKind() ==
               CK_FunctionToPointerDecay)
      P = parentStmt(AST, P);
    const auto *Call = dyn_cast_or_null<CallExpr>(P);
    if (!Call || Call->getCallee()->IgnoreParenImpCasts() != R)
      return true;
  }
  return false;
}

/// True when \p P is moved or forwarded from in \p FD.
bool isMovedFrom(const ParmVarDecl *P, const FunctionDecl *FD,
                 ASTContext &AST) {
  auto Move = callExpr(
      callee(functionDecl(hasAnyName("::std::move", "::std::forward"))),
      hasArgument(
          0, ignoringParenImpCasts(declRefExpr(to(varDecl(equalsNode(P)))))));
  if (!match(findAll(Move), *FD->getBody(), AST).empty())
    return true;
  // A constructor's member initializers too.
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD))
    for (const CXXCtorInitializer *I : Ctor->inits())
      if (I->getInit() && !match(findAll(Move), *I->getInit(), AST).empty())
        return true;
  return false;
}

/// True when \p FD may change, behind a reference to parameter \p P, the
/// object the caller passed: it writes through another reference or
/// pointer parameter of the same type, or writes a global of that type.
bool mayAlias(const FunctionDecl *FD, const ParmVarDecl *P, ASTContext &AST) {
  QualType T = P->getType().getCanonicalType().getUnqualifiedType();
  for (const ParmVarDecl *Other : FD->parameters()) {
    if (Other == P)
      continue;
    QualType O = Other->getType().getCanonicalType();
    if (!O->isReferenceType() && !O->isPointerType())
      continue;
    QualType Pointee = O->getPointeeType();
    if (Pointee.isConstQualified())
      continue;
    if (Pointee.getCanonicalType().getUnqualifiedType() == T ||
        Pointee->isVoidType())
      return true;
  }
  auto Global = declRefExpr(to(varDecl(hasGlobalStorage()).bind("g")));
  for (const BoundNodes &N : match(findAll(Global), *FD->getBody(), AST)) {
    const auto *G = N.getNodeAs<VarDecl>("g");
    if (G->getType().getCanonicalType().getUnqualifiedType() == T &&
        isMutatedIn(G, FD->getBody(), AST))
      return true;
  }
  return false;
}

/// The expressions of a body that name candidate parameters, with their
/// bytes and the parameters each names: where a compile error is blamed
/// (on the parameters of the smallest one holding it).
struct NamingExpr {
  unsigned Begin, End;
  llvm::SmallPtrSet<const ParmVarDecl *, 4> Params;
};

std::vector<NamingExpr>
namingExpressions(const RuleContext &Ctx, const Stmt *Body,
                  const llvm::SmallPtrSetImpl<const ParmVarDecl *> &Params) {
  ASTContext &AST = Ctx.getASTContext();
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<NamingExpr> Out;
  auto Ref = declRefExpr(to(parmVarDecl().bind("p"))).bind("ref");
  for (const BoundNodes &N : match(findAll(Ref), *Body, AST)) {
    const auto *P = N.getNodeAs<ParmVarDecl>("p");
    if (!Params.count(P))
      continue;
    // The reference and every expression around it, up to its statement.
    for (const Stmt *Cur = N.getNodeAs<DeclRefExpr>("ref");
         Cur && isa<Expr>(Cur); Cur = parentStmt(AST, Cur)) {
      SourceLocation B = SM.getExpansionLoc(Cur->getBeginLoc());
      SourceLocation E = SM.getExpansionLoc(Cur->getEndLoc());
      if (!SM.isWrittenInMainFile(B) || !SM.isWrittenInMainFile(E))
        break;
      unsigned BO = SM.getFileOffset(B), EO = SM.getFileOffset(E) + 1;
      auto It = llvm::find_if(Out, [&](const NamingExpr &X) {
        return X.Begin == BO && X.End == EO;
      });
      if (It == Out.end()) {
        Out.push_back({BO, EO, {}});
        It = std::prev(Out.end());
      }
      It->Params.insert(P);
    }
  }
  return Out;
}

/// A function and the parameters the rule would change in it.
struct Candidate {
  const FunctionDecl *FD;
  std::vector<const ParmVarDecl *> Params;
  RuleEdit Edit;
  unsigned Begin = 0, End = 0; ///< The definition's bytes.
};

class ConstRefParamRule : public Rule {
public:
  ConstRefParamRule()
      : Rule("const-ref-param",
             "by-value parameters of types that are not trivially copyable to "
             "const references, where the function still compiles",
             "const &") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    std::vector<Candidate> Cands = candidates(Ctx);
    if (Cands.empty())
      return;
    // Clang decides: one parse of the file with every candidate changed.
    tooling::Replacements All;
    for (const Candidate &C : Cands)
      if (!mergeReplacements(All, C.Edit.Replaces))
        return;
    Blame B;
    if (!blameErrors(Ctx, Cands, All, B))
      return;
    for (Candidate &C : Cands)
      if (std::optional<RuleEdit> E = editFor(Ctx, C, B))
        Out.push_back(std::move(*E));
  }

private:
  /// What the parse with every candidate changed blames: parameters, or
  /// whole functions when an error cannot be pinned on one.
  struct Blame {
    llvm::SmallPtrSet<const ParmVarDecl *, 8> Params;
    llvm::SmallPtrSet<const FunctionDecl *, 8> Functions;
  };

  /// Every function and the lambdas inside it whose parameters may change.
  std::vector<Candidate> candidates(const RuleContext &Ctx) const {
    ASTContext &AST = Ctx.getASTContext();
    std::vector<const FunctionDecl *> Functions;
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      Functions.push_back(FD);
      // And the lambdas inside it.
      auto Lambda = lambdaExpr().bind("l");
      for (const BoundNodes &N : match(findAll(Lambda), *FD->getBody(), AST))
        Functions.push_back(N.getNodeAs<LambdaExpr>("l")->getCallOperator());
    }
    std::vector<Candidate> Cands;
    for (const FunctionDecl *FD : Functions)
      if (std::optional<Candidate> C = candidateFor(Ctx, FD))
        Cands.push_back(std::move(*C));
    return Cands;
  }

  /// Parses the file with \p All applied and fills \p B with what its
  /// errors blame; false when nothing can be kept.
  bool blameErrors(const RuleContext &Ctx, llvm::ArrayRef<Candidate> Cands,
                   const tooling::Replacements &All, Blame &B) const {
    llvm::Expected<std::string> NewText =
        tooling::applyAllReplacements(Ctx.getCode(), All);
    if (!NewText) {
      llvm::Error E = NewText.takeError();
      MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": " << getId()
                                 << ": no edit: the edits do not apply: "
                                 << llvm::toString(std::move(E)) << "\n");
      llvm::consumeError(std::move(E));
      return false;
    }
    llvm::Expected<std::vector<unsigned>> Errors = Ctx.findErrorsIn(*NewText);
    if (!Errors) {
      llvm::Error E = Errors.takeError();
      MAXCODE_DEBUG(llvm::dbgs()
                    << DEBUG_TYPE << ": " << getId()
                    << ": no edit: " << llvm::toString(std::move(E)) << "\n");
      llvm::consumeError(std::move(E));
      return false;
    }
    for (unsigned NewOffset : *Errors) {
      if (NewOffset == UINT_MAX) // Somewhere unknown: keep nothing.
        return false;
      blameOne(Ctx, Cands, originalOffset(All, NewOffset), B);
    }
    return true;
  }

  /// Blames what holds the error at \p Offset of the original text.
  void blameOne(const RuleContext &Ctx, llvm::ArrayRef<Candidate> Cands,
                unsigned Offset, Blame &B) const {
    // The innermost candidate holding the error (a lambda before the
    // function around it).
    const Candidate *In = nullptr;
    for (const Candidate &C : Cands)
      if (Offset >= C.Begin && Offset < C.End &&
          (!In || C.End - C.Begin < In->End - In->Begin))
        In = &C;
    if (!In) {
      // Outside every candidate: a declaration's mismatch elsewhere.
      for (const Candidate &C : Cands)
        B.Functions.insert(C.FD);
      return;
    }
    llvm::SmallPtrSet<const ParmVarDecl *, 4> Params(In->Params.begin(),
                                                     In->Params.end());
    const NamingExpr *Best = nullptr;
    std::vector<NamingExpr> Exprs =
        namingExpressions(Ctx, In->FD->getBody(), Params);
    for (const NamingExpr &F : Exprs)
      if (Offset >= F.Begin && Offset < F.End &&
          (!Best || F.End - F.Begin < Best->End - Best->Begin))
        Best = &F;
    if (Best)
      B.Params.insert(Best->Params.begin(), Best->Params.end());
    else
      B.Functions.insert(In->FD);
  }

  /// The edit of \p C's parameters that \p B does not blame, if any.
  std::optional<RuleEdit> editFor(const RuleContext &Ctx, const Candidate &C,
                                  const Blame &B) const {
    if (B.Functions.count(C.FD))
      return std::nullopt;
    std::vector<const ParmVarDecl *> Kept;
    for (const ParmVarDecl *P : C.Params)
      if (!B.Params.count(P))
        Kept.push_back(P);
    if (Kept.empty())
      return std::nullopt;
    RuleEdit E = makeEdit("", 40);
    if (Kept.size() != C.Params.size()) {
      bool Ok = true;
      for (const ParmVarDecl *P : Kept)
        Ok &= makeConstRef(Ctx, E, C.FD, P);
      if (!Ok)
        return std::nullopt;
    } else {
      E.Replaces = C.Edit.Replaces;
    }
    std::string Names;
    for (const ParmVarDecl *P : Kept)
      Names += (Names.empty() ? "" : ", ") + P->getNameAsString();
    E.Description = llvm::formatv(
        "pass {0} of {1} by const reference (line {2})", Names,
        describeFunction(C.FD), Ctx.getUserLine(C.FD->getLocation()));
    return E;
  }

  std::optional<Candidate> candidateFor(const RuleContext &Ctx,
                                        const FunctionDecl *FD) const {
    ASTContext &AST = Ctx.getASTContext();
    if (FD->isMain() || !FD->getBody() || FD->isDeleted() ||
        FD->isDefaulted() || FD->isVariadic())
      return std::nullopt;
    if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
      // Overriders must keep the signature; copy-and-swap assignments take
      // their argument by value on purpose.
      if (MD->isVirtual() || MD->isCopyAssignmentOperator() ||
          MD->isMoveAssignmentOperator())
        return std::nullopt;
      if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(MD))
        if (Ctor->isCopyOrMoveConstructor())
          return std::nullopt;
    }
    bool IsLambda = isa<CXXMethodDecl>(FD) &&
                    cast<CXXMethodDecl>(FD)->getParent()->isLambda();
    if (!IsLambda && isNamedNotCalled(FD, AST))
      return std::nullopt;
    Candidate C{FD, {}, makeEdit("", 40)};
    auto R = Ctx.getEditRange(FD->getSourceRange());
    if (!R)
      return std::nullopt;
    const SourceManager &SM = Ctx.getSourceManager();
    C.Begin = SM.getFileOffset(R->getBegin());
    C.End = SM.getFileOffset(R->getEnd());
    for (unsigned I = 0; I < FD->getNumParams(); ++I) {
      const ParmVarDecl *P = FD->getParamDecl(I);
      QualType T = P->getType();
      if (!P->getIdentifier() || T->isReferenceType() || T->isPointerType())
        continue;
      bool Expensive = T->isDependentType()
                           ? expensiveInEveryInstantiation(FD, I, AST)
                           : isExpensiveToCopy(T, AST);
      if (!Expensive || isMovedFrom(P, FD, AST) || mayAlias(FD, P, AST))
        continue;
      RuleEdit Trial = C.Edit;
      if (!makeConstRef(Ctx, Trial, FD, P))
        continue;
      C.Edit = std::move(Trial);
      C.Params.push_back(P);
    }
    if (C.Params.empty())
      return std::nullopt;
    return C;
  }

  /// Makes parameter \p P of \p FD, and the same parameter of every other
  /// declaration of \p FD, `const T &`.
  static bool makeConstRef(const RuleContext &Ctx, RuleEdit &E,
                           const FunctionDecl *FD, const ParmVarDecl *P) {
    unsigned Index = P->getFunctionScopeIndex();
    for (const FunctionDecl *D : FD->redecls()) {
      if (Index >= D->getNumParams())
        return false;
      if (!makeParamConstRef(Ctx, E, D->getParamDecl(Index)))
        return false;
    }
    return true;
  }

  /// `T name` -> `const T &name` for one declaration of a parameter.
  static bool makeParamConstRef(const RuleContext &Ctx, RuleEdit &E,
                                const ParmVarDecl *P) {
    TypeSourceInfo *TSI = P->getTypeSourceInfo();
    if (!TSI)
      return false;
    TypeLoc TL = TSI->getTypeLoc();
    // Only `T name` and `T`: arrays, functions and auto keep their spelling.
    if (TL.getAs<ArrayTypeLoc>() || TL.getAs<FunctionTypeLoc>() ||
        P->getType()->getContainedAutoType())
      return false;
    auto TypeR = Ctx.getEditRange(TL.getSourceRange());
    if (!TypeR)
      return false;
    const SourceManager &SM = Ctx.getSourceManager();
    const LangOptions &LO = Ctx.getASTContext().getLangOpts();
    // What follows the type must be the name (or the end of an unnamed
    // parameter).
    std::optional<Token> Next = Lexer::findNextToken(TL.getEndLoc(), SM, LO);
    if (!Next)
      return false;
    bool Named = P->getIdentifier() && P->getLocation().isValid() &&
                 P->getLocation() != TL.getBeginLoc();
    if (Named && Next->getLocation() != P->getLocation())
      return false;
    if (!Named && !Next->isOneOf(tok::comma, tok::r_paren, tok::equal))
      return false;
    if (!P->getType().isLocalConstQualified() &&
        !P->getType().getNonReferenceType().isConstQualified() &&
        !insertText(E, Ctx, TypeR->getBegin(), "const "))
      return false;
    if (Named)
      return insertText(E, Ctx, P->getLocation(), "&");
    return insertText(E, Ctx, TypeR->getEnd(), " &");
  }

  /// The offset in the original text of \p NewOffset in the text \p All
  /// (insertions only) made.
  static unsigned originalOffset(const tooling::Replacements &All,
                                 unsigned NewOffset) {
    unsigned Shift = 0;
    for (const tooling::Replacement &R : All) {
      unsigned At = R.getOffset() + Shift;
      if (At > NewOffset)
        break;
      unsigned Grew = R.getReplacementText().size() - R.getLength();
      if (NewOffset < At + R.getReplacementText().size())
        return R.getOffset();
      Shift += Grew;
    }
    return NewOffset - Shift;
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createConstRefParamRule() {
  return std::make_unique<ConstRefParamRule>();
}
