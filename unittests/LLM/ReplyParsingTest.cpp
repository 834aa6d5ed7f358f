//===-- ReplyParsingTest.cpp - Code in a model's reply --------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/LLM/ReplyParsing.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

std::string reasonOf(llvm::StringRef Reply, llvm::StringRef Target) {
  auto B = chooseCodeBlock(Reply, Target);
  EXPECT_FALSE(bool(B)) << "chose:\n" << (B ? B->Code : "");
  return B ? "" : llvm::toString(B.takeError());
}

TEST(ReplyParsingTest, ExtractsEveryKindOfFence) {
  auto Blocks = extractCodeBlocks("Here:\n"
                                  "```cpp\nint a;\n```\n"
                                  "```cuda\n__global__ void k();\n```\n"
                                  "```C++ title=x\nint b;\n```\n"
                                  "```\nint c;\n```\n"
                                  "~~~~ python\nprint(1)\n~~~~\n"
                                  "done");
  ASSERT_EQ(Blocks.size(), 5u);
  EXPECT_EQ(Blocks[0].Language, "cpp");
  EXPECT_EQ(Blocks[0].Code, "int a;\n");
  EXPECT_EQ(Blocks[0].Line, 2u);
  EXPECT_EQ(Blocks[1].Language, "cuda");
  EXPECT_EQ(Blocks[1].Code, "__global__ void k();\n");
  EXPECT_EQ(Blocks[2].Language, "c++");
  EXPECT_EQ(Blocks[3].Language, "");
  EXPECT_EQ(Blocks[3].Code, "int c;\n");
  EXPECT_EQ(Blocks[4].Language, "python");
  for (const CodeBlock &B : Blocks)
    EXPECT_TRUE(B.Closed);
}

TEST(ReplyParsingTest, InnerFencesAndIndentation) {
  // A longer fence holds a shorter one; an indented fence (in a list item)
  // loses its indentation; CRLF line ends are handled.
  auto Blocks = extractCodeBlocks("1. The code:\r\n"
                                  "   ````cpp\r\n"
                                  "   // ```\r\n"
                                  "   int f() {\r\n"
                                  "     return 1;\r\n"
                                  "   }\r\n"
                                  "   ````\r\n");
  ASSERT_EQ(Blocks.size(), 1u);
  EXPECT_EQ(Blocks[0].Code, "// ```\nint f() {\n  return 1;\n}\n");
  EXPECT_TRUE(Blocks[0].Closed);
}

TEST(ReplyParsingTest, InlineTripleBackticksAreNotFences) {
  EXPECT_TRUE(extractCodeBlocks("use ```x``` here\n").empty());
}

TEST(ReplyParsingTest, ChoosesTheLastBlockDefiningTheTarget) {
  auto B = chooseCodeBlock("The old code:\n```cpp\nint sum(int n) { return "
                           "slow(n); }\n```\n"
                           "A helper:\n```cpp\nint other();\n```\n"
                           "Faster:\n```c++\n#include <numeric>\n"
                           "int sum(int n) { return n * (n + 1) / 2; }\n```\n"
                           "Test it with:\n```bash\n./a.out\n```\n",
                           "sum");
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
  EXPECT_EQ(B->Code,
            "#include <numeric>\nint sum(int n) { return n * (n + 1) / 2; }\n");
}

TEST(ReplyParsingTest, QualifiedTargetsAndWholeIdentifiers) {
  // "sum" inside "checksum" is not a mention; "ns::Acc::sum" is written
  // "Acc::sum" out of line.
  llvm::StringRef Reply = "```cpp\nint checksum();\n```\n"
                          "```cpp\nint Acc::sum() const { return 0; }\n```\n";
  auto B = chooseCodeBlock(Reply, "ns::Acc::sum");
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
  EXPECT_EQ(B->Line, 4u);
}

TEST(ReplyParsingTest, CudaBlocks) {
  auto B = chooseCodeBlock("```cuda\n__global__ void softmax_kernel(float *x)"
                           " {}\n```\n",
                           "softmax_kernel");
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
  EXPECT_EQ(B->Language, "cuda");
}

TEST(ReplyParsingTest, ReasonsForUnusableReplies) {
  EXPECT_EQ(reasonOf("I cannot make it faster.", "f"),
            "the reply has no fenced code block (```cpp ... ```)");
  EXPECT_EQ(
      reasonOf("```python\ndef f(): pass\n```\n```rust\nfn f(){}\n```", "f"),
      "the reply has code blocks only in other languages (python, "
      "rust), none in C++ or CUDA");
  EXPECT_EQ(reasonOf("```cpp\nint f() {\n  for (;;", "f"),
            "the reply's code block is not closed with ``` (the reply was "
            "probably cut off at the token limit)");
  EXPECT_EQ(reasonOf("```cpp\nint g();\n```", "f"),
            "no code block in the reply mentions 'f'; the reply must hold the "
            "full new definition of 'f'");
  EXPECT_EQ(reasonOf("```cpp\n\n```", "f"),
            "the reply's code blocks are empty");
}

TEST(ReplyParsingTest, AnyBlockWithoutATargetName) {
  auto B = chooseCodeBlock("```\nint main() {}\n```", "");
  ASSERT_TRUE(bool(B));
  EXPECT_EQ(B->Code, "int main() {}\n");
}

TEST(ReplyParsingTest, SourceLanguages) {
  for (llvm::StringRef L :
       {"", "cpp", "C++", "cxx", "cc", "c", "cuda", "cu", "h", "hpp", "cuh"})
    EXPECT_TRUE(isSourceLanguage(L)) << L.str();
  for (llvm::StringRef L : {"python", "bash", "diff", "text", "json"})
    EXPECT_FALSE(isSourceLanguage(L)) << L.str();
}

} // namespace
