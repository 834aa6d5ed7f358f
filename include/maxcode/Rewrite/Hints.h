//===-- maxcode/Rewrite/Hints.h - Variants that only hint the compiler -*- C++
//-*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Whether a variant changes nothing but the compiler's hints: pragmas
/// (`#pragma GCC unroll`, `#pragma clang loop`, `#pragma GCC optimize`,
/// `_Pragma(...)`) and optimisation attributes (`__attribute__((hot))`,
/// `[[gnu::flatten]]`, `[[likely]]`). Such a variant leaves the program's
/// meaning as it was and mostly removes loop-overhead instructions, which an
/// instruction count credits and the CPU hides: it is credited only where
/// wall time confirms it (docs/Evaluation.md, "Compiler hints").
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_REWRITE_HINTS_H
#define MAXCODE_REWRITE_HINTS_H

#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace maxcode {

/// Whether \p Edited differs from \p Original and only in compiler hints:
/// their tokens, comments and layout aside, the two read the same. Judged
/// by Clang's raw lexer, so that no spelling of a directive (a line splice,
/// `%:pragma`) hides a change of code inside a "pragma".
bool changesOnlyCompilerHints(llvm::StringRef Original, llvm::StringRef Edited);

/// \p Edited with the compiler hints it adds to \p Original taken out, so
/// that the code's share of a variant that changes both can be measured
/// apart from the hints' (docs/Evaluation.md, "Compiler hints"); none when
/// \p Edited adds no hint. A hint is added when \p Original has fewer of
/// the same spelling: one it changes (`unroll 4` to `unroll 8`) is added
/// too, and the code alone has neither.
std::optional<std::string> withoutAddedHints(llvm::StringRef Original,
                                             llvm::StringRef Edited);

} // namespace maxcode

#endif // MAXCODE_REWRITE_HINTS_H
