//===-- maxcode/Rewrite/Simplify.h - What a winner need not add -*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The declaration-level simplification of a winner (docs/Search.md, "A
/// winner a reviewer merges"): of what a winner adds to the original, the
/// helpers, types and variables nothing that stays uses are taken out, a
/// helper that is a copy of another (the same code but for the names of its
/// parameters and locals) is folded into it, and an #include that nothing
/// from it is used through is dropped. Clang says what uses what; the
/// result is parsed before it is returned, and what the original has is
/// never touched.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_REWRITE_SIMPLIFY_H
#define MAXCODE_REWRITE_SIMPLIFY_H

#include "maxcode/Frontend/Target.h"
#include "maxcode/Rewrite/Minimisation.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/Error.h"

namespace maxcode {

/// \p Winner, a variant of \p Original (the text of \p File, which
/// \p Command builds), without what it adds and nothing needs. Text equals
/// \p Winner when nothing can go. An error when \p Winner does not parse.
llvm::Expected<DeclSimplification>
simplifyDeclarations(const clang::tooling::CompileCommand &Command,
                     llvm::StringRef File, const ParseSettings &Settings,
                     llvm::StringRef Original, llvm::StringRef Winner);

/// The size of \p Winner's diff against \p Original: its lines, and the
/// declarations and includes it adds as Clang reads them (lines alone when
/// it does not parse).
DiffSize winnerSize(const clang::tooling::CompileCommand &Command,
                    llvm::StringRef File, const ParseSettings &Settings,
                    llvm::StringRef Original, llvm::StringRef Winner);

} // namespace maxcode

#endif // MAXCODE_REWRITE_SIMPLIFY_H
