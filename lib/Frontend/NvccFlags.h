//===-- NvccFlags.h - The table of nvcc's flags -----------------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Private to lib/Frontend: the one table of nvcc flags Clang does not
/// understand (NvccFlags.cpp), and how a flag is looked up in it; the
/// translation of a command is NvccAdjuster.cpp's.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_LIB_FRONTEND_NVCCFLAGS_H
#define MAXCODE_LIB_FRONTEND_NVCCFLAGS_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace maxcode {
namespace nvcc {

/// What to do with one nvcc flag.
enum class NvccAction {
  Drop,          ///< nvcc-only, no meaning for parsing.
  Arch,          ///< -arch/-code: the value names an architecture.
  Gencode,       ///< -gencode arch=...,code=...
  HostFlags,     ///< -Xcompiler a,b: host compiler flags, passed on.
  HostCompiler,  ///< -ccbin X: which host compiler (for its own headers).
  IncludePath,   ///< --include-path D -> -I D.
  SystemInclude, ///< --system-include D -> -isystem D.
  PreInclude,    ///< --pre-include F -> -include F.
  DefineMacro,   ///< --define-macro M -> -D M.
  UndefineMacro, ///< --undefine-macro M -> -U M.
  Compile,       ///< --compile -> -c.
  FastMath,      ///< --use_fast_math -> -ffast-math.
  Rdc,           ///< -rdc=true -> -fgpu-rdc.
  DeviceC,       ///< -dc -> -fgpu-rdc -c.
  Std,           ///< -std c++17 / --std=c++17 -> -std=c++17.
  OptionsFile,   ///< --options-file F: inline F.
  DefaultStream, ///< --default-stream per-thread -> a macro.
  Language,      ///< -x cu -> -x cuda.
  LinkOnly,      ///< -dlink / -lib / -link: not a compile command.
  WarningKinds,  ///< -Werror cross-execution-space-call: nvcc\'s, dropped.
  Translate,     ///< Clang's own spelling (the row's Replacement, and the
                 ///< value joined to it when the flag takes one).
};

/// One row: the spelling, whether it takes a value (as the next argument or
/// joined with '='), and the action.
struct NvccFlag {
  const char *Spelling;
  bool TakesValue;
  NvccAction Action;
  const char *Replacement = nullptr; ///< For NvccAction::Translate.
};

/// Finds the table row for \p Arg; \p Value receives a joined value. nvcc
/// takes every long flag with one dash or two (-compress-mode=size is
/// --compress-mode=size), so a spelling the table lacks is looked up with
/// the other number of dashes too.
const NvccFlag *lookupNvccFlag(llvm::StringRef Arg, std::string &Value,
                               bool &Joined);

/// True when \p V is a comma-separated list of nvcc's own warning kinds (the
/// values of its -Werror), none of which Clang knows.
bool isNvccWarningKindList(llvm::StringRef V);

} // namespace nvcc
} // namespace maxcode

#endif // MAXCODE_LIB_FRONTEND_NVCCFLAGS_H
