//===-- FindUpward.cpp - A file in a folder or above ----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/FindUpward.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

std::optional<std::string>
maxcode::findUpward(llvm::StringRef Dir,
                    llvm::ArrayRef<llvm::StringRef> Names) {
  llvm::SmallString<256> Abs(Dir);
  llvm::sys::fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  for (llvm::StringRef D = Abs; !D.empty();
       D = llvm::sys::path::parent_path(D)) {
    for (llvm::StringRef Name : Names) {
      llvm::SmallString<256> Candidate(D);
      llvm::sys::path::append(Candidate, Name);
      if (llvm::sys::fs::is_regular_file(Candidate))
        return std::string(Candidate);
    }
  }
  return std::nullopt;
}
