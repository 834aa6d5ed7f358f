//===-- HintsTest.cpp - Variants that only hint the compiler --------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Rewrite/Hints.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

const char *Loop = R"(int f(int *A, int N) {
  int S = 0;
  for (int I = 0; I < N; ++I)
    S += A[I];
  return S;
}
)";

std::string withBeforeLoop(llvm::StringRef Line) {
  std::string S = Loop;
  size_t At = S.find("  for");
  return S.insert(At, Line.str() + "\n");
}

TEST(HintsTest, PragmasAndAttributesAreHints) {
  for (const char *Hint :
       {"#pragma GCC unroll 8", "  #  pragma clang loop vectorize(enable)",
        "%:pragma GCC ivdep", "#pragma unroll", "#pragma omp simd",
        "_Pragma(\"GCC unroll 4\")", "#pragma GCC unroll \\\n 8"})
    EXPECT_TRUE(changesOnlyCompilerHints(Loop, withBeforeLoop(Hint))) << Hint;
  std::string Hot = Loop;
  Hot.insert(0, "__attribute__((hot, optimize(\"O3\"))) ");
  EXPECT_TRUE(changesOnlyCompilerHints(Loop, Hot));
  std::string Inline = Loop;
  Inline.insert(0, "[[gnu::always_inline, gnu::flatten]] ");
  EXPECT_TRUE(changesOnlyCompilerHints(Loop, Inline));
  // Taking a hint away is a change of hints too.
  EXPECT_TRUE(
      changesOnlyCompilerHints(withBeforeLoop("#pragma GCC unroll 8"), Loop));
}

TEST(HintsTest, CodeBesideAHintIsCode) {
  std::string Changed = withBeforeLoop("#pragma GCC unroll 8");
  Changed.replace(Changed.find("S += A[I]"), 9, "S += A[I] * 2");
  EXPECT_FALSE(changesOnlyCompilerHints(Loop, Changed));
  // Pragmas that change what the program is are compared as code.
  for (const char *NotAHint :
       {"#pragma pack(1)", "#pragma once", "#pragma weak f",
        "_Pragma(\"pack(1)\")", "int G = 0;"})
    EXPECT_FALSE(changesOnlyCompilerHints(Loop, withBeforeLoop(NotAHint)))
        << NotAHint;
  std::string Aligned = Loop;
  Aligned.insert(0, "__attribute__((hot, aligned(64))) ");
  EXPECT_FALSE(changesOnlyCompilerHints(Loop, Aligned));
  std::string Nodiscard = Loop;
  Nodiscard.insert(0, "[[nodiscard]] ");
  EXPECT_FALSE(changesOnlyCompilerHints(Loop, Nodiscard));
}

TEST(HintsTest, APragmaThatSwallowsCodeIsNotAHint) {
  // A line splice makes the loop's header part of the directive: the
  // loop is gone, though the text only "adds a pragma".
  std::string Swallow = Loop;
  Swallow.replace(Swallow.find("  for"), 0, "#pragma GCC unroll 8 \\\n");
  EXPECT_FALSE(changesOnlyCompilerHints(Loop, Swallow));
}

TEST(HintsTest, LayoutAloneIsNoHint) {
  EXPECT_FALSE(changesOnlyCompilerHints(Loop, Loop));
  std::string Reformatted = Loop;
  Reformatted.replace(Reformatted.find("  return S;"), 11,
                      "  // The sum.\n  return   S;");
  EXPECT_FALSE(changesOnlyCompilerHints(Loop, Reformatted));
}

TEST(HintsTest, TheCodeAloneKeepsTheCodeAndDropsTheAddedHints) {
  std::string Both = withBeforeLoop("  #pragma GCC unroll 8");
  Both.replace(Both.find("S += A[I]"), 9, "S += A[I] * 2");
  Both.insert(0, "#pragma GCC optimize(\"O3\")\n__attribute__((hot)) ");
  std::optional<std::string> Code = withoutAddedHints(Loop, Both);
  ASSERT_TRUE(Code);
  std::string Expected = Loop;
  Expected.replace(Expected.find("S += A[I]"), 9, "S += A[I] * 2");
  // Each hint is gone with its own text; what is left reads as the code.
  EXPECT_EQ(std::string::npos, Code->find("pragma"));
  EXPECT_EQ(std::string::npos, Code->find("hot"));
  EXPECT_NE(std::string::npos, Code->find("S += A[I] * 2;"));
  EXPECT_FALSE(changesOnlyCompilerHints(Expected, *Code));
  EXPECT_FALSE(withoutAddedHints(Expected, *Code));
  EXPECT_FALSE(withoutAddedHints(Loop, Expected)) << "no hint added";
}

TEST(HintsTest, TheOriginalsHintsStayInTheCodeAlone) {
  std::string Original = withBeforeLoop("#pragma omp simd");
  std::string Edited = Original;
  Edited.replace(Edited.find("S += A[I]"), 9, "S += A[I] * 2");
  Edited.insert(Edited.find("#pragma omp"), "[[gnu::flatten]]\n");
  std::optional<std::string> Code = withoutAddedHints(Original, Edited);
  ASSERT_TRUE(Code);
  EXPECT_NE(std::string::npos, Code->find("#pragma omp simd\n"));
  EXPECT_EQ(std::string::npos, Code->find("flatten"));
  // A hint the variant changes is one it adds: the code alone has neither.
  std::string Changed = withBeforeLoop("#pragma GCC unroll 4");
  std::string To = withBeforeLoop("#pragma GCC unroll 8");
  To.replace(To.find("S += A[I]"), 9, "S -= A[I]");
  Code = withoutAddedHints(Changed, To);
  ASSERT_TRUE(Code);
  EXPECT_EQ(std::string::npos, Code->find("unroll"));
  // Spelled over two lines, a directive goes whole.
  std::string Spliced = withBeforeLoop("#pragma GCC unroll \\\n 8");
  Spliced.replace(Spliced.find("S += A[I]"), 9, "S -= A[I]");
  Code = withoutAddedHints(Loop, Spliced);
  ASSERT_TRUE(Code);
  EXPECT_EQ(std::string::npos, Code->find("unroll"));
  EXPECT_EQ(std::string::npos, Code->find(" 8\n"));
  EXPECT_NE(std::string::npos, Code->find("  for (int I"));
}

} // namespace
