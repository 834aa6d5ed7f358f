//===-- maxcode/Frontend/NvccAdjuster.h - Commands for parsing -*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Turning a project's compile command into one Clang 22 can parse: nvcc
/// flags translated or dropped through one table (DESIGN section 8), the CUDA
/// 13 shim, the cccl folder, a single host-only pass, and the resource dir.
/// The project's own command is still what builds variants; this one is only
/// for parsing.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_FRONTEND_NVCCADJUSTER_H
#define MAXCODE_FRONTEND_NVCCADJUSTER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <functional>
#include <string>
#include <vector>

namespace maxcode {

/// Where the parser finds what a tool binary outside LLVM's bin/ lacks.
struct ParseSettings {
  std::string ClangPath;   ///< argv[0] given to the driver for nvcc entries.
  std::string ResourceDir; ///< Clang's builtin headers.
  std::string CudaPath;    ///< CUDA toolkit root.
  /// The CUDA compatibility header force-included into CUDA parses (what
  /// nvcc's host pass has and Clang's lacks, docs/CUDA.md); empty for none.
  std::string CompatHeader;
  /// The include folder of a GCC host compiler (given its command name), put
  /// after every other folder so that what GCC finds and Clang's resource
  /// folder lacks (omp.h) is found; empty when there is none. Not set: no
  /// folder is added.
  std::function<std::string(llvm::StringRef Compiler)> HostCompilerIncludeDir;
  /// Where CUDA parses keep their precompiled prelude (Prelude.h); empty:
  /// none is made or used.
  std::string PreludeCacheDir;
};

/// Settings for the running tool: the resource folder is found relative to
/// the executable (bin/../lib/clang-maxcode), the rest comes from the build
/// configuration, overridable with MAXCODE_CUDA_PATH and
/// MAXCODE_CLANG_RESOURCE_DIR in the environment.
ParseSettings getDefaultParseSettings(const char *Argv0, void *MainAddr);

/// GCC's own include folder (`Compiler -print-file-name=include`), asked
/// once per compiler and remembered; empty when \p Compiler is not GCC or
/// cannot be run. A folder as \p Compiler (nvcc's -ccbin DIR) means its g++.
std::string findGccIncludeDir(llvm::StringRef Compiler);

/// True when \p Argv (a compile command) runs GCC: g++, gcc, c++ or cc, not
/// clang or nvcc.
bool isGccCommand(llvm::ArrayRef<std::string> Argv);

/// The macros GCC predefines for the compile command \p Argv (its language,
/// standard, optimisation, target and -D/-U flags): `Argv -dM -E` on an
/// empty input, as `#define` lines; empty when it cannot be run. What a
/// parse given these (`-undef`) sees is what GCC compiles: its
/// `#ifndef __clang__` branches, not Clang's.
std::string gccPredefinedMacros(llvm::ArrayRef<std::string> Argv,
                                llvm::StringRef Directory);

/// True when argv[0] is nvcc.
bool isNvccCommand(llvm::ArrayRef<std::string> Args);

/// True when \p Flags (no compiler name) are spelled for nvcc: one of them
/// Clang's driver does not know and nvcc's table does, `-Xcompiler`, or
/// `-arch` with a GPU architecture (Clang's `-arch` is Darwin's).
bool isSpelledForNvcc(llvm::ArrayRef<std::string> Flags);

/// True when \p File's name is a CUDA source's: `.cu` or `.cuh`, in any
/// case.
bool isCudaFileName(llvm::StringRef File);

/// The one answer to "is this CUDA?": the compile command \p Args compiles
/// \p File as CUDA. nvcc, or `-x cuda` (`-x cu`, `-xcuda`), says so; another
/// `-x` says not; otherwise the file's name does (isCudaFileName).
bool compilesAsCuda(llvm::ArrayRef<std::string> Args, llvm::StringRef File);

/// The newest GPU architecture Clang 22 knows; newer ones are parsed as it.
constexpr const char *NewestClangGpuArch = "sm_121";
/// The oldest GPU architecture Clang knows; older ones are parsed as it.
constexpr const char *OldestClangGpuArch = "sm_20";

/// Maps an nvcc architecture name (sm_80, compute_90, sm_100a, ...) to the
/// --cuda-gpu-arch value used for parsing; empty for names that are not a
/// single architecture (native, all, all-major).
std::string clangGpuArchFor(llvm::StringRef NvccArch);

/// Translates an nvcc command line (argv[0] included) into clang arguments.
/// --options-file and @file are inlined (relative to \p Directory), nvcc-only
/// flags are translated or dropped as the table in NvccAdjuster.cpp says, and
/// exactly one --cuda-gpu-arch is kept. Flags dropped are appended to
/// \p Dropped when it is given.
std::vector<std::string>
translateNvccArguments(llvm::ArrayRef<std::string> Args,
                       llvm::StringRef Directory, const ParseSettings &S,
                       std::vector<std::string> *Dropped = nullptr);

/// The full adjustment for parsing \p File: translate nvcc commands, then add
/// what Clang needs (resource dir; GCC's include folder after the others for
/// GCC and nvcc commands; for CUDA: the compatibility header, the shim, cccl,
/// --cuda-path, host-only, -Wno-unknown-cuda-version), no error limit, and
/// leave out every option Clang's driver does not know or support: those
/// are appended to \p Unknown (with their value) when it is given.
std::vector<std::string>
adjustForParsing(llvm::ArrayRef<std::string> Args, llvm::StringRef File,
                 llvm::StringRef Directory, const ParseSettings &S,
                 std::vector<std::string> *Unknown = nullptr);

} // namespace maxcode

#endif // MAXCODE_FRONTEND_NVCCADJUSTER_H
