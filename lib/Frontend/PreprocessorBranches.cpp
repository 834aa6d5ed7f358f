//===-- PreprocessorBranches.cpp - What each pass compiles ----------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/PreprocessorBranches.h"
#include "maxcode/Frontend/ParseSupport.h"
#include "maxcode/Frontend/Prelude.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace maxcode;

std::vector<unsigned>
maxcode::conditionalDirectiveOffsets(llvm::StringRef Text) {
  LangOptions LO;
  LO.CPlusPlus = LO.CPlusPlus11 = LO.CUDA = true;
  SourceLocation Start; // Offsets: locations relative to the buffer.
  Lexer L(Start, LO, Text.begin(), Text.begin(), Text.end());
  static constexpr llvm::StringLiteral Conditionals[] = {
      "if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif"};
  std::vector<unsigned> Out;
  bool AfterHash = false;
  unsigned HashAt = 0;
  Token T;
  while (!L.LexFromRawLexer(T) || T.isNot(tok::eof)) {
    if (T.is(tok::eof))
      break;
    // The name on the `#`'s own line (a lone `#` is a null directive).
    if (AfterHash && !T.isAtStartOfLine() && T.is(tok::raw_identifier) &&
        llvm::is_contained(Conditionals, T.getRawIdentifier()))
      Out.push_back(HashAt);
    AfterHash = T.is(tok::hash) && T.isAtStartOfLine();
    if (AfterHash)
      HashAt = T.getLocation().getRawEncoding() - Start.getRawEncoding();
  }
  return Out;
}

namespace {
/// Records the main file's ranges the preprocessor skips.
class SkippedRecorder : public PPCallbacks {
public:
  SkippedRecorder(const SourceManager &SM, std::vector<ByteRange> &Out)
      : SM(SM), Out(Out) {}
  void SourceRangeSkipped(SourceRange Range, SourceLocation) override {
    if (!SM.isWrittenInMainFile(Range.getBegin()))
      return;
    Out.push_back(
        {SM.getFileOffset(Range.getBegin()), SM.getFileOffset(Range.getEnd())});
  }

private:
  const SourceManager &SM;
  std::vector<ByteRange> &Out;
};

class SkippedAction : public PreprocessOnlyAction {
public:
  explicit SkippedAction(std::vector<ByteRange> &Out) : Out(Out) {}
  bool BeginSourceFileAction(CompilerInstance &CI) override {
    CI.getPreprocessor().addPPCallbacks(
        std::make_unique<SkippedRecorder>(CI.getSourceManager(), Out));
    return PreprocessOnlyAction::BeginSourceFileAction(CI);
  }

private:
  std::vector<ByteRange> &Out;
};

class SkippedActionFactory : public tooling::FrontendActionFactory {
public:
  explicit SkippedActionFactory(std::vector<ByteRange> &Out) : Out(Out) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<SkippedAction>(Out);
  }

private:
  std::vector<ByteRange> &Out;
};
} // namespace

llvm::Expected<std::vector<ByteRange>>
maxcode::deviceSkippedRanges(const ParsedFile &Host) {
  std::vector<ByteRange> Out;
  if (!Host.AST || !needsDeviceParse(Host))
    return Out;
  auto Args = deviceSideArgs(withoutPrelude(Host.ParseArgs));
  if (!Args)
    return llvm::createStringError("'" + Host.File +
                                   "' was not parsed as CUDA for the host");
  SingleCommandDatabase DB(tooling::CompileCommand(Host.Command.Directory,
                                                   Host.File, std::move(*Args),
                                                   Host.Command.Output));
  tooling::ClangTool Tool(DB, {Host.File},
                          std::make_shared<PCHContainerOperations>(),
                          privateFileSystem());
  // The text the host pass read (an editor's buffer, a variant), not the
  // disk's.
  const SourceManager &SM = Host.AST->getSourceManager();
  Tool.mapVirtualFile(Host.File, SM.getBufferData(SM.getMainFileID()));
  IgnoringDiagConsumer Quiet;
  Tool.setDiagnosticConsumer(&Quiet);
  SkippedActionFactory Factory(Out);
  if (Tool.run(&Factory) != 0)
    return llvm::createStringError("the device-side preprocessing of '" +
                                   Host.File + "' failed");
  return Out;
}
