//===-- ParseSupport.cpp - Running Clang on one file ----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/ParseSupport.h"
#include "clang/Basic/DiagnosticIDs.h"
#include "clang/Lex/DependencyDirectivesScanner.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"

using namespace maxcode;
using namespace clang;

tooling::CompileCommand maxcode::adjustedParseCommand(
    const tooling::CompileCommand &Command, llvm::StringRef File,
    const ParseSettings &Settings, std::vector<std::string> *Unknown) {
  tooling::CompileCommand Adjusted = Command;
  Adjusted.Filename = File.str();
  Adjusted.CommandLine = adjustForParsing(Command.CommandLine, File,
                                          Command.Directory, Settings, Unknown);
  return Adjusted;
}

bool maxcode::testsDevicePassMacros(llvm::StringRef Text) {
  // What the host pass cannot see is what the preprocessor keeps from it:
  // code under a test of the device pass's own macros.
  return Text.contains("__CUDA_ARCH") || Text.contains("__NVPTX__");
}

llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> maxcode::privateFileSystem() {
  return llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>(
      llvm::vfs::createPhysicalFileSystem());
}

std::string maxcode::directivesOnly(llvm::StringRef Text) {
  llvm::SmallVector<clang::dependency_directives_scan::Token, 64> Tokens;
  llvm::SmallVector<clang::dependency_directives_scan::Directive, 32> Dirs;
  if (clang::scanSourceForDependencyDirectives(Text, Tokens, Dirs))
    return "";
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  clang::printDependencyDirectivesAsSource(Text, Dirs, OS);
  return Out;
}

std::optional<std::vector<std::string>>
maxcode::deviceSideArgs(llvm::ArrayRef<std::string> HostArgs) {
  auto Pos = llvm::find(HostArgs, "--cuda-host-only");
  if (Pos == HostArgs.end())
    return std::nullopt;
  std::vector<std::string> Args(HostArgs.begin(), Pos);
  Args.insert(Args.end(), {"-nocudalib", "--cuda-device-only"});
  Args.insert(Args.end(), std::next(Pos), HostArgs.end());
  return Args;
}

bool maxcode::isSyntaxDiagnostic(const Diagnostic &Info) {
  llvm::StringRef Category = DiagnosticIDs::getCategoryNameFromID(
      DiagnosticIDs::getCategoryNumberForDiag(Info.getID()));
  return Category == "Parse Issue" ||
         Category == "Lexical or Preprocessor Issue";
}

void SyntaxAwarePrinter::HandleDiagnostic(DiagnosticsEngine::Level Level,
                                          const Diagnostic &Info) {
  if (Level >= DiagnosticsEngine::Error && isSyntaxDiagnostic(Info))
    SawSyntaxError = true;
  // The project's own warnings are its build's business, not the tool's: a
  // search of a real project printed a brace-style warning of the file it
  // read. Errors, which block targets, are shown with their notes.
  if (Level == DiagnosticsEngine::Note ? !ShowNotes
                                       : Level < DiagnosticsEngine::Error) {
    if (Level != DiagnosticsEngine::Note)
      ShowNotes = false;
    // Counted as the base class counts (the "N warnings generated" line).
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    return;
  }
  ShowNotes = true;
  TextDiagnosticPrinter::HandleDiagnostic(Level, Info);
}

namespace {
/// One token of a raw lexing: its kind and where its characters are.
struct RawToken {
  tok::TokenKind Kind;
  unsigned Begin, End;
  bool IsOperatorKeyword;
};

/// How many of \p C the punctuator \p K is made of (`<<` is two `<`), or 0.
unsigned chevronCount(tok::TokenKind K, char C) {
  if (C == '<')
    return K == tok::less ? 1 : K == tok::lessless ? 2 : 0;
  return K == tok::greater ? 1 : K == tok::greatergreater ? 2 : 0;
}

/// The tokens from \p I that make three \p C, as [I, End); none when they
/// do not (or already are one `<<<`/`>>>` token).
std::optional<size_t> threeChevrons(llvm::ArrayRef<RawToken> Toks, size_t I,
                                    char C) {
  unsigned Count = 0;
  size_t J = I;
  while (J < Toks.size() && Count < 3 && chevronCount(Toks[J].Kind, C))
    Count += chevronCount(Toks[J++].Kind, C);
  if (Count != 3 || J - I < 2)
    return std::nullopt;
  return J;
}
} // namespace

std::optional<std::string>
maxcode::closeUpLaunchChevrons(llvm::StringRef Text) {
  LangOptions LO;
  LO.CPlusPlus = LO.CPlusPlus11 = LO.CUDA = true;
  SourceLocation Start; // Offsets: locations relative to the buffer.
  Lexer L(Start, LO, Text.begin(), Text.begin(), Text.end());
  std::vector<RawToken> Toks;
  for (Token T; !L.LexFromRawLexer(T) || T.isNot(tok::eof);) {
    if (T.is(tok::eof))
      break;
    unsigned B = T.getLocation().getRawEncoding() - Start.getRawEncoding();
    Toks.push_back(
        {T.getKind(), B, B + T.getLength(),
         T.is(tok::raw_identifier) && T.getRawIdentifier() == "operator"});
  }
  std::string Out = Text.str();
  // The chevrons of [I, J) become `<<<` (or `>>>`), followed by the
  // whitespace and comments that were between them.
  auto CloseUp = [&](size_t I, size_t J, char C) {
    unsigned B = Toks[I].Begin, E = Toks[J - 1].End;
    // A comment between them holding the same character: left as it is,
    // so that no offset moves.
    if (llvm::count(Text.slice(B, E), C) != 3)
      return;
    std::string Between;
    for (unsigned K = B; K < E; ++K)
      if (Text[K] != C)
        Between += Text[K];
    Out.replace(B, E - B, std::string(3, C) + Between);
  };
  bool Changed = false;
  for (size_t I = 0; I < Toks.size(); ++I) {
    if (I > 0 && Toks[I - 1].IsOperatorKeyword)
      continue;
    bool JoinedOpen = Toks[I].Kind == tok::lesslessless;
    std::optional<size_t> Open =
        JoinedOpen ? std::optional<size_t>(I + 1) : threeChevrons(Toks, I, '<');
    if (!Open)
      continue;
    // The configuration ends at the first three `>` outside brackets that
    // a `(` follows.
    int Depth = 0;
    for (size_t K = *Open; K < Toks.size() && Depth >= 0; ++K) {
      tok::TokenKind Kind = Toks[K].Kind;
      if (Kind == tok::semi)
        break;
      if (Kind == tok::l_paren || Kind == tok::l_square || Kind == tok::l_brace)
        ++Depth;
      if (Kind == tok::r_paren || Kind == tok::r_square || Kind == tok::r_brace)
        --Depth;
      if (Depth != 0)
        continue;
      std::optional<size_t> Close;
      if (Kind == tok::greatergreatergreater)
        Close = K + 1;
      else if (!(Close = threeChevrons(Toks, K, '>')))
        continue;
      if (*Close >= Toks.size() || Toks[*Close].Kind != tok::l_paren)
        continue;
      if (!JoinedOpen)
        CloseUp(I, *Open, '<');
      if (Kind != tok::greatergreatergreater)
        CloseUp(K, *Close, '>');
      Changed |= !JoinedOpen || Kind != tok::greatergreatergreater;
      I = *Close - 1;
      break;
    }
  }
  if (!Changed)
    return std::nullopt;
  return Out;
}
