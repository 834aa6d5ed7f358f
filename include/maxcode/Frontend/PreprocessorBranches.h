//===-- PreprocessorBranches.h - What each pass compiles -------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A rule reads one pass's AST: the branches of `#if` that pass compiles. An
// edit that spans a conditional directive rewrites branches the rule never
// saw, and an edit in device code that the device pass skips (the `#else`
// of `#if __CUDA_ARCH__ >= 530` for sm_90) changes nothing the GPU runs.
// These say where those are.
//
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_FRONTEND_PREPROCESSORBRANCHES_H
#define MAXCODE_FRONTEND_PREPROCESSORBRANCHES_H

#include "maxcode/Frontend/Target.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace maxcode {

/// A byte range [Begin, End) of a main file.
struct ByteRange {
  unsigned Begin = 0;
  unsigned End = 0;
  bool contains(unsigned Offset) const {
    return Offset >= Begin && Offset < End;
  }
};

/// The offsets of the `#` of every conditional directive (`#if`, `#ifdef`,
/// `#ifndef`, `#elif*`, `#else`, `#endif`) in \p Text, by Clang's raw lexer:
/// in every branch, whichever a pass compiles.
std::vector<unsigned> conditionalDirectiveOffsets(llvm::StringRef Text);

/// The ranges of \p Host's main file that the device-side pass of a CUDA
/// file (its target architecture's `__CUDA_ARCH__`) skips, each from the
/// directive that opens it to the end of the one that closes it. Empty where
/// the file needs no device pass (needsDeviceParse). Preprocessing only.
llvm::Expected<std::vector<ByteRange>>
deviceSkippedRanges(const ParsedFile &Host);

} // namespace maxcode

#endif // MAXCODE_FRONTEND_PREPROCESSORBRANCHES_H
