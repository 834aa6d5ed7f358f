//===-- maxcode/Support/FindUpward.h - A file in a folder or above -*- C++
//-*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The one upward search, as clang-format looks for `.clang-format` and
/// clangd for `compile_commands.json`: the folder of a file, then each folder
/// above it up to the root, the nearest match winning.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_SUPPORT_FINDUPWARD_H
#define MAXCODE_SUPPORT_FINDUPWARD_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace maxcode {

/// The first of \p Names (relative paths, tried in order in each folder)
/// that is a regular file in \p Dir or in a folder above it; \p Dir is made
/// absolute first. std::nullopt when none is found up to the root.
std::optional<std::string> findUpward(llvm::StringRef Dir,
                                      llvm::ArrayRef<llvm::StringRef> Names);

} // namespace maxcode

#endif // MAXCODE_SUPPORT_FINDUPWARD_H
