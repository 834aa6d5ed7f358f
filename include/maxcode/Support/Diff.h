//===-- maxcode/Support/Diff.h - Line diffs of two texts --------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Line-based differences between two versions of a file: the hunks (used to
/// map a variant's lines back to what changed) and the unified diff `diff -u`
/// prints (what the tool shows people and what tests check).
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_SUPPORT_DIFF_H
#define MAXCODE_SUPPORT_DIFF_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace maxcode {

/// A run of lines replaced: lines [BeforeStart, BeforeStart + BeforeCount) of
/// the old text became lines [AfterStart, AfterStart + AfterCount) of the new
/// one. Lines are 1-based; a count may be 0 (a pure insertion or deletion),
/// and then the start is the line the change comes after, as in `diff -u`.
struct DiffHunk {
  unsigned BeforeStart = 0;
  unsigned BeforeCount = 0;
  unsigned AfterStart = 0;
  unsigned AfterCount = 0;
};

/// The changes turning \p Before into \p After, in order, each as small as a
/// shortest edit script (Myers' algorithm) makes it. Empty when equal.
std::vector<DiffHunk> diffLines(llvm::StringRef Before, llvm::StringRef After);

/// \p Before with only the hunks of \p Hunks (diffLines(Before, After)) whose
/// entry in \p Keep is true taken from \p After: every subset of a
/// variant's changes, as `patch` would make it from the hunks kept.
std::string applyHunks(llvm::StringRef Before, llvm::StringRef After,
                       llvm::ArrayRef<DiffHunk> Hunks,
                       const std::vector<bool> &Keep);

/// The unified diff of \p Before and \p After with \p Context lines around
/// each change, headed `--- BeforeName` / `+++ AfterName`; empty when the
/// texts are equal. A last line without a newline is marked as `diff` marks
/// it.
std::string unifiedDiff(llvm::StringRef Before, llvm::StringRef After,
                        llvm::StringRef BeforeName, llvm::StringRef AfterName,
                        unsigned Context = 3);

} // namespace maxcode

#endif // MAXCODE_SUPPORT_DIFF_H
