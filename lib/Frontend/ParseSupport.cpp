//===-- ParseSupport.cpp - Running Clang on one file ----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/ParseSupport.h"
#include "clang/Basic/DiagnosticIDs.h"
#include "clang/Lex/DependencyDirectivesScanner.h"
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
