//===-- maxcode/Rewrite/Apply.h - Writing the winner back -------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The last step of a run (DESIGN section 1, step 5): the winning variant
/// becomes clang::tooling::Replacements on the file as it was read at the
/// start of the run, formatted with the project's own .clang-format on the
/// changed lines only. The same replacements are either written in place
/// (--apply: refused if the file changed since it was read; written to a
/// temporary file and renamed, so no reader ever sees a partial file) or
/// exported as the diagnostics YAML clang-apply-replacements reads
/// (--export-fixes), so that both give the same file.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_REWRITE_APPLY_H
#define MAXCODE_REWRITE_APPLY_H

#include "maxcode/Rewrite/Scope.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include <string>

namespace maxcode {

/// The winner's edits to one file.
struct FixSet {
  std::string File;     ///< Absolute path.
  std::string Original; ///< The file's bytes as read at the start of the run.
  /// Edits on Original, formatting included; what both --apply and
  /// --export-fixes write.
  clang::tooling::Replacements Replaces;
  std::string Result; ///< Original with Replaces applied.
  /// Where the style came from: the .clang-format (or _clang-format) found
  /// upward from File, or "none" when there is none and nothing was
  /// reformatted.
  std::string StyleSource;
};

/// Line replacements turning \p Original into \p Edited: one per changed run
/// of lines, so unchanged lines are never rewritten.
llvm::Expected<clang::tooling::Replacements>
replacementsBetween(llvm::StringRef File, llvm::StringRef Original,
                    llvm::StringRef Edited);

/// The fixes of \p VariantText, a whole edited copy of \p File whose text at
/// the start of the run was \p Original: checked against \p Scope again
/// (nothing outside what the scope allows is ever written), then formatted
/// on the changed lines with the style of the .clang-format found upward
/// from \p File (unformatted when there is none).
/// With \p Reformat false the edits are taken as they are: the text that was
/// verified, formatted already, is exactly what is written.
llvm::Expected<FixSet> computeFixes(llvm::StringRef File,
                                    llvm::StringRef Original,
                                    llvm::StringRef VariantText,
                                    const Target &T, EditScope Scope,
                                    bool Reformat = true);

/// Writes \p Contents to \p Path through a temporary file in the same folder
/// that is renamed over \p Path: readers see the old file or the new one,
/// never a partial one, and an interrupted write leaves the old file (the
/// temporary file is removed on failure and on SIGINT/SIGTERM). The old
/// file's permissions are kept. \p BeforeRename runs after the temporary
/// file is complete and right before the rename; an error from it abandons
/// the write.
/// A symlink is written through: its target is replaced and the link stays.
/// The file keeps its owner and mode (a file that did not exist gets the
/// umask's), and the folder is synced after the rename, so the new name is
/// on disk too.
llvm::Error writeFileAtomically(
    llvm::StringRef Path, llvm::StringRef Contents,
    llvm::function_ref<llvm::Error()> BeforeRename = [] {
      return llvm::Error::success();
    });

/// --apply: writes \p F.Result over \p F.File, atomically, after checking
/// that the file still holds \p F.Original; refuses (and changes nothing)
/// if it does not.
llvm::Error applyFixes(const FixSet &F);

/// --export-fixes: writes \p F as a clang::tooling::TranslationUnitDiagnostics
/// YAML document with one diagnostic, named "clang-maxcode", whose message is
/// \p Message and whose fix is \p F.Replaces (no diagnostic when there is
/// no edit). clang-apply-replacements applies it to give exactly what
/// applyFixes() writes.
llvm::Error exportFixes(const FixSet &F, llvm::StringRef YAMLPath,
                        llvm::StringRef Message);

} // namespace maxcode

#endif // MAXCODE_REWRITE_APPLY_H
