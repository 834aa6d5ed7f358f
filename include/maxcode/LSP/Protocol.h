//===-- maxcode/LSP/Protocol.h - Positions, URIs and edits ------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The computations on LLVM's LSP types that the server needs and LLVM
/// lacks: positions (0-based line, UTF-16 code units) to and from byte
/// offsets, applying a document change, the local path of a `file://` or
/// `test:///` URI, choosing the targets a selection touches by their line
/// range, and the text edit that turns one file text into another. They are
/// kept free of JSON so they can be tested alone.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_LSP_PROTOCOL_H
#define MAXCODE_LSP_PROTOCOL_H

#include "maxcode/Frontend/Target.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/LSP/Protocol.h"
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace maxcode {
namespace lsp {

// Positions, ranges and edits are LLVM's (llvm/Support/LSP/Protocol.h); a
// position's character counts UTF-16 code units, the encoding every client
// must support, which LLVM's own conversions (through SourceMgr, in bytes)
// do not: these functions convert.
using llvm::lsp::Position;
using llvm::lsp::Range;
using llvm::lsp::TextEdit;

/// The byte offset of \p P in \p Text. A character past the end of its line
/// means the end of that line (clients disagree about line ends); a line past
/// the end of the text, or a negative value, is an error.
llvm::Expected<size_t> positionToOffset(llvm::StringRef Text, Position P);

/// The LSP position of byte \p Offset in \p Text (clamped to its size).
Position offsetToPosition(llvm::StringRef Text, size_t Offset);

/// Applies one `contentChanges` entry of `textDocument/didChange`: with a
/// range, an incremental change; without, the new full text. On error \p Text
/// is left as it was.
llvm::Error applyContentChange(std::string &Text,
                               const std::optional<Range> &Changed,
                               llvm::StringRef NewText);

/// The path a `file://` URI names (percent-escapes decoded), or, when
/// \p TestRoot is given, the path under it that a `test:///` URI names (lit
/// transcripts use those so they do not depend on where the tree is).
llvm::Expected<std::string>
uriToPath(llvm::StringRef URI,
          std::optional<llvm::StringRef> TestRoot = std::nullopt);

/// The lines a selection covers, 1-based and inclusive as Target counts
/// them. A selection of whole lines ends at character 0 of the line after
/// them; that line is not part of it.
std::pair<unsigned, unsigned> selectedLines(const Range &Selection);

/// The indices of the targets whose lines meet [FirstLine, LastLine], the
/// innermost (shortest) first, so the action for the function under the
/// cursor comes before that of a function around it.
std::vector<size_t> targetsOnLines(llvm::ArrayRef<Target> Targets,
                                   unsigned FirstLine, unsigned LastLine);

/// One edit turning \p Before into \p After: the lines that differ, from the
/// first changed line to the last. None when the texts are equal. Whole lines
/// keep the edit readable in an editor's preview and its undo step small.
std::optional<TextEdit> computeLineEdit(llvm::StringRef Before,
                                        llvm::StringRef After);

} // namespace lsp
} // namespace maxcode

#endif // MAXCODE_LSP_PROTOCOL_H
