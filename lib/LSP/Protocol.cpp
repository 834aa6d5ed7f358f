//===-- Protocol.cpp - Positions, URIs and edits --------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/LSP/Protocol.h"
#include "maxcode/Frontend/CompilationDatabase.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include <algorithm>

using namespace maxcode;
using namespace maxcode::lsp;

/// Length of the UTF-8 sequence a byte starts; 1 for a byte that starts none
/// (a stray continuation or an invalid byte counts as one unit, as clangd
/// does).
static size_t utf8SequenceLength(unsigned char C) {
  if (C < 0x80)
    return 1;
  if ((C & 0xE0) == 0xC0)
    return 2;
  if ((C & 0xF0) == 0xE0)
    return 3;
  if ((C & 0xF8) == 0xF0)
    return 4;
  return 1;
}

/// UTF-16 code units in \p Text; code points outside the BMP take two.
static int utf16Length(llvm::StringRef Text) {
  int Units = 0;
  for (size_t I = 0; I < Text.size();) {
    size_t Len = std::min(utf8SequenceLength(Text[I]), Text.size() - I);
    Units += Len == 4 ? 2 : 1;
    I += Len;
  }
  return Units;
}

llvm::Expected<size_t> lsp::positionToOffset(llvm::StringRef Text, Position P) {
  if (P.line < 0 || P.character < 0)
    return llvm::createStringError("negative position " +
                                   std::to_string(P.line) + ":" +
                                   std::to_string(P.character));
  size_t LineStart = 0;
  for (int L = 0; L < P.line; ++L) {
    size_t NL = Text.find('\n', LineStart);
    if (NL == llvm::StringRef::npos)
      return llvm::createStringError("line " + std::to_string(P.line) +
                                     " is past the end of the document (" +
                                     std::to_string(L + 1) + " lines)");
    LineStart = NL + 1;
  }
  size_t LineEnd = Text.find('\n', LineStart);
  if (LineEnd == llvm::StringRef::npos)
    LineEnd = Text.size();
  else if (LineEnd > LineStart && Text[LineEnd - 1] == '\r')
    --LineEnd;
  size_t Offset = LineStart;
  for (int Units = 0; Units < P.character && Offset < LineEnd;) {
    size_t Len = std::min(utf8SequenceLength(Text[Offset]), LineEnd - Offset);
    Units += Len == 4 ? 2 : 1;
    Offset += Len;
  }
  return Offset;
}

Position lsp::offsetToPosition(llvm::StringRef Text, size_t Offset) {
  Offset = std::min(Offset, Text.size());
  llvm::StringRef Before = Text.take_front(Offset);
  Position P;
  P.line = static_cast<int>(Before.count('\n'));
  size_t LastNL = Before.rfind('\n');
  size_t LineStart = LastNL == llvm::StringRef::npos ? 0 : LastNL + 1;
  P.character = utf16Length(Before.drop_front(LineStart));
  return P;
}

llvm::Error lsp::applyContentChange(std::string &Text,
                                    const std::optional<Range> &Changed,
                                    llvm::StringRef NewText) {
  if (!Changed) {
    Text = NewText.str();
    return llvm::Error::success();
  }
  auto Begin = positionToOffset(Text, Changed->start);
  if (!Begin)
    return Begin.takeError();
  auto End = positionToOffset(Text, Changed->end);
  if (!End)
    return End.takeError();
  if (*End < *Begin)
    return llvm::createStringError("change range ends before it starts");
  Text.replace(*Begin, *End - *Begin, NewText.data(), NewText.size());
  return llvm::Error::success();
}

/// Decodes %XX escapes.
static llvm::Expected<std::string> percentDecode(llvm::StringRef S) {
  std::string Out;
  Out.reserve(S.size());
  for (size_t I = 0; I < S.size(); ++I) {
    if (S[I] != '%') {
      Out += S[I];
      continue;
    }
    if (I + 2 >= S.size() || !llvm::isHexDigit(S[I + 1]) ||
        !llvm::isHexDigit(S[I + 2]))
      return llvm::createStringError("invalid escape '" + S.substr(I, 3).str() +
                                     "' in URI");
    char Byte = static_cast<char>(llvm::hexFromNibbles(S[I + 1], S[I + 2]));
    Out += Byte;
    I += 2;
  }
  return Out;
}

llvm::Expected<std::string>
lsp::uriToPath(llvm::StringRef URI, std::optional<llvm::StringRef> TestRoot) {
  llvm::StringRef Rest = URI;
  if (Rest.consume_front_insensitive("file://")) {
    // An authority, if any, must be this machine.
    size_t Slash = Rest.find('/');
    llvm::StringRef Authority = Rest.take_front(Slash);
    if (!Authority.empty() && !Authority.equals_insensitive("localhost"))
      return llvm::createStringError("cannot open '" + URI.str() +
                                     "': files on other hosts are not "
                                     "supported");
    if (Slash == llvm::StringRef::npos)
      return llvm::createStringError("'" + URI.str() + "' names no file");
    auto Path = percentDecode(Rest.drop_front(Slash));
    if (!Path)
      return llvm::createStringError("malformed URI '" + URI.str() +
                                     "': " + llvm::toString(Path.takeError()));
    llvm::SmallString<256> Clean(*Path);
    llvm::sys::path::remove_dots(Clean, /*remove_dot_dot=*/true);
    return std::string(Clean);
  }
  if (Rest.consume_front_insensitive("test:")) {
    if (!TestRoot)
      return llvm::createStringError(
          "'" + URI.str() +
          "': test:/// URIs are only accepted in tests "
          "(-lit-test or -test-root)");
    auto Rel = percentDecode(Rest.ltrim('/'));
    if (!Rel)
      return llvm::createStringError("malformed URI '" + URI.str() +
                                     "': " + llvm::toString(Rel.takeError()));
    llvm::SmallString<256> Path(*TestRoot);
    llvm::sys::path::append(Path, *Rel);
    return makeAbsolutePath(Path);
  }
  return llvm::createStringError("unsupported URI '" + URI.str() +
                                 "': only file:// URIs name files");
}

std::pair<unsigned, unsigned> lsp::selectedLines(const Range &Selection) {
  int First = std::max(0, Selection.start.line);
  int Last = std::max(First, Selection.end.line);
  if (Last > First && Selection.end.character == 0)
    --Last;
  return {unsigned(First) + 1, unsigned(Last) + 1};
}

std::vector<size_t> lsp::targetsOnLines(llvm::ArrayRef<Target> Targets,
                                        unsigned FirstLine, unsigned LastLine) {
  std::vector<size_t> Hits;
  for (size_t I = 0; I < Targets.size(); ++I)
    if (Targets[I].Line <= LastLine && FirstLine <= Targets[I].EndLine)
      Hits.push_back(I);
  llvm::stable_sort(Hits, [&](size_t A, size_t B) {
    return Targets[A].EndOffset - Targets[A].BeginOffset <
           Targets[B].EndOffset - Targets[B].BeginOffset;
  });
  return Hits;
}

std::optional<TextEdit> lsp::computeLineEdit(llvm::StringRef Before,
                                             llvm::StringRef After) {
  if (Before == After)
    return std::nullopt;
  size_t Shorter = std::min(Before.size(), After.size());
  size_t Prefix = 0;
  while (Prefix < Shorter && Before[Prefix] == After[Prefix])
    ++Prefix;
  size_t Suffix = 0;
  while (Suffix < Shorter - Prefix &&
         Before[Before.size() - 1 - Suffix] == After[After.size() - 1 - Suffix])
    ++Suffix;
  // Widen to whole lines: start where the first changed line starts, end
  // after the last changed line's line end.
  size_t Begin = Prefix;
  while (Begin > 0 && Before[Begin - 1] != '\n')
    --Begin;
  auto AtLineStart = [](llvm::StringRef S, size_t I) {
    return I == 0 || S[I - 1] == '\n';
  };
  size_t EndBefore = Before.size() - Suffix;
  size_t EndAfter = After.size() - Suffix;
  if (!AtLineStart(Before, EndBefore) || !AtLineStart(After, EndAfter)) {
    // The bytes up to the next line end are common to both texts, so the
    // new end is a line start in both.
    size_t NL = Before.find('\n', EndBefore);
    EndBefore = NL == llvm::StringRef::npos ? Before.size() : NL + 1;
    EndAfter = After.size() - (Before.size() - EndBefore);
  }
  TextEdit E;
  E.range.start = offsetToPosition(Before, Begin);
  E.range.end = offsetToPosition(Before, EndBefore);
  E.newText = After.slice(Begin, EndAfter).str();
  return E;
}
