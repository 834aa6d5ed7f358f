//===-- ProtocolTest.cpp - Positions, URIs and edits ----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/LSP/Protocol.h"
#include "gtest/gtest.h"

using namespace maxcode;
using namespace maxcode::lsp;

namespace {

size_t offsetOf(llvm::StringRef Text, int Line, int Character) {
  auto O = positionToOffset(Text, {Line, Character});
  EXPECT_TRUE(bool(O)) << llvm::toString(O.takeError());
  return O ? *O : size_t(-1);
}

std::string errorOf(llvm::StringRef Text, int Line, int Character) {
  auto O = positionToOffset(Text, {Line, Character});
  if (O)
    return "no error";
  return llvm::toString(O.takeError());
}

TEST(PositionTest, CountsUTF16CodeUnits) {
  // "é" is 2 bytes and 1 unit; "😀" is 4 bytes and 2 units (a surrogate
  // pair), as LSP counts.
  llvm::StringRef Text = "ab\n"
                         "\xC3\xA9x\n"
                         "\xF0\x9F\x98\x80y\n";
  EXPECT_EQ(offsetOf(Text, 0, 0), 0u);
  EXPECT_EQ(offsetOf(Text, 0, 2), 2u);
  EXPECT_EQ(offsetOf(Text, 1, 1), 5u);  // after é
  EXPECT_EQ(offsetOf(Text, 1, 2), 6u);  // after x
  EXPECT_EQ(offsetOf(Text, 2, 2), 11u); // after the emoji
  EXPECT_EQ(offsetOf(Text, 2, 3), 12u); // after y
  EXPECT_EQ(offsetOf(Text, 3, 0), 13u); // the empty last line
}

TEST(PositionTest, ClampsCharactersPastTheLineEnd) {
  EXPECT_EQ(offsetOf("abc\ndef", 0, 99), 3u);
  EXPECT_EQ(offsetOf("abc\r\ndef", 0, 99), 3u); // before the \r
  EXPECT_EQ(offsetOf("abc\r\ndef", 1, 1), 6u);
  EXPECT_EQ(offsetOf("abc", 0, 99), 3u);
}

TEST(PositionTest, RejectsLinesPastTheEnd) {
  EXPECT_EQ(errorOf("abc\ndef", 2, 0),
            "line 2 is past the end of the document (2 lines)");
  EXPECT_EQ(errorOf("abc", -1, 0), "negative position -1:0");
}

TEST(PositionTest, OffsetsMapBack) {
  llvm::StringRef Text = "a\xC3\xA9\n\xF0\x9F\x98\x80z\n";
  EXPECT_EQ(offsetToPosition(Text, 0), (Position{0, 0}));
  EXPECT_EQ(offsetToPosition(Text, 3), (Position{0, 2}));
  EXPECT_EQ(offsetToPosition(Text, 4), (Position{1, 0}));
  EXPECT_EQ(offsetToPosition(Text, 8), (Position{1, 2}));
  EXPECT_EQ(offsetToPosition(Text, 9), (Position{1, 3}));
  EXPECT_EQ(offsetToPosition(Text, 1000), (Position{2, 0}));
  for (size_t Offset : {0, 1, 3, 4, 8, 9, 10}) {
    Position P = offsetToPosition(Text, Offset);
    EXPECT_EQ(offsetOf(Text, P.line, P.character), Offset);
  }
}

TEST(ContentChangeTest, AppliesIncrementalAndFullChanges) {
  std::string Text = "int f() {\n  return 1;\n}\n";
  ASSERT_FALSE(bool(applyContentChange(Text, Range{{1, 9}, {1, 10}}, "42")));
  EXPECT_EQ(Text, "int f() {\n  return 42;\n}\n");
  ASSERT_FALSE(
      bool(applyContentChange(Text, Range{{0, 0}, {0, 0}}, "// \xC3\xA9\n")));
  ASSERT_FALSE(bool(applyContentChange(Text, Range{{0, 3}, {0, 4}}, "e")));
  EXPECT_EQ(Text, "// e\nint f() {\n  return 42;\n}\n");
  ASSERT_FALSE(bool(applyContentChange(Text, Range{{1, 0}, {4, 0}}, "")));
  EXPECT_EQ(Text, "// e\n");
  ASSERT_FALSE(bool(applyContentChange(Text, std::nullopt, "new")));
  EXPECT_EQ(Text, "new");
}

TEST(ContentChangeTest, BadRangesLeaveTheTextAlone) {
  std::string Text = "abc\n";
  llvm::Error E = applyContentChange(Text, Range{{5, 0}, {5, 1}}, "x");
  EXPECT_EQ(llvm::toString(std::move(E)),
            "line 5 is past the end of the document (2 lines)");
  E = applyContentChange(Text, Range{{0, 2}, {0, 1}}, "x");
  EXPECT_EQ(llvm::toString(std::move(E)), "change range ends before it starts");
  EXPECT_EQ(Text, "abc\n");
}

std::string pathOf(llvm::StringRef URI,
                   std::optional<llvm::StringRef> Root = std::nullopt) {
  auto P = uriToPath(URI, Root);
  if (!P)
    return "error: " + llvm::toString(P.takeError());
  return *P;
}

TEST(URITest, FileURIs) {
  EXPECT_EQ(pathOf("file:///home/me/a%20b/c%2B%2B.cpp"),
            "/home/me/a b/c++.cpp");
  EXPECT_EQ(pathOf("file://localhost/src/x.cu"), "/src/x.cu");
  EXPECT_EQ(pathOf("file:///src/./sub/../x.cpp"), "/src/x.cpp");
  EXPECT_EQ(pathOf("file://server/share/x.cpp"),
            "error: cannot open 'file://server/share/x.cpp': files on other "
            "hosts are not supported");
  EXPECT_EQ(pathOf("file:///a%zz.cpp"),
            "error: malformed URI 'file:///a%zz.cpp': invalid escape '%zz' in "
            "URI");
  EXPECT_EQ(pathOf("file:///a%2"),
            "error: malformed URI 'file:///a%2': invalid escape '%2' in URI");
}

TEST(URITest, TestURIsNeedARoot) {
  EXPECT_EQ(pathOf("test:///main.cpp", llvm::StringRef("/tmp/t")),
            "/tmp/t/main.cpp");
  EXPECT_EQ(pathOf("test:///sub/a%20b.cpp", llvm::StringRef("/tmp/t")),
            "/tmp/t/sub/a b.cpp");
  EXPECT_EQ(pathOf("test:///main.cpp"),
            "error: 'test:///main.cpp': test:/// URIs are only accepted in "
            "tests (-lit-test or -test-root)");
  EXPECT_EQ(pathOf("untitled:Untitled-1"),
            "error: unsupported URI 'untitled:Untitled-1': only file:// URIs "
            "name files");
}

Target makeTarget(llvm::StringRef Name, unsigned Line, unsigned EndLine,
                  unsigned Begin, unsigned End) {
  Target T;
  T.Name = Name.str();
  T.Line = Line;
  T.EndLine = EndLine;
  T.BeginOffset = Begin;
  T.EndOffset = End;
  return T;
}

TEST(TargetSelectionTest, SelectedLines) {
  EXPECT_EQ(selectedLines({{4, 3}, {4, 3}}), std::make_pair(5u, 5u));
  EXPECT_EQ(selectedLines({{2, 0}, {6, 5}}), std::make_pair(3u, 7u));
  // Whole lines 3..6 selected: the end is at the start of line 7.
  EXPECT_EQ(selectedLines({{2, 0}, {6, 0}}), std::make_pair(3u, 6u));
  EXPECT_EQ(selectedLines({{2, 0}, {2, 0}}), std::make_pair(3u, 3u));
}

TEST(TargetSelectionTest, InnermostFirstAndNothingOutside) {
  // outer spans lines 1-20, inner (a local class's method) 5-7, other 22-25.
  std::vector<Target> Ts = {makeTarget("outer", 1, 20, 0, 500),
                            makeTarget("inner", 5, 7, 100, 160),
                            makeTarget("other", 22, 25, 520, 600)};
  EXPECT_EQ(targetsOnLines(Ts, 6, 6), (std::vector<size_t>{1, 0}));
  EXPECT_EQ(targetsOnLines(Ts, 2, 2), (std::vector<size_t>{0}));
  EXPECT_EQ(targetsOnLines(Ts, 21, 21), (std::vector<size_t>{}));
  EXPECT_EQ(targetsOnLines(Ts, 20, 22), (std::vector<size_t>{2, 0}));
  EXPECT_EQ(targetsOnLines(Ts, 30, 30), (std::vector<size_t>{}));
}

std::string applyEdit(llvm::StringRef Before, const TextEdit &E) {
  std::string Text = Before.str();
  llvm::Error Err = applyContentChange(Text, E.range, E.newText);
  EXPECT_FALSE(bool(Err)) << llvm::toString(std::move(Err));
  return Text;
}

TEST(LineEditTest, EqualTextsNeedNoEdit) {
  EXPECT_FALSE(computeLineEdit("a\nb\n", "a\nb\n"));
}

TEST(LineEditTest, CoversWholeChangedLines) {
  llvm::StringRef Before = "int a;\nint f() {\n  return 1;\n}\nint b;\n";
  llvm::StringRef After = "int a;\nint f() {\n  return 2;\n}\nint b;\n";
  std::optional<TextEdit> E = computeLineEdit(Before, After);
  ASSERT_TRUE(E);
  EXPECT_EQ(E->range.start, (Position{2, 0}));
  EXPECT_EQ(E->range.end, (Position{3, 0}));
  EXPECT_EQ(E->newText, "  return 2;\n");
  EXPECT_EQ(applyEdit(Before, *E), After);
}

TEST(LineEditTest, InsertionsDeletionsAndTheLastLine) {
  struct Case {
    llvm::StringRef Before, After;
  } Cases[] = {
      {"a\nb\n", "a\nX\nb\n"},         // a line inserted
      {"a\nX\nb\n", "a\nb\n"},         // a line deleted
      {"a\nb", "a\nc"},                // no line end at the end
      {"a\nb\n", "a\nb\nc\n"},         // appended
      {"x", "completely different\n"}, // everything
      {"#include <a>\nint f();\n", "#include <a>\n#include <b>\nint f();\n"},
      {"same\n\xC3\xA9t\xC3\xA9\n", "same\n\xC3\xA9t\xC3\xA9!\n"},
  };
  for (const Case &C : Cases) {
    std::optional<TextEdit> E = computeLineEdit(C.Before, C.After);
    ASSERT_TRUE(E) << C.Before.str();
    EXPECT_EQ(E->range.start.character, 0) << C.Before.str();
    EXPECT_EQ(applyEdit(C.Before, *E), C.After.str()) << C.Before.str();
  }
  // The inserted line alone, not its neighbours.
  std::optional<TextEdit> E = computeLineEdit("a\nb\n", "a\nX\nb\n");
  ASSERT_TRUE(E);
  EXPECT_EQ(E->range.start, (Position{1, 0}));
  EXPECT_EQ(E->range.end, (Position{1, 0}));
  EXPECT_EQ(E->newText, "X\n");
}

} // namespace
