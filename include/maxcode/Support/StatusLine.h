//===-- maxcode/Support/StatusLine.h - A terminal's status line -*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A status line at the bottom of a terminal (a search's progress), as
/// ninja keeps one: everything else written through the stream clears it
/// first and draws it again below, so that a warning and the progress never
/// share a line. Where the stream is not a terminal there is no status
/// line, and the stream passes everything through unchanged.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_SUPPORT_STATUSLINE_H
#define MAXCODE_SUPPORT_STATUSLINE_H

#include "llvm/Support/raw_ostream.h"
#include <string>

namespace maxcode {

class StatusLine : public llvm::raw_ostream {
public:
  /// Writes to \p Out; \p Terminal says whether \p Out is displayed.
  StatusLine(llvm::raw_ostream &Out, bool Terminal);
  ~StatusLine() override;

  /// Shows \p Text as the status line (one line, no newline), in place of
  /// the one shown; nothing where the stream is not a terminal.
  void show(llvm::StringRef Text);
  /// Ends the status line: it stays on the screen, and what follows starts
  /// on the next line.
  void keep();
  bool terminal() const { return Terminal; }

  bool is_displayed() const override { return Out.is_displayed(); }
  bool has_colors() const override { return Out.has_colors(); }

private:
  void write_impl(const char *Ptr, size_t Size) override;
  uint64_t current_pos() const override { return Written; }
  /// Erases the status line where it is drawn.
  void erase();

  llvm::raw_ostream &Out;
  bool Terminal;
  std::string Status;   ///< The line to draw; empty: none.
  bool Drawn = false;   ///< Status is on the screen, the cursor after it.
  bool MidLine = false; ///< Other output left the cursor inside a line.
  uint64_t Written = 0;
};

} // namespace maxcode

#endif // MAXCODE_SUPPORT_STATUSLINE_H
