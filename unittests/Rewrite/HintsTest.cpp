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

} // namespace
