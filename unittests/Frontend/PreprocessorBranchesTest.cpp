//===-- PreprocessorBranchesTest.cpp - Conditional directives found -------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/PreprocessorBranches.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace maxcode;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

namespace {

/// The lines (1-based) of \p Text's conditional directives.
std::vector<unsigned> directiveLines(llvm::StringRef Text) {
  std::vector<unsigned> Lines;
  for (unsigned Offset : conditionalDirectiveOffsets(Text)) {
    EXPECT_EQ(Text[Offset], '#');
    Lines.push_back(Text.take_front(Offset).count('\n') + 1);
  }
  return Lines;
}

TEST(PreprocessorBranches, EveryConditionalInEveryBranch) {
  EXPECT_THAT(directiveLines("#if __CUDA_ARCH__ >= 530\n"
                             "int a;\n"
                             "#elif defined(X)\n"
                             "#ifdef Y\n"
                             "#else\n"
                             "#endif\n"
                             "#elifdef Z\n"
                             "#elifndef W\n"
                             "#endif\n"
                             "#ifndef V\n"
                             "#endif\n"),
              ElementsAre(1, 3, 4, 5, 6, 7, 8, 9, 10, 11));
}

TEST(PreprocessorBranches, SpacedAndIndented) {
  EXPECT_THAT(directiveLines("void f() {\n"
                             "  #  if 1\n"
                             "\t#else\n"
                             "  # endif\n"
                             "}\n"),
              ElementsAre(2, 3, 4));
}

TEST(PreprocessorBranches, NotDirectives) {
  // Other directives, comments, strings, and a `#` that does not start a
  // line are not conditionals.
  EXPECT_THAT(directiveLines("#define IF(x) #x\n"
                             "#pragma unroll\n"
                             "#include <x>\n"
                             "// #if 1\n"
                             "/* #else\n"
                             "#endif */\n"
                             "const char *s = \"#if\";\n"
                             "const char *r = R\"(\n"
                             "#if in a raw string\n"
                             ")\";\n"
                             "int x; # if\n"
                             "#\n"
                             "if (x) {}\n"),
              IsEmpty());
}

TEST(PreprocessorBranches, ContinuedLines) {
  // A directive continued over lines is one; a line continued into `#if`
  // does not start one.
  EXPECT_THAT(directiveLines("#if defined(A) && \\\n"
                             "    defined(B)\n"
                             "#endif\n"
                             "int y = 1 + \\\n"
                             "#if\n"),
              ElementsAre(1, 3));
}

} // namespace
