//===-- GccPragmas.cpp - GCC optimize and target pragmas ------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `#pragma GCC optimize("O3,unroll-loops")` at the top of the file (under
// the target scope, around the target alone: `push_options` before it,
// `pop_options` after it, so the scope accepts it), and with it, as an
// alternative, `#pragma GCC target(...)` naming only the instruction-set
// extensions of the machine that runs the variants. GCC only.
//
//===----------------------------------------------------------------------===//

#include "../Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace maxcode;
using namespace clang;

namespace {

class GccPragmasRule : public Rule {
public:
  GccPragmasRule()
      : Rule("gcc-pragmas",
             "GCC optimize and target pragmas (GCC only; target extensions "
             "only if this machine has them)",
             "pragmas", RuleLanguages::CPlusPlus) {}

  std::vector<std::pair<std::string, std::string>>
  getOptionDefaults() const override {
    return {{"Optimize", "O3,unroll-loops"}};
  }

  void propose(const RuleContext &Ctx,
               std::vector<RuleEdit> &Out) const override {
    if (!Ctx.getOptions().CompilerIsGCC)
      return;
    if (hasPragma(Ctx, {"GCC", "optimize"}) ||
        hasPragma(Ctx, {"GCC", "target"}))
      return;
    const SourceManager &SM = Ctx.getSourceManager();
    // At the top of the file, so that every function (and the inline code
    // of the headers) is compiled with them; under the target scope, right
    // before the target, on a line of its own.
    SourceLocation At = SM.getLocForStartOfFile(SM.getMainFileID());
    // Under the target scope the pragmas must not reach the code after the
    // target (the screen and checkScope refuse one that would): they are
    // pushed before it and popped after it, or not proposed.
    bool Around = Ctx.getOptions().Scope == EditScope::Target;
    SourceLocation End;
    if (Around) {
      At = At.getLocWithOffset(Ctx.getTarget().BeginOffset);
      End = SM.getLocForStartOfFile(SM.getMainFileID())
                .getLocWithOffset(Ctx.getTarget().EndOffset);
      if (!startsLine(Ctx, At))
        return;
      // Lines of their own at the start of the target's line: an indented
      // target (in a namespace) keeps its line as written.
      At = SM.translateLineCol(SM.getMainFileID(), SM.getSpellingLineNumber(At),
                               1);
    }
    // The pop goes in right after the target, as a line of its own that
    // takes what followed the target on its last line (a line break, blanks
    // or a comment): the code after the target keeps its text and layout
    // (the scope refuses any change there). No code may follow the target
    // on its last line.
    std::string Pop = "\n#pragma GCC pop_options";
    if (Around) {
      SourceLocation Last = End.getLocWithOffset(-1);
      unsigned EndLine = SM.getSpellingLineNumber(Last);
      std::optional<Token> Next =
          Lexer::findNextToken(Last, SM, Ctx.getASTContext().getLangOpts());
      if (Next && Next->isNot(tok::eof) &&
          SM.getSpellingLineNumber(Next->getLocation()) == EndLine)
        return;
      // At the end of a file without a final line break, the pop's line
      // gets one.
      if (Ctx.getTarget().EndOffset >= Ctx.getCode().size())
        Pop += "\n";
    }
    std::string Push = Around ? "#pragma GCC push_options\n" : "";
    auto Wrap = [&](RuleEdit &E, const std::string &Pragmas) {
      return insertText(E, Ctx, At, Push + Pragmas) &&
             (!Around || insertText(E, Ctx, End, Pop));
    };
    std::string Flags = Ctx.getOption(*this, "Optimize", "O3,unroll-loops");
    std::string Optimize = "#pragma GCC optimize(\"" + Flags + "\")\n";
    RuleEdit A = makeEdit("#pragma GCC optimize(\"" + Flags + "\")", 30);
    A.Group = "gcc-pragmas";
    if (Wrap(A, Optimize))
      Out.push_back(std::move(A));

    std::string Features;
    for (const std::string &F : Ctx.getOptions().HostFeatures)
      Features += (Features.empty() ? "" : ",") + F;
    if (Features.empty())
      return;
    std::string Target = "#pragma GCC target(\"" + Features + "\")\n";
    RuleEdit B = makeEdit("#pragma GCC optimize(\"" + Flags +
                              "\") and target(\"" + Features + "\")",
                          28);
    B.Group = "gcc-pragmas";
    if (Wrap(B, Optimize + Target))
      Out.push_back(std::move(B));
  }
};

} // namespace

std::unique_ptr<Rule> maxcode::createGccPragmasRule() {
  return std::make_unique<GccPragmasRule>();
}
