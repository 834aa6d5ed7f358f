//===-- TriviallyDestructible.cpp - Defaulted destructors removed ---------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// clang-tidy's performance-trivially-destructible, as a variant that is
// measured before it is suggested. `~S();` in the class and `S::~S() =
// default;` after it make the destructor user-provided, hence non-trivial,
// although it does nothing the implicit one would not: S is then neither
// trivially destructible nor trivially copyable, so std::vector<S> runs a
// destructor loop on clear and reallocation and cannot relocate its
// elements with memmove, and S is passed in memory rather than registers.
// The rule removes both declarations; the implicit destructor is trivial.
//
// Only where that changes nothing else: the destructor is public, not
// virtual, without attributes and declared exactly twice in this file (in
// the class, then defaulted outside it), with no exception specification
// or a non-throwing one; every member and base is trivially destructible
// and no base is virtual. A user-declared destructor also suppresses the
// implicit move constructor and move assignment: when the class declares
// no copy or move operation of its own, removing it lets moves be
// declared, so every member and base must then move as it copies (scalars,
// references, trivially copyable classes, std::pair and std::tuple of
// such).
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;

namespace {

/// True when moving an object of type \p T does what copying it does.
bool movesAsItCopies(QualType T, const ASTContext &AST) {
  T = AST.getBaseElementType(T);
  if (T->isReferenceType() || T->isScalarType() ||
      T.isTriviallyCopyableType(AST))
    return true;
  // std::pair and std::tuple move and copy their elements one by one.
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T->getAsCXXRecordDecl());
  if (!Spec || !isInStd(Spec) ||
      (Spec->getName() != "pair" && Spec->getName() != "tuple"))
    return false;
  for (const TemplateArgument &A : Spec->getTemplateArgs().asArray()) {
    if (A.getKind() == TemplateArgument::Pack) {
      for (const TemplateArgument &P : A.pack_elements())
        if (P.getKind() != TemplateArgument::Type ||
            !movesAsItCopies(P.getAsType(), AST))
          return false;
    } else if (A.getKind() != TemplateArgument::Type ||
               !movesAsItCopies(A.getAsType(), AST)) {
      return false;
    }
  }
  return true;
}

/// True when \p RD would be trivially destructible without its destructor,
/// and dropping the destructor declares no move that differs from a copy.
bool subobjectsAllowRemoval(const CXXRecordDecl *RD, const ASTContext &AST) {
  if (RD->getNumVBases())
    return false;
  bool MovesAppear = !RD->hasUserDeclaredCopyConstructor() &&
                     !RD->hasUserDeclaredCopyAssignment() &&
                     !RD->hasUserDeclaredMoveConstructor() &&
                     !RD->hasUserDeclaredMoveAssignment();
  for (const FieldDecl *F : RD->fields())
    if (F->getType().isDestructedType() != QualType::DK_none ||
        (MovesAppear && !movesAsItCopies(F->getType(), AST)))
      return false;
  for (const CXXBaseSpecifier &B : RD->bases()) {
    const CXXRecordDecl *Base = B.getType()->getAsCXXRecordDecl();
    if (!Base || !Base->hasTrivialDestructor() ||
        (MovesAppear && !movesAsItCopies(B.getType(), AST)))
      return false;
  }
  return true;
}

/// True when \p D has no attribute and either no exception specification
/// or a non-throwing one (the implicit destructor's).
bool isPlainDeclaration(const FunctionDecl *D) {
  if (D->hasAttrs())
    return false;
  // Without attributes and user-provided (so not trivial), D is non-throwing
  // for isNothrow exactly when its specification is.
  return D->getExceptionSpecSourceRange().isInvalid() || isNothrow(D);
}

/// The text of declaration \p D through the `;` that ends it (`~S();`,
/// `S::~S() = default;`), as whole lines where nothing else is on them;
/// None when it is not editable.
std::optional<CharSourceRange> declarationRange(const RuleContext &Ctx,
                                                const FunctionDecl *D) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getASTContext().getLangOpts();
  // The declaration's range ends with its declarator; `= default`, an
  // exception specification and the `;` may follow.
  SourceLocation Last = D->getEndLoc();
  for (int I = 0; I < 8 && Last.isValid(); ++I) {
    std::optional<Token> Next = Lexer::findNextToken(Last, SM, LO);
    if (!Next)
      return std::nullopt;
    Last = Next->getLocation();
    if (Next->is(tok::semi)) {
      auto R = Ctx.getEditRange(SourceRange(D->getBeginLoc(), Last));
      if (!R)
        return std::nullopt;
      return wholeLines(Ctx, *R);
    }
    bool Allowed = Next->isOneOf(tok::equal, tok::l_paren, tok::r_paren) ||
                   (Next->is(tok::raw_identifier) &&
                    (Next->getRawIdentifier() == "default" ||
                     Next->getRawIdentifier() == "noexcept" ||
                     Next->getRawIdentifier() == "true"));
    if (!Allowed)
      return std::nullopt;
  }
  return std::nullopt;
}

class TriviallyDestructibleRule : public Rule {
public:
  TriviallyDestructibleRule()
      : Rule("trivially-destructible",
             "destructors declared in the class and defaulted outside it "
             "removed, making the class trivially destructible "
             "(performance-trivially-destructible)",
             "trivial destructor") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    // Not templates: every instantiation's members would have to qualify.
    for (const CXXRecordDecl *RD : mainFileClasses(Ctx)) {
      if (RD->isUnion())
        continue;
      const CXXDestructorDecl *Dtor = editableDestructor(RD);
      if (!Dtor || Dtor->getAccess() != AS_public)
        continue;
      const FunctionDecl *First = Dtor->getCanonicalDecl();
      const FunctionDecl *Def = Dtor->getDefinition();
      if (!Def || Def == First || First->isExplicitlyDefaulted() ||
          !Def->isExplicitlyDefaulted() ||
          std::distance(Dtor->redecls_begin(), Dtor->redecls_end()) != 2 ||
          !isPlainDeclaration(First) || !isPlainDeclaration(Def) ||
          !subobjectsAllowRemoval(RD, AST))
        continue;
      std::optional<CharSourceRange> InClass = declarationRange(Ctx, First);
      std::optional<CharSourceRange> Outside = declarationRange(Ctx, Def);
      RuleEdit E = makeEdit("", 30);
      if (!InClass || !Outside || !addReplacement(E, Ctx, *InClass, "") ||
          !addReplacement(E, Ctx, *Outside, ""))
        continue;
      E.Description = llvm::formatv(
          "trivially destructible {0}: defaulted destructor removed ({1})",
          RD->getQualifiedNameAsString(),
          describeLines({Ctx.getUserLine(First->getLocation()),
                         Ctx.getUserLine(Def->getLocation())}));
      Out.push_back(std::move(E));
    }
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createTriviallyDestructibleRule() {
  return std::make_unique<TriviallyDestructibleRule>();
}
