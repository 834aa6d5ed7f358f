//===-- maxcode/Rewrite/Scope.h - What a variant may edit -------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The scope rules of DESIGN section 2. Under `target` a variant may change
/// the target's definition, add top-level declarations right before it, and
/// add or remove #include lines; anything else is how a search "wins" by
/// cheating (editing the harness, the timers, the checks). Under `file` the
/// whole file may change.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_REWRITE_SCOPE_H
#define MAXCODE_REWRITE_SCOPE_H

#include "maxcode/Frontend/Target.h"
#include "maxcode/Support/Options.h"
#include "llvm/Support/Error.h"

namespace maxcode {

enum class EditScope { Target, File };

llvm::StringRef editScopeName(EditScope S);

/// The scope a variant gets: the one \p Setting names, else (Default, DESIGN
/// section 2) the whole file for a C++ program whose tests are outside it
/// (program mode) and the target alone in project mode, where the project's
/// harness may share the file, and for CUDA. The one answer, for the search
/// and for --list-variants.
EditScope scopeOf(ScopeSetting Setting, bool ProgramMode, bool Cuda);

/// Checks \p VariantText against \p Original under \p Scope. The error says
/// what was edited out of scope, with the line in the original.
llvm::Error checkScope(llvm::StringRef Original, llvm::StringRef VariantText,
                       const Target &T, EditScope Scope);

/// How a `#pragma` whose text (after `pragma`) is \p Text reaches the code
/// after it: 1 when it pushes a state (`push`, `push_options`), 2 when it
/// pops one, 0 otherwise (it applies to everything after it). The screen
/// and checkScope read pragmas with this one answer.
int pragmaScopeKind(llvm::StringRef Text);

/// Where the target's definition is in \p VariantText, given that it passed
/// checkScope under EditScope::Target: the byte range between what was kept
/// before it and the unchanged text after it.
std::pair<size_t, size_t> locateTargetInVariant(llvm::StringRef Original,
                                                llvm::StringRef VariantText,
                                                const Target &T);

} // namespace maxcode

#endif // MAXCODE_REWRITE_SCOPE_H
