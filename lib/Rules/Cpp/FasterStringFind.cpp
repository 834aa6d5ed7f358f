//===-- FasterStringFind.cpp - s.find("x") to s.find('x') -----------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// clang-tidy's performance-faster-string-find, as a measured variant:
// `s.find("x")` searches for a one-character string, through the overload
// that takes a C string (a strlen, then a substring search); `s.find('x')`
// looks for the character (a memchr). Both find the first position where
// that character is, so the result is the same. Only ordinary (narrow)
// literals of exactly one character, on std::string and std::string_view,
// for the six search members that have a character overload with the same
// meaning, and only the `(const char *, pos)` form: the position stays.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;
using namespace clang::ast_matchers;

namespace {

/// std::basic_string<char> or std::basic_string_view<char>.
bool isCharStringOrView(const CXXRecordDecl *RD) {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(RD);
  if (!Spec || !Spec->getIdentifier() || !isInStd(Spec) ||
      (Spec->getName() != "basic_string" &&
       Spec->getName() != "basic_string_view") ||
      Spec->getTemplateArgs().size() < 1)
    return false;
  const TemplateArgument &Arg = Spec->getTemplateArgs()[0];
  return Arg.getKind() == TemplateArgument::Type &&
         (Arg.getAsType()->isSpecificBuiltinType(BuiltinType::Char_S) ||
          Arg.getAsType()->isSpecificBuiltinType(BuiltinType::Char_U));
}

/// The character literal with the value \p C: the character itself when it
/// is printable, its escape otherwise.
std::string charLiteral(unsigned char C) {
  switch (C) {
  case '\'':
    return "'\\''";
  case '\\':
    return "'\\\\'";
  case '\n':
    return "'\\n'";
  case '\t':
    return "'\\t'";
  case '\r':
    return "'\\r'";
  case '\0':
    return "'\\0'";
  case '\a':
    return "'\\a'";
  case '\b':
    return "'\\b'";
  case '\f':
    return "'\\f'";
  case '\v':
    return "'\\v'";
  default:
    break;
  }
  if (C >= 0x20 && C < 0x7f)
    return std::string("'") + char(C) + "'";
  // Other bytes keep the value a char of the string had (a hex escape in a
  // char literal is converted to char as the string's byte was).
  return llvm::formatv("'\\x{0:x-2}'", unsigned(C)).str();
}

class FasterStringFindRule : public Rule {
public:
  FasterStringFindRule()
      : Rule("faster-string-find",
             "searches of std::string and std::string_view for a "
             "one-character string literal to the character "
             "(performance-faster-string-find)",
             "find char") {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    auto Find =
        cxxMemberCallExpr(callee(cxxMethodDecl(hasAnyName(
                              "find", "rfind", "find_first_of", "find_last_of",
                              "find_first_not_of", "find_last_not_of"))))
            .bind("call");
    for (const FunctionDecl *FD : Ctx.getFunctions()) {
      FunctionEdit E(makeEdit("", 30), Ctx, FD);
      for (const BoundNodes &N : match(findAll(Find), *FD->getBody(), AST))
        if (const StringLiteral *Lit =
                oneCharLiteral(N.getNodeAs<CXXMemberCallExpr>("call")))
          E.replace(Lit->getBeginLoc(), Ctx.getEditRange(Lit->getSourceRange()),
                    charLiteral(Lit->getBytes().front()));
      E.addTo(Out, "string searches for a character");
    }
  }

private:
  /// The literal `"x"` that \p Call searches for, when the call is the
  /// `(const char *, pos)` overload of a std::string or std::string_view
  /// member, with a one-character ordinary literal written as one token.
  static const StringLiteral *oneCharLiteral(const CXXMemberCallExpr *Call) {
    const CXXMethodDecl *M = Call->getMethodDecl();
    if (!M || !isCharStringOrView(M->getParent()) || M->getNumParams() != 2 ||
        Call->getNumArgs() != 2)
      return nullptr;
    // The C-string overload (the three-argument (s, pos, n) form has no
    // character counterpart).
    QualType P = M->getParamDecl(0)->getType().getCanonicalType();
    if (!P->isPointerType() || !P->getPointeeType().isConstQualified() ||
        !P->getPointeeType()->isCharType())
      return nullptr;
    const auto *Lit =
        dyn_cast<StringLiteral>(Call->getArg(0)->IgnoreParenImpCasts());
    if (!Lit || !Lit->isOrdinary() || Lit->getLength() != 1 ||
        Lit->getNumConcatenated() != 1)
      return nullptr;
    return Lit;
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createFasterStringFindRule() {
  return std::make_unique<FasterStringFindRule>();
}
