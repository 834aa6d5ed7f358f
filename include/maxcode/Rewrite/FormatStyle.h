//===-- maxcode/Rewrite/FormatStyle.h - The style of edited code -*- C++
//-*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// One answer to "in what style is this file's new code written": the
/// `.clang-format` clang-format itself would use for the file, found by one
/// lookup, used by the rules for what they write and by `--apply` and the
/// exported fixes for what they reformat.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_REWRITE_FORMATSTYLE_H
#define MAXCODE_REWRITE_FORMATSTYLE_H

#include "clang/Format/Format.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace maxcode {

/// The `.clang-format` (or `_clang-format`) in \p File's folder or above it,
/// as clang-format looks for it; std::nullopt when there is none.
std::optional<std::string> findStyleFile(llvm::StringRef File);

/// The style the rules write \p File's new code in: its `.clang-format`
/// when it has one, else LLVM's style with the file's own indentation (tabs
/// or N spaces) and brace placement, keeping its line breaks and blank
/// lines; includes are never sorted (the rules add the headers they need,
/// the user's order stays).
clang::format::FormatStyle styleForEdits(llvm::StringRef File,
                                         llvm::StringRef Code);

} // namespace maxcode

#endif // MAXCODE_REWRITE_FORMATSTYLE_H
