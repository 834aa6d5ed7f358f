//===-- maxcode/Rewrite/Screen.h - The static screen of variants -*- C++
//-*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What every variant passes before it is built (DESIGN section 4, rule 7),
/// on one Clang parse of its text:
///
///  - it parses (a variant that is not C++ at all is rejected);
///  - it adds, relative to the original, no process creation, no measurement
///    awareness (resource limits, the environment, tracing, /proc), no
///    clock, no socket, no inline assembly, and defines none of those
///    library names; calls the original already makes stay allowed;
///  - under --scope=target, the code outside the target is unchanged *after
///    preprocessing*: the token stream the compiler sees before the target
///    (headers aside, since #include lines may change) and after it (headers
///    included) is the original's, pragmas included, so no spelling of a
///    directive (`%:define`, a line splice, `_Pragma`) rewrites the harness.
///
/// When the build compiler is GCC, each parse is given GCC's predefined
/// macros for the command instead of Clang's, so that it reads the branches
/// GCC compiles (`#ifndef __clang__`, `#ifdef __GNUC__`), and a file that
/// includes itself is judged as the main file it is.
///
/// A CUDA file whose text tests `__CUDA_ARCH__` is screened in both passes,
/// host and device, each with the same judgements: what one pass skips, the
/// other compiles. In a pass that does not see the target at all (a device
/// function under `#if __CUDA_ARCH__`, in the host pass), the whole stream
/// must be the original's.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_REWRITE_SCREEN_H
#define MAXCODE_REWRITE_SCREEN_H

#include "maxcode/Frontend/Target.h"
#include "maxcode/Rewrite/Scope.h"
#include "maxcode/Support/Options.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace maxcode {

/// Kinds of calls the screen looks for. Only FileSystem is never rejected:
/// the summary of an applied winner warns about it.
enum class ApiCategory {
  ProcessCreation,
  MeasurementAwareness,
  Clock,
  Socket,
  InlineAssembly,
  /// Ending the process early (exit, _exit, abort, ...): after printing a
  /// number of its choosing, before the harness prints the real one.
  ProcessExit,
  /// Code that ties the binary to an instruction set or a machine: a GCC
  /// `target` pragma, a `target` attribute, an intrinsics header. Allowed
  /// with --allow-isa (its key here is "isa").
  InstructionSet,
  FileSystem,
};

/// "process creation", "measurement awareness", "clock", "socket",
/// "inline assembly", "process exit", "instruction set", "file system".
llvm::StringRef apiCategoryName(ApiCategory C);
/// The spelling --allow-api takes for a whole category: "process",
/// "measurement", "clock", "socket", "asm", "exit", "isa" (what --allow-isa
/// allows), "filesystem".
llvm::StringRef apiCategoryKey(ApiCategory C);

/// The category of \p Symbol, a library function or variable by its C name
/// ("clock_gettime", "dlsym"), when the screen watches it.
std::optional<ApiCategory> apiCategoryOf(llvm::StringRef Symbol);

/// Whether --allow-api's \p AllowApis (names or category keys) allow
/// \p Name of category \p C.
bool apiAllowedByUser(llvm::ArrayRef<std::string> AllowApis,
                      llvm::StringRef Name, ApiCategory C);

/// One screened use in a file.
struct ApiUse {
  ApiCategory Category = ApiCategory::ProcessCreation;
  std::string Name; ///< "fork", "std::chrono::steady_clock::now", "/proc".
  unsigned Line = 0;
  bool Definition = false; ///< The file defines a function of that name.
};

/// One token of the preprocessed stream, reduced to what comparing two
/// streams needs.
struct ScreenToken {
  uint64_t Hash = 0;   ///< Kind and spelling.
  uint32_t Offset = 0; ///< Expansion offset in the main file.
  uint32_t Line = 0;   ///< Its line there.
  bool MainFile = false;
  bool Pragma = false;    ///< A pragma (directive or _Pragma), its text hashed.
  uint8_t Brace = 0;      ///< 1 for '{', 2 for '}'.
  uint8_t PragmaKind = 0; ///< 1 push, 2 pop, 0 other (pragmas only).
};

/// What one parse of a file gives the screen.
struct FileScan {
  bool SyntaxError = false;
  std::string FirstError; ///< "line N: message", for a syntax error.
  std::vector<ApiUse> Uses;
  std::vector<ScreenToken> Tokens;
};

/// Which compilation of a CUDA file a scan reads.
enum class ScanPass { Host, Device };

/// Parses \p Text as \p File with the translation unit's command (for CUDA,
/// as the host pass or the device pass reads it). \p BuildMacros, when
/// given, are the build compiler's predefined macros (gccPredefinedMacros),
/// which then replace Clang's own.
llvm::Expected<FileScan>
scanFile(const clang::tooling::CompileCommand &Command, llvm::StringRef File,
         const ParseSettings &Settings, llvm::StringRef Text,
         ScanPass Pass = ScanPass::Host, llvm::StringRef BuildMacros = "");

class VariantScreen {
public:
  /// Scans the original once; \p AllowedApis are --allow-api's names or
  /// category keys; \p Names name the settings in the reasons; \p
  /// BuildMacros, when the build compiler is not Clang, its predefined
  /// macros (every scan reads what that compiler compiles).
  static llvm::Expected<std::unique_ptr<VariantScreen>>
  create(const clang::tooling::CompileCommand &Command, llvm::StringRef File,
         const ParseSettings &Settings, llvm::StringRef Original,
         const Target &T, EditScope Scope, std::vector<std::string> AllowedApis,
         OptionNames Names, std::string BuildMacros = "");

  /// Why \p VariantText is rejected ("does not parse: ...", "adds fork
  /// (process creation) at line 12", "line 30 (after the target) changed
  /// after preprocessing ..."), or nothing when it may be built.
  std::optional<std::string> screen(llvm::StringRef VariantText) const;

  /// The file-system, process and network calls \p VariantText adds: what
  /// the summary of an applied winner warns about. Fails when the variant
  /// cannot be scanned, so that "none" is never said for "not checked".
  llvm::Expected<std::vector<ApiUse>>
  addedCalls(llvm::StringRef VariantText) const;

  /// The same judgements on a host-pass scan made elsewhere (tests).
  std::optional<std::string> judge(const FileScan &Variant) const {
    return judge(Original, Variant);
  }

private:
  VariantScreen() = default;
  std::optional<std::string> judge(const FileScan &Orig,
                                   const FileScan &Variant) const;
  bool allowed(const FileScan &Orig, const ApiUse &U) const;
  std::optional<std::string> judgeScope(const FileScan &Orig,
                                        const FileScan &Variant) const;
  std::string outsideScope(unsigned Line, llvm::StringRef Where) const;

  clang::tooling::CompileCommand Command;
  std::string File;
  ParseSettings Settings;
  Target T;
  EditScope Scope = EditScope::Target;
  std::vector<std::string> AllowedApis;
  OptionNames Names;
  std::string BuildMacros;
  FileScan Original;
  /// The device pass of a CUDA file that tests `__CUDA_ARCH__`.
  std::optional<FileScan> OriginalDevice;
  std::string OriginalText;
};

} // namespace maxcode

#endif // MAXCODE_REWRITE_SCREEN_H
