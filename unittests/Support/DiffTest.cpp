//===-- DiffTest.cpp - Line diffs -----------------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/Diff.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

TEST(DiffTest, EqualTextsHaveNoDiff) {
  EXPECT_TRUE(diffLines("a\nb\n", "a\nb\n").empty());
  EXPECT_EQ(unifiedDiff("a\nb\n", "a\nb\n", "x", "y"), "");
}

TEST(DiffTest, HunksNumberLinesAsDiffDoes) {
  std::vector<DiffHunk> H = diffLines("a\nb\nc\n", "a\nB\nc\nd\n");
  ASSERT_EQ(H.size(), 2u);
  EXPECT_EQ(H[0].BeforeStart, 2u);
  EXPECT_EQ(H[0].BeforeCount, 1u);
  EXPECT_EQ(H[0].AfterStart, 2u);
  EXPECT_EQ(H[0].AfterCount, 1u);
  // A pure insertion starts at the line it follows.
  EXPECT_EQ(H[1].BeforeStart, 3u);
  EXPECT_EQ(H[1].BeforeCount, 0u);
  EXPECT_EQ(H[1].AfterStart, 4u);
  EXPECT_EQ(H[1].AfterCount, 1u);
}

TEST(DiffTest, UnifiedDiffWithContext) {
  std::string Before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
  std::string After = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
  EXPECT_EQ(unifiedDiff(Before, After, "a/f", "b/f"),
            "--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n"
            " 7\n 8\n");
}

TEST(DiffTest, DistantChangesMakeTwoHunks) {
  std::string Before, After;
  for (int I = 1; I <= 20; ++I) {
    Before += std::to_string(I) + "\n";
    After += (I == 2 || I == 19 ? "x" : std::to_string(I)) + "\n";
  }
  std::string D = unifiedDiff(Before, After, "a", "b", 1);
  EXPECT_EQ(D, "--- a\n+++ b\n@@ -1,3 +1,3 @@\n 1\n-2\n+x\n 3\n"
               "@@ -18,3 +18,3 @@\n 18\n-19\n+x\n 20\n");
}

TEST(DiffTest, MissingNewlineIsMarked) {
  std::string D = unifiedDiff("a\nb", "a\nc", "x", "y");
  EXPECT_EQ(D, "--- x\n+++ y\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end "
               "of file\n+c\n\\ No newline at end of file\n");
}

TEST(DiffTest, InsertionIntoEmptyFile) {
  EXPECT_EQ(unifiedDiff("", "a\n", "x", "y"),
            "--- x\n+++ y\n@@ -0,0 +1 @@\n+a\n");
}

TEST(DiffTest, ApplyHunksTakesTheSubsetKept) {
  std::string Before = "a\nb\nc\nd\n";
  std::string After = "p\na\nB\nc\n"; // Insert, change, delete.
  std::vector<DiffHunk> H = diffLines(Before, After);
  ASSERT_EQ(H.size(), 3u);
  EXPECT_EQ(applyHunks(Before, After, H, {true, true, true}), After);
  EXPECT_EQ(applyHunks(Before, After, H, {false, false, false}), Before);
  EXPECT_EQ(applyHunks(Before, After, H, {true, false, false}),
            "p\na\nb\nc\nd\n");
  EXPECT_EQ(applyHunks(Before, After, H, {false, true, false}), "a\nB\nc\nd\n");
  EXPECT_EQ(applyHunks(Before, After, H, {false, false, true}), "a\nb\nc\n");
  // A last line without its newline, kept or not.
  EXPECT_EQ(applyHunks("x\ny", "x\nz", diffLines("x\ny", "x\nz"), {true}),
            "x\nz");
  EXPECT_EQ(applyHunks("x\ny", "x\nz", diffLines("x\ny", "x\nz"), {false}),
            "x\ny");
}

} // namespace
