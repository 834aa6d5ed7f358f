//===-- maxcode/Support/TreeCopy.h - Copying a project's tree ---*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Project mode builds every variant in a copy of the user's tree (DESIGN
/// section 7: the user's tree is read, never written). The copy is made
/// here, not by a shell command: copy-on-write clones where the file system
/// can (FICLONE), never hard links into the user's tree, symlinks kept only
/// when they point inside the tree (the copy never reaches outside it), and
/// `.git` and the excluded folders (the scratch root, the store) left out.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_SUPPORT_TREECOPY_H
#define MAXCODE_SUPPORT_TREECOPY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>
#include <vector>

namespace maxcode {

struct TreeStats {
  uint64_t Files = 0;
  uint64_t Bytes = 0;
  /// Symlinks left out because they point outside the tree, relative to it.
  std::vector<std::string> SkippedLinks;
};

/// What copyTree would copy from \p Root, without copying it. Stops with an
/// error once the size passes \p MaxBytes (0: no limit).
llvm::Expected<TreeStats> measureTree(llvm::StringRef Root,
                                      llvm::ArrayRef<std::string> Excluded,
                                      uint64_t MaxBytes = 0);

/// Copies \p Root into \p Dest (created; must not exist inside \p Root),
/// keeping each file's mode and times.
llvm::Expected<TreeStats> copyTree(llvm::StringRef Root, llvm::StringRef Dest,
                                   llvm::ArrayRef<std::string> Excluded);

/// Changes the owner of \p Path and everything in it (never following a
/// symlink); for handing a tree copy to the sandbox's user.
llvm::Error chownTree(llvm::StringRef Path, int Uid, int Gid);

/// Removes \p Path and everything in it, first making what a program left
/// unwritable or unreadable (mode 000 folders) removable again.
llvm::Error removeTree(llvm::StringRef Path);

/// "12.3 MiB".
std::string formatBytes(uint64_t Bytes);

} // namespace maxcode

#endif // MAXCODE_SUPPORT_TREECOPY_H
