//===-- PruneIncludes.cpp - <iostream> out of files without streams -------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Including <iostream> (or <bits/stdc++.h>, which includes it) starts the
// stream library at every run, whether the program uses it or not. In a
// file that names no standard stream, the include goes, and the headers of
// what the file does use from it come back by name.
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

class PruneIncludesRule : public Rule {
public:
  PruneIncludesRule()
      : Rule("prune-includes",
             "<iostream> or <bits/stdc++.h> in a file without stream I/O "
             "to the headers it uses",
             "includes", RuleLanguages::CPlusPlus) {}

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    ASTContext &AST = Ctx.getASTContext();
    // Any standard stream, or the function that synchronises them.
    auto Streams = declRefExpr(to(namedDecl(
        anyOf(varDecl(hasAnyName("::std::cin", "::std::cout", "::std::cerr",
                                 "::std::clog", "::std::wcin", "::std::wcout",
                                 "::std::wcerr", "::std::wclog")),
              functionDecl(hasName("sync_with_stdio"))))));
    if (!match(findAll(Streams), AST).empty())
      return;
    std::vector<FileID> Removed;
    std::vector<std::string> Spellings;
    findStreamIncludes(Ctx, Removed, Spellings);
    if (Removed.empty())
      return;
    std::vector<std::string> Headers = findHeadersNeededWithout(
        Ctx, Removed, [](const Decl *, SourceLocation) { return false; });
    RuleEdit E = makeEdit("", 85);
    for (const std::string &S : Spellings)
      if (!removeHeader(E, Ctx, S))
        return;
    for (const std::string &H : Headers)
      if (!addHeader(E, Ctx, H))
        return;
    std::string Names;
    for (const std::string &H : Headers)
      Names += (Names.empty() ? "" : ", ") + H;
    E.Description =
        llvm::formatv("{0} -> {1}", Spellings.front(),
                      Names.empty() ? std::string("no header") : Names);
    Out.push_back(std::move(E));
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createPruneIncludesRule() {
  return std::make_unique<PruneIncludesRule>();
}
