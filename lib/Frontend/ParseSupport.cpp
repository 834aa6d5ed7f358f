//===-- ParseSupport.cpp - Running Clang on one file ----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/ParseSupport.h"
#include "clang/Basic/DiagnosticIDs.h"

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
  TextDiagnosticPrinter::HandleDiagnostic(Level, Info);
}
