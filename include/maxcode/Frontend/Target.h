//===-- maxcode/Frontend/Target.h - Functions and kernels to optimise -*- C++
//-*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Targets (DESIGN section 2): the function and kernel definitions of a main
/// file, found on a real Clang AST, with what ranking and rewriting need.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_FRONTEND_TARGET_H
#define MAXCODE_FRONTEND_TARGET_H

#include "maxcode/Frontend/NvccAdjuster.h"
#include "clang/Basic/SourceLocation.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTUnit;
class FunctionDecl;
} // namespace clang

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace maxcode {

enum class TargetKind { CpuFunction, CudaKernel, CudaDeviceFunction };

/// "cpu-function", "cuda-kernel", "cuda-device-function".
llvm::StringRef targetKindName(TargetKind K);

/// A place in the main file (1-based).
struct SourcePosition {
  unsigned Line = 0;
  unsigned Column = 0;
  /// For a launch through functions the kernel is handed to: the function
  /// called here, then each step to the launch ("launch at k.cuh:12",
  /// "<<<>>> at k.cuh:20"); empty for a direct launch.
  std::vector<std::string> Via;
};

struct Target {
  std::string Name; ///< Qualified name, without template arguments.
  TargetKind Kind = TargetKind::CpuFunction;
  std::string File;     ///< Absolute path of the main file.
  unsigned Line = 0;    ///< First line of the definition.
  unsigned EndLine = 0; ///< Last line of the definition.
  /// Byte range of the whole definition in the file, template header and
  /// attributes included: what a variant replaces.
  unsigned BeginOffset = 0;
  unsigned EndOffset = 0;
  std::string USR;
  std::string Signature; ///< The declaration text up to the body.
  std::string TextHash;  ///< SHA-256 of the definition's text, hex.
  /// Triple-chevron launches and cudaLaunchKernel-style calls naming it, and
  /// the calls that hand it to a function that launches it (with the path).
  std::vector<SourcePosition> LaunchSites;
  unsigned LoopDepth = 0; ///< Deepest loop nesting in the body.
  /// Seen only by the device-side parse (under `#if __CUDA_ARCH__`): its
  /// validity is that pass's.
  bool DevicePass = false;
  /// Compiled for the host (a CPU function, or `__host__ __device__`); a
  /// kernel's body and a `__device__` function run only on the GPU.
  bool HostCode = true;
  /// Read as CUDA: its file's parse is a CUDA one (a .cu file, nvcc, `-x
  /// cuda`, or a header that what includes it makes CUDA). The one answer
  /// the search, --list-variants and the editor give to "is this target
  /// CUDA?" (its default scope, its rules).
  bool Cuda = false;
  /// Linker names of the definition and of its template instantiations, as a
  /// profiler reports them.
  std::vector<std::string> MangledNames;
  /// Measured share of the program's cost that is the target's own (its
  /// code, and the library code it calls); unset without a profile.
  std::optional<double> Share;
  /// Measured share with every call it makes, the program's own functions
  /// included (callgrind's inclusive cost); unset without a profile.
  std::optional<double> InclusiveShare;

  /// The static estimate used when there is no profile: deeper loops and
  /// launched kernels first.
  double staticScore() const;
};

/// A target that cannot be listed or rewritten, and why.
struct BlockedTarget {
  Target T;
  std::string Reason;
};

/// An error Clang reported while parsing.
struct ClangError {
  /// Where (a file location, macro expansions resolved); invalid when the
  /// error has no place.
  clang::SourceLocation Loc;
  std::string Text; ///< "file:line:col: message", or the message alone.
};

/// What parseFile does with errors.
enum class ParseErrors {
  /// Any error fails the parse.
  Fail,
  /// Errors are recorded and block only the targets whose definition, or a
  /// declaration they use, holds one (DESIGN section 8); a fatal error, which
  /// hides whatever follows it, still fails the parse.
  BlockTheirTargets,
};

/// A parsed main file. Owns the AST; targets refer to offsets only.
struct ParsedFile {
  std::unique_ptr<clang::ASTUnit> AST;
  std::string File;
  clang::tooling::CompileCommand Command; ///< The command as given.
  std::vector<std::string> ParseArgs;     ///< What Clang was given.
  /// The command's options Clang does not know, left out of ParseArgs
  /// (with their values): the build still uses them.
  std::vector<std::string> UnknownFlags;
  /// The errors Clang reported (only ParseErrors::BlockTheirTargets parses
  /// succeed with any).
  std::vector<ClangError> Errors;
  ~ParsedFile();
  ParsedFile();
  ParsedFile(ParsedFile &&);
  ParsedFile &operator=(ParsedFile &&);
};

/// Parses \p File with \p Command adjusted for Clang (NvccAdjuster.h).
/// \p Contents, when given, replaces the file's text on disk (an editor's
/// unsaved buffer, or a variant). Diagnostics are printed to \p DiagOS. With
/// ParseErrors::Fail any error fails the parse; with BlockTheirTargets errors
/// are recorded for discoverTargets, which refuses the targets they touch:
/// matchers fire on a broken AST and give wrong names and ranges (DESIGN
/// section 8). \p SyntaxError, when given, is set when an error was a parse
/// or lexical one (the text is not C++ at all), as opposed to a semantic one.
llvm::Expected<ParsedFile>
parseFile(const clang::tooling::CompileCommand &Command, llvm::StringRef File,
          const ParseSettings &Settings, llvm::raw_ostream &DiagOS,
          std::optional<llvm::StringRef> Contents = std::nullopt,
          bool *SyntaxError = nullptr, ParseErrors Errors = ParseErrors::Fail);

/// Lists the function and kernel definitions written in the main file, in
/// source order. A definition that holds one of the parse's errors, or uses a
/// declaration that does (or that Clang marked invalid), is left out and, when
/// \p Blocked is given, appended to it with the reason.
/// True when \p Host, a CUDA file's host-only parse, may hide definitions
/// that only the device pass sees: its text tests `__CUDA_ARCH__` (or
/// `__NVPTX__`), the macros that tell the two passes apart.
bool needsDeviceParse(const ParsedFile &Host);

/// The device-side parse (`--cuda-device-only`, the architecture of the
/// command) of the file \p Host parsed host-only, on the same text.
llvm::Expected<ParsedFile>
parseDeviceSide(const ParsedFile &Host, llvm::raw_ostream &DiagOS,
                ParseErrors Errors = ParseErrors::BlockTheirTargets);

std::vector<Target>
discoverTargets(ParsedFile &Parsed,
                std::vector<BlockedTarget> *Blocked = nullptr);

/// The definition of \p T in \p Parsed (the one whose text ends where the
/// target's does), or null.
const clang::FunctionDecl *findTargetDecl(ParsedFile &Parsed, const Target &T);

/// Sorts by measured share when every target has one, else by the static
/// estimate; ties keep source order.
void rankTargets(std::vector<Target> &Targets);

/// How --target names \p T among \p All: its name, or NAME:LINE where
/// another definition of \p All has the same name (overloads).
std::string targetSelector(const Target &T, llvm::ArrayRef<Target> All);

/// The targets named by \p Names (qualified names, comma-separated), in that
/// order; with no names, the first (top-ranked) target. An unknown name is an
/// error listing the targets there are; a name in \p Blocked is an error
/// saying why it cannot be optimised.
llvm::Expected<std::vector<Target>>
selectTargets(const std::vector<Target> &Ranked, llvm::StringRef Names,
              llvm::ArrayRef<BlockedTarget> Blocked = {});

} // namespace maxcode

#endif // MAXCODE_FRONTEND_TARGET_H
