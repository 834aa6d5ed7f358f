//===-- maxcode/Frontend/ParseSupport.h - Running Clang on one file -*- C++
//-*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The pieces every parse of one main file shares (target discovery, the
/// static screen of variants): the command adjusted for Clang, a one-entry
/// compile database for ClangTool, and a diagnostic printer that tells a
/// syntax error (the text is not C++) from a semantic one.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_FRONTEND_PARSESUPPORT_H
#define MAXCODE_FRONTEND_PARSESUPPORT_H

#include "maxcode/Frontend/NvccAdjuster.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <optional>

namespace maxcode {

/// \p Command adjusted for parsing \p File with Clang (adjustForParsing);
/// the options Clang does not know, left out, go to \p Unknown.
clang::tooling::CompileCommand
adjustedParseCommand(const clang::tooling::CompileCommand &Command,
                     llvm::StringRef File, const ParseSettings &Settings,
                     std::vector<std::string> *Unknown = nullptr);

/// True when \p Text, a CUDA file's, tests the macros that tell the host pass
/// from the device pass (`__CUDA_ARCH__`, `__NVPTX__`): what the host-only
/// parse reads is then not all the GPU runs.
bool testsDevicePassMacros(llvm::StringRef Text);

/// The real file system with a working folder of its own, for every parse:
/// the one `llvm::vfs::getRealFileSystem()` shares is the process's, so a
/// parse that sets it to a command's folder (ClangTool does) moves the
/// relative paths of every other thread (a store that landed at
/// `build/build/...`).
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> privateFileSystem();

/// \p Text's preprocessor directives alone (its includes, macros and the
/// conditions around them), read with Clang's dependency-directive scanner;
/// empty when it cannot be scanned. A program of these and an empty `main`
/// starts as \p Text does: the start-up floor of a measure.
std::string directivesOnly(llvm::StringRef Text);

/// \p Text, a CUDA file's, with every kernel launch's chevrons that are
/// spelled apart (`k<< <g, b>> >(...)`, what some formatters write, or
/// across lines) closed up as `<<<` and `>>>`, their whitespace moved after
/// them: nvcc reads those as a launch, Clang as a shift and a comparison.
/// Offsets and line breaks stay where they were, so every location in a
/// parse of the result is one in \p Text. None when nothing is spelled
/// apart. Read with Clang's lexer: `operator<< <T>` and the `>> >` that end
/// nested template arguments are not launches.
std::optional<std::string> closeUpLaunchChevrons(llvm::StringRef Text);

/// The device-side parse (`--cuda-device-only`, libdevice not needed: the
/// pass is only read) of the host-only parse arguments \p HostArgs; none when
/// they are not a CUDA host-only parse.
std::optional<std::vector<std::string>>
deviceSideArgs(llvm::ArrayRef<std::string> HostArgs);

/// A one-entry database: the adjusted command for the one file parsed.
class SingleCommandDatabase : public clang::tooling::CompilationDatabase {
public:
  explicit SingleCommandDatabase(clang::tooling::CompileCommand C)
      : Command(std::move(C)) {}
  std::vector<clang::tooling::CompileCommand>
  getCompileCommands(llvm::StringRef) const override {
    return {Command};
  }
  std::vector<std::string> getAllFiles() const override {
    return {Command.Filename};
  }

private:
  clang::tooling::CompileCommand Command;
};

/// Whether a diagnostic is a parse or lexical one, as opposed to semantic.
bool isSyntaxDiagnostic(const clang::Diagnostic &Info);

/// Prints diagnostics and notes whether an error was a syntax error.
class SyntaxAwarePrinter : public clang::TextDiagnosticPrinter {
public:
  using TextDiagnosticPrinter::TextDiagnosticPrinter;
  bool SawSyntaxError = false;
  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override;

private:
  /// The last error or warning was shown: its notes are.
  bool ShowNotes = false;
};

} // namespace maxcode

#endif // MAXCODE_FRONTEND_PARSESUPPORT_H
