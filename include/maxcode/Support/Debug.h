//===-- maxcode/Support/Debug.h - -debug-only in every build ----*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// LLVM_DEBUG, kept in release builds. LLVM_DEBUG compiles to nothing under
/// NDEBUG, and both Debian's LLVM and a release build of this tool are
/// NDEBUG, so a user asking why a rule or a proposer dropped a variant
/// would get nothing. MAXCODE_DEBUG runs its statements when the tool is
/// given -debug, or -debug-only naming this file's DEBUG_TYPE:
///
///   #define DEBUG_TYPE "maxcode-rules"
///   MAXCODE_DEBUG(llvm::dbgs() << "dropped " << Id << ": " << Why << "\n");
///
///   clang-maxcode --list-variants -debug-only=maxcode-rules ...
///
/// It is LLVM's own machinery (llvm::DebugFlag, isCurrentDebugType, which
/// libLLVM exports in every build). An LLVM built with assertions registers
/// -debug and -debug-only itself; with any other (Debian's), the tools
/// register them and pass them to enableDebugOutput.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_SUPPORT_DEBUG_H
#define MAXCODE_SUPPORT_DEBUG_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Debug.h"
#include <string>

namespace maxcode {

/// True when -debug was given, or -debug-only named \p Type.
bool isDebugTypeOn(const char *Type);

/// What the tools' -debug (\p All) and -debug-only (\p Types, each a
/// comma-separated list) turn on.
void enableDebugOutput(bool All, llvm::ArrayRef<std::string> Types);

} // namespace maxcode

#define MAXCODE_DEBUG(...)                                                     \
  do {                                                                         \
    if (::maxcode::isDebugTypeOn(DEBUG_TYPE)) {                                \
      __VA_ARGS__;                                                             \
    }                                                                          \
  } while (false)

#endif // MAXCODE_SUPPORT_DEBUG_H
