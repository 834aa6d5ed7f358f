//===-- FormatStyle.cpp - The style of edited code ------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Rewrite/FormatStyle.h"
#include "maxcode/Support/Debug.h"
#include "maxcode/Support/FindUpward.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/LineIterator.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#define DEBUG_TYPE "maxcode-rules"

using namespace clang;

std::optional<std::string> maxcode::findStyleFile(llvm::StringRef File) {
  llvm::SmallString<256> Abs(File);
  llvm::sys::fs::make_absolute(Abs);
  return findUpward(llvm::sys::path::parent_path(Abs),
                    {".clang-format", "_clang-format"});
}

/// LLVM's style with the file's own indentation (tabs or N spaces), brace
/// placement and line breaks: what a file without a .clang-format gets, so
/// that the lines a rule changes look like their neighbours.
static format::FormatStyle styleOfFile(llvm::StringRef Code) {
  format::FormatStyle S = format::getLLVMStyle();
  unsigned TabLines = 0, SpaceLines = 0, BraceLines = 0, OpenLines = 0;
  unsigned MinSpaces = 0;
  std::unique_ptr<llvm::MemoryBuffer> Buf =
      llvm::MemoryBuffer::getMemBuffer(Code, "", false);
  for (llvm::line_iterator L(*Buf, /*SkipBlanks=*/true); !L.is_at_end(); ++L) {
    llvm::StringRef Line = *L;
    llvm::StringRef Body = Line.ltrim(" \t");
    if (Body.starts_with("*") || Body.starts_with("//") || Body.empty())
      continue;
    if (Line.starts_with("\t"))
      ++TabLines;
    else if (Line.starts_with(" ")) {
      ++SpaceLines;
      unsigned N = Line.size() - Line.ltrim(' ').size();
      if (!MinSpaces || N < MinSpaces)
        MinSpaces = N;
    }
    if (Body.rtrim() == "{")
      ++BraceLines;
    else if (Body.rtrim().ends_with("{"))
      ++OpenLines;
  }
  if (TabLines > SpaceLines) {
    S.UseTab = format::FormatStyle::UT_ForIndentation;
    S.IndentWidth = S.TabWidth = 4;
  } else if (MinSpaces >= 2 && MinSpaces <= 8) {
    S.IndentWidth = MinSpaces;
  }
  if (BraceLines > OpenLines)
    S.BreakBeforeBraces = format::FormatStyle::BS_Allman;
  // Keep the file's line breaks and blank lines: a rule's edit reflows
  // nothing else.
  S.ColumnLimit = 0;
  S.MaxEmptyLinesToKeep = 1000;
  S.KeepEmptyLines.AtStartOfBlock = true;
  S.BreakTemplateDeclarations = format::FormatStyle::BTDS_Leave;
  return S;
}

format::FormatStyle maxcode::styleForEdits(llvm::StringRef File,
                                           llvm::StringRef Code) {
  format::FormatStyle S = styleOfFile(Code);
  if (findStyleFile(File)) {
    llvm::Expected<format::FormatStyle> FromFile =
        format::getStyle("file", File, "LLVM", Code);
    if (FromFile) {
      S = *FromFile;
    } else {
      // The file's own style, then; a broken .clang-format is clang-format's
      // to report.
      llvm::Error E = FromFile.takeError();
      MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": " << File
                                 << ": .clang-format not used: "
                                 << llvm::toString(std::move(E)) << "\n");
      llvm::consumeError(std::move(E));
    }
  }
  // The rules add the headers they need; the user's order stays.
  S.SortIncludes.Enabled = false;
  return S;
}
