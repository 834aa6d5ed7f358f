//===-- NoAutomaticMove.cpp - const locals that return by copy ------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// clang-tidy's performance-no-automatic-move, with the fix it leaves to the
// reader: `const std::string S = ...; return S;` copies S into the result
// when the return is not elided (NRVO is the compiler's choice: it may not
// apply where different paths return different objects), because a const
// object cannot be moved from. Without the `const` the return moves.
//
// Removing `const` keeps the meaning when nothing could notice the object
// is now modifiable. It never was modified (it was const); what can change
// is which overload an lvalue of it selects, since `T &` overloads now
// bind it. So every use of the variable must be one where that cannot
// happen: the `return S;` itself, an argument to a `const &` parameter of a
// function none of whose overloads (as lookup finds them from its
// declaration and its arguments' namespaces) takes a non-const lvalue
// reference there, or the object of a `const` member with no non-const
// overload. Anything else (a range-for, a lambda capture, `s[i]`, `&s`)
// keeps the `const`.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/TypeLoc.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;
using namespace clang::ast_matchers;

namespace {

/// True when the class has a conversion function that is not const: a
/// conversion of the variable could choose it once the variable is not
/// const.
bool hasNonConstConversion(const CXXRecordDecl *RD) {
  for (const NamedDecl *D : RD->getVisibleConversionFunctions()) {
    const auto *F = dyn_cast_or_null<CXXMethodDecl>(
        D->getUnderlyingDecl()->getAsFunction());
    if (!F || !F->isConst())
      return true;
  }
  return false;
}

/// True when candidate \p D of a call, receiving a non-const lvalue as its
/// parameter \p Index where it received a const one, could now be chosen
/// over the function that was: it takes `T &` there, or is a template that
/// deduces a non-const reference (`U &`, `U &&`).
bool couldPreferNonConst(const NamedDecl *D, unsigned Index) {
  const FunctionDecl *F = D->getUnderlyingDecl()->getAsFunction();
  return !F || paramTakesNonConstLvalue(F, Index);
}

/// Adds namespace \p DC to \p Out with the namespaces lookup in it also
/// sees: the inline namespaces in it (std::__cxx11 in std) and, for an
/// inline one, the namespace around it.
void addNamespace(const DeclContext *DC,
                  llvm::SmallPtrSetImpl<const DeclContext *> &Out) {
  DC = DC->getPrimaryContext();
  if (!Out.insert(DC).second)
    return;
  if (const auto *NS = dyn_cast<NamespaceDecl>(DC); NS && NS->isInline())
    addNamespace(NS->getParent(), Out);
  llvm::SmallVector<DeclContext *, 4> Parts;
  const_cast<DeclContext *>(DC)->collectAllContexts(Parts);
  for (const DeclContext *Part : Parts)
    for (const Decl *D : Part->decls())
      if (const auto *Child = dyn_cast<NamespaceDecl>(D);
          Child && Child->isInline())
        addNamespace(Child, Out);
}

/// Adds the namespaces whose functions a call with an argument of type \p T
/// finds by argument-dependent lookup: its class's, and its template
/// arguments' classes' (std::string's is std).
void addAssociatedNamespaces(QualType T,
                             llvm::SmallPtrSetImpl<const DeclContext *> &Out) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD)
    return;
  addNamespace(RD->getEnclosingNamespaceContext(), Out);
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD))
    for (const TemplateArgument &A : Spec->getTemplateArgs().asArray())
      if (A.getKind() == TemplateArgument::Type)
        if (const auto *Arg = A.getAsType()->getAsCXXRecordDecl())
          addNamespace(Arg->getEnclosingNamespaceContext(), Out);
}

/// The namespaces an unqualified call in a function may find functions in,
/// besides its arguments' and its callee's own: the file's, and those
/// using-directives name in the file, in the namespaces around the function
/// and in its body.
using LookupScopes = llvm::SmallPtrSet<const DeclContext *, 8>;
LookupScopes lookupScopes(const FunctionDecl *FD, ASTContext &AST) {
  LookupScopes Out;
  auto AddDirectives = [&](const DeclContext *DC) {
    for (const Decl *D : DC->decls())
      if (const auto *U = dyn_cast<UsingDirectiveDecl>(D))
        addNamespace(U->getNominatedNamespace(), Out);
  };
  addNamespace(AST.getTranslationUnitDecl(), Out);
  // A block-scope using-directive is a declaration of its function.
  for (const DeclContext *DC = FD; DC; DC = DC->getParent()) {
    if (isa<NamespaceDecl, TranslationUnitDecl>(DC))
      addNamespace(DC, Out);
    AddDirectives(DC);
  }
  return Out;
}

/// True when \p RD (and its bases) declare a member named \p Name that,
/// called on an operator's first operand, could now prefer it non-const:
/// for the operand at \p Index 0 (the object) any non-const member, for
/// another a member whose parameter there is a non-const reference.
bool memberOperatorCouldChange(const CXXRecordDecl *RD, DeclarationName Name,
                               unsigned Index) {
  if (!RD || !RD->hasDefinition())
    return false;
  llvm::SmallVector<const CXXRecordDecl *, 4> Classes = {RD};
  if (!RD->forallBases([&](const CXXRecordDecl *Base) {
        Classes.push_back(Base);
        return true;
      }))
    return true;
  for (const CXXRecordDecl *C : Classes)
    for (const NamedDecl *D : C->lookup(Name)) {
      const auto *M = dyn_cast_or_null<CXXMethodDecl>(
          D->getUnderlyingDecl()->getAsFunction());
      if (!M || (Index == 0 ? !M->isStatic() && !M->isConst()
                            : couldPreferNonConst(D, Index - 1)))
        return true;
    }
  return false;
}

/// True when no candidate of a call to \p Callee with \p Args, the variable
/// being argument \p Index, could prefer it once it is not const: for a
/// member (or constructor), the class's lookup is the set; for a free
/// function, lookup in the callee's namespace, in \p Scopes, in the
/// namespaces of the arguments' classes and among their friends; for an
/// operator, those and the members of its first operand's class.
bool candidatesStable(const FunctionDecl *Callee, unsigned Index,
                      llvm::ArrayRef<const Expr *> Args, bool IsOperator,
                      const LookupScopes &Scopes) {
  DeclarationName Name = Callee->getDeclName();
  if (!IsOperator) {
    if (const auto *M = dyn_cast<CXXMethodDecl>(Callee)) {
      for (const NamedDecl *D : M->getParent()->lookup(Name))
        if (D->getUnderlyingDecl() != D || couldPreferNonConst(D, Index))
          return false;
      return true;
    }
  } else if (Args.empty() ||
             memberOperatorCouldChange(
                 Args.front()->getType()->getAsCXXRecordDecl(), Name, Index)) {
    return false;
  }
  LookupScopes All = Scopes;
  if (!isa<CXXMethodDecl>(Callee))
    addNamespace(Callee->getDeclContext()->getRedeclContext(), All);
  for (const Expr *A : Args)
    addAssociatedNamespaces(A->getType(), All);
  for (const DeclContext *DC : All)
    for (const NamedDecl *D : DC->lookup(Name))
      if (couldPreferNonConst(D, Index))
        return false;
  for (const Expr *A : Args) {
    const auto *RD = A->getType().getNonReferenceType()->getAsCXXRecordDecl();
    if (!RD || !RD->hasDefinition())
      continue;
    // Hidden friends, found only by argument-dependent lookup.
    for (const FriendDecl *F : RD->friends())
      if (const NamedDecl *D = F->getFriendDecl();
          D && D->getDeclName() == Name && couldPreferNonConst(D, Index))
        return false;
  }
  return true;
}

/// True when \p M, called on the variable, would still be the member called
/// on it non-const: it is const, and no member of that name is not.
bool constObjectUse(const CXXMethodDecl *M) {
  if (!M || !M->isConst())
    return false;
  for (const NamedDecl *D : M->getParent()->lookup(M->getDeclName())) {
    const auto *F = dyn_cast_or_null<CXXMethodDecl>(
        D->getUnderlyingDecl()->getAsFunction());
    if (!F || D->getUnderlyingDecl() != D || (!F->isStatic() && !F->isConst()))
      return false;
  }
  return true;
}

/// True when parameter \p Param of \p F is a `const &`: what the variable
/// binds to directly, const or not.
bool takesConstRef(const FunctionDecl *F, unsigned Param) {
  if (Param >= F->getNumParams())
    return false;
  QualType T = F->getParamDecl(Param)->getType();
  return T->isLValueReferenceType() && T->getPointeeType().isConstQualified();
}

/// How the variable is used at \p Ref: returned by name (true, and true in
/// \p Returned), or in a way that cannot see its const go (true), or
/// otherwise (false).
bool isSafeUse(const DeclRefExpr *Ref, const LookupScopes &Scopes,
               ASTContext &AST, bool &Returned) {
  if (Ref->refersToEnclosingVariableOrCapture())
    return false;
  const Expr *Cur = Ref;
  const Stmt *P = parentStmt(AST, Cur);
  while (P && isa<ImplicitCastExpr>(P) &&
         cast<ImplicitCastExpr>(P)->getCastKind() == CK_NoOp) {
    Cur = cast<Expr>(P);
    P = parentStmt(AST, P);
  }
  if (!P)
    return false;
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(P)) {
    // `return S;`: the result is constructed from it (an xvalue of it,
    // which the const keeps from binding to the move constructor).
    const auto *Return =
        dyn_cast_or_null<ReturnStmt>(parentStmt(AST, Construct));
    if (Return && Return->getRetValue() == Construct &&
        Construct->getNumArgs() == 1) {
      Returned = true;
      return true;
    }
    // A variable initialised from it (`std::string Copy = S;`), by a
    // constructor that takes it as `const &`. (A by-value argument's copy
    // is a constructor like this too, but then the call's own overloads
    // see the variable as well: left alone.)
    DynTypedNodeList Parents = AST.getParents(*Construct);
    const CXXConstructorDecl *Ctor = Construct->getConstructor();
    llvm::SmallVector<const Expr *, 4> Args(Construct->arguments());
    unsigned Index = llvm::find(Args, Cur) - Args.begin();
    return Parents.size() == 1 && Parents[0].get<VarDecl>() &&
           Index < Args.size() && takesConstRef(Ctor, Index) &&
           candidatesStable(Ctor, Index, Args, /*IsOperator=*/false, Scopes);
  }
  if (const auto *Member = dyn_cast<MemberExpr>(P)) {
    const auto *Call =
        dyn_cast_or_null<CXXMemberCallExpr>(parentStmt(AST, Member));
    return Call && Call->getCallee() == Member && !Member->isArrow() &&
           Member->getFoundDecl().getDecl() == Member->getMemberDecl() &&
           constObjectUse(Call->getMethodDecl());
  }
  if (const auto *Call = dyn_cast<CallExpr>(P)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || Call->getCallee() == Cur)
      return false;
    llvm::SmallVector<const Expr *, 4> Args(Call->arguments());
    unsigned Index = llvm::find(Args, Cur) - Args.begin();
    if (Index >= Args.size())
      return false;
    if (const auto *ME =
            dyn_cast<MemberExpr>(Call->getCallee()->IgnoreParenImpCasts()))
      if (ME->getFoundDecl().getDecl() != Callee)
        return false;
    bool IsOperator = isa<CXXOperatorCallExpr>(Call);
    // What the chosen function receives it as: a member operator's first
    // operand is its object.
    bool Received = IsOperator && isa<CXXMethodDecl>(Callee)
                        ? (Index == 0 ? cast<CXXMethodDecl>(Callee)->isConst()
                                      : takesConstRef(Callee, Index - 1))
                        : takesConstRef(Callee, Index);
    return Received &&
           candidatesStable(Callee, Index, Args, IsOperator, Scopes);
  }
  return false;
}

/// The `const` token written at the top level of \p V's declaration (before
/// or after its type's own text, `const T x` or `T const x`), when there is
/// exactly one and it is the main file's, and the type without it is not
/// const (not a typedef of a const type).
std::optional<CharSourceRange> constToken(const RuleContext &Ctx,
                                          const VarDecl *V) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getASTContext().getLangOpts();
  TypeLoc TL = V->getTypeSourceInfo()->getTypeLoc();
  TypeLoc Unqualified = TL.getUnqualifiedLoc();
  if (Unqualified.getType().isConstQualified())
    return std::nullopt;
  SourceLocation Begin = V->getBeginLoc(), Name = V->getLocation();
  SourceRange TypeRange = Unqualified.getSourceRange();
  if (!Ctx.isEditable(SourceRange(Begin, Name)) || TypeRange.isInvalid() ||
      !TypeRange.getBegin().isFileID() || !TypeRange.getEnd().isFileID())
    return std::nullopt;
  SourceLocation TypeEnd =
      Lexer::getLocForEndOfToken(TypeRange.getEnd(), 0, SM, LO);
  std::optional<CharSourceRange> Found;
  // The declaration's specifiers before the type and after it: `const`,
  // `volatile`, `constexpr`, attributes (whose brackets nest).
  for (auto [From, To] :
       {std::pair(Begin, TypeRange.getBegin()), std::pair(TypeEnd, Name)}) {
    int Depth = 0;
    SourceLocation Loc = From;
    while (SM.isBeforeInTranslationUnit(Loc, To)) {
      Token Tok;
      if (Lexer::getRawToken(Loc, Tok, SM, LO, /*IgnoreWhiteSpace=*/true))
        return std::nullopt;
      if (!SM.isBeforeInTranslationUnit(Tok.getLocation(), To))
        break;
      if (Tok.isOneOf(tok::l_paren, tok::l_square, tok::l_brace))
        ++Depth;
      else if (Tok.isOneOf(tok::r_paren, tok::r_square, tok::r_brace))
        --Depth;
      else if (Tok.is(tok::raw_identifier) && Depth == 0 &&
               Tok.getRawIdentifier() == "const") {
        if (Found)
          return std::nullopt;
        Found =
            CharSourceRange::getCharRange(Tok.getLocation(), Tok.getEndLoc());
      }
      Loc = Tok.getEndLoc();
    }
    if (Depth != 0)
      return std::nullopt;
  }
  if (!Found || !Ctx.getEditRange(*Found))
    return std::nullopt;
  // With the blanks after it, up to the next token on its line.
  Token Next;
  if (!Lexer::getRawToken(Found->getEnd(), Next, SM, LO,
                          /*IgnoreWhiteSpace=*/true)) {
    CharSourceRange Wider =
        CharSourceRange::getCharRange(Found->getBegin(), Next.getLocation());
    if (Ctx.getText(Wider).substr(5).trim(" \t").empty())
      return Wider;
  }
  return Found;
}

class NoAutomaticMoveRule : public Rule {
public:
  NoAutomaticMoveRule()
      : Rule("no-automatic-move",
             "const locals returned by name, which copy instead of moving, "
             "declared without const (performance-no-automatic-move)",
             "movable return") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      proposeIn(Ctx, FD, Out);
      // Its lambdas return too (their locals are theirs).
      for (const BoundNodes &N :
           match(findAll(lambdaExpr().bind("lambda")), *FD->getBody(), AST)) {
        const auto *L = N.getNodeAs<LambdaExpr>("lambda");
        if (enclosingFunction(AST, L) == FD)
          proposeIn(Ctx, L->getCallOperator(), Out);
      }
    }
  }

private:
  void proposeIn(const RuleContext &Ctx, const FunctionDecl *FD,
                 std::vector<RuleEdit> &Out) const {
    ASTContext &AST = Ctx.getASTContext();
    // A template's pattern: whether its types move is not settled.
    if (FD->isDependentContext() || !FD->getBody() ||
        !FD->getReturnType()->isRecordType())
      return;
    const Stmt *Body = FD->getBody();
    LookupScopes Scopes = lookupScopes(FD, AST);
    RuleEdit E = makeEdit("", 30);
    std::vector<unsigned> Lines;
    bool AllElided = true;
    for (const BoundNodes &N :
         match(findAll(declStmt(hasSingleDecl(varDecl().bind("var")),
                                forFunction(functionDecl(equalsNode(FD))))),
               *Body, AST)) {
      const auto *V = N.getNodeAs<VarDecl>("var");
      QualType T = V->getType();
      if (isa<ParmVarDecl, DecompositionDecl>(V) || V->isImplicit() ||
          !V->hasLocalStorage() || !V->getTypeSourceInfo() ||
          T->isReferenceType() || !T.isLocalConstQualified() ||
          T.isVolatileQualified() ||
          !AST.hasSameUnqualifiedType(T, FD->getReturnType()) ||
          !movesBetterThanCopies(T->getAsCXXRecordDecl()) ||
          hasNonConstConversion(T->getAsCXXRecordDecl()))
        continue;
      bool Returned = false, Ok = true;
      for (const BoundNodes &R :
           match(findAll(declRefExpr(to(varDecl(equalsNode(V)))).bind("ref")),
                 *Body, AST)) {
        bool ReturnedHere = false;
        Ok = isSafeUse(R.getNodeAs<DeclRefExpr>("ref"), Scopes, AST,
                       ReturnedHere);
        Returned |= ReturnedHere;
        if (!Ok)
          break;
      }
      if (!Ok || !Returned)
        continue;
      std::optional<CharSourceRange> Const = constToken(Ctx, V);
      RuleEdit Trial = E;
      if (!Const || !addReplacement(Trial, Ctx, *Const, ""))
        continue;
      E = std::move(Trial);
      // Clang's named return value optimisation would elide this copy; GCC
      // may too, and then the change is worth nothing.
      AllElided &= V->isNRVOVariable();
      Lines.push_back(Ctx.getUserLine(V->getLocation()));
    }
    if (Lines.empty())
      return;
    if (AllElided)
      E.Score = 15;
    E.Description =
        llvm::formatv("const dropped from returned locals in {0} ({1})",
                      describeFunction(FD), describeLines(Lines));
    Out.push_back(std::move(E));
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createNoAutomaticMoveRule() {
  return std::make_unique<NoAutomaticMoveRule>();
}
