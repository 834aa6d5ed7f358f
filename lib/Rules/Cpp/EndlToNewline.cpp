//===-- EndlToNewline.cpp - std::endl to '\n' -----------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// std::endl writes a newline and flushes the stream: a system call per line.
// '\n' writes the same bytes, flushed when the buffer fills and at exit. A
// std::endl in a macro's body is rewritten in the #define (every expansion
// names the same function).
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/Support/FormatVariadic.h"

using namespace maxcode;
using namespace clang;
using namespace clang::ast_matchers;

namespace {

class EndlToNewlineRule : public Rule {
public:
  EndlToNewlineRule()
      : Rule("endl-to-newline",
             "std::endl to '\\n': no flush of the stream per line", "'\\n'",
             RuleLanguages::CPlusPlusAndCuda) {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    const SourceManager &SM = Ctx.getSourceManager();
    RuleEdit E = makeEdit("", 50);
    std::vector<unsigned> Lines;
    auto Endl = declRefExpr(to(functionDecl(hasName("::std::endl")))).bind("e");
    for (const BoundNodes &N : match(findAll(Endl), AST)) {
      const auto *D = N.getNodeAs<DeclRefExpr>("e");
      if (!SM.isWrittenInMainFile(SM.getExpansionLoc(D->getBeginLoc())))
        continue;
      auto R = Ctx.getSpelledRange(D->getSourceRange());
      if (!R)
        continue;
      if (!addReplacement(E, Ctx, *R, "'\\n'"))
        return;
      Lines.push_back(Ctx.getUserLine(D->getBeginLoc()));
    }
    if (Lines.empty())
      return;
    E.Description =
        llvm::formatv("std::endl -> '\\n' ({0})", describeLines(Lines));
    Out.push_back(std::move(E));
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createEndlToNewlineRule() {
  return std::make_unique<EndlToNewlineRule>();
}
