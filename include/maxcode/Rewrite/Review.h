//===-- maxcode/Rewrite/Review.h - What a reviewer asks about ---*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The review notes of a winner (docs/Output.md, "Review notes"): what it
/// adds that its tests cannot show and a maintainer asks about before
/// merging. Read from Clang's AST of the winner against the original's:
///
///  - mutable static or global state (a variable of static or thread
///    storage that is not const): shared between calls and threads, so a
///    function that was reentrant may no longer be;
///  - allocations never freed (new, new[], malloc and kin whose result is
///    neither freed in the file nor owned by a smart pointer or returned);
///  - compiler-specific extensions (GNU attributes, __builtin_ calls, GCC
///    and Clang pragmas, statement expressions, variable-length arrays,
///    __restrict, __int128, typeof): the code no longer builds everywhere
///    the original did.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_REWRITE_REVIEW_H
#define MAXCODE_REWRITE_REVIEW_H

#include "maxcode/Frontend/Target.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace maxcode {

enum class ReviewKind { MutableState, Leak, Extension };

/// "mutable-state", "leak", "extension".
llvm::StringRef reviewKindName(ReviewKind K);

struct ReviewNote {
  ReviewKind Kind = ReviewKind::Extension;
  unsigned Line = 0; ///< In the winner's text.
  std::string Text;  ///< One sentence, naming what and where.
};

/// What \p Winner adds to \p Original (the text of \p File, which \p Command
/// builds) that a reviewer should know, in line order; an error when
/// \p Winner does not parse.
llvm::Expected<std::vector<ReviewNote>>
reviewWinner(const clang::tooling::CompileCommand &Command,
             llvm::StringRef File, const ParseSettings &Settings,
             llvm::StringRef Original, llvm::StringRef Winner);

} // namespace maxcode

#endif // MAXCODE_REWRITE_REVIEW_H
