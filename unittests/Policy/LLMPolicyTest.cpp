//===-- LLMPolicyTest.cpp - Replies to variants, RTG bins -----------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Policy/LLMPolicy.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

const char *File = "#include <vector>\n"
                   "using ll = long long;\n"
                   "\n"
                   "ll sum(const std::vector<ll> &V) {\n"
                   "  ll S = 0;\n"
                   "  for (ll X : V) S += X;\n"
                   "  return S;\n"
                   "}\n"
                   "int main() { return sum({1, 2}) == 3 ? 0 : 1; }\n";

ReplySplice spliceOf(llvm::StringRef Text, EditScope Scope) {
  ReplySplice S;
  S.CurrentText = Text;
  Target T;
  T.Name = "sum";
  llvm::StringRef Def = "ll sum(";
  T.BeginOffset = Text.find(Def);
  T.EndOffset = Text.find("}\nint main") + 1;
  S.T = T;
  S.TargetName = "sum";
  S.Scope = Scope;
  return S;
}

TEST(SpliceReplyTest, ReplacesTheTargetAndAddsIncludesAndHelpers) {
  std::string Reply = "Sure.\n```cpp\n#include <numeric>\n#include <vector>\n"
                      "static ll zero() { return 0; }\n"
                      "ll sum(const std::vector<ll> &V) {\n"
                      "  return std::accumulate(V.begin(), V.end(), zero());\n"
                      "}\n```\n";
  auto Text = spliceReply(Reply, spliceOf(File, EditScope::Target));
  ASSERT_TRUE(bool(Text)) << llvm::toString(Text.takeError());
  EXPECT_EQ(*Text, "#include <vector>\n"
                   "#include <numeric>\n"
                   "using ll = long long;\n"
                   "\n"
                   "static ll zero() { return 0; }\n"
                   "ll sum(const std::vector<ll> &V) {\n"
                   "  return std::accumulate(V.begin(), V.end(), zero());\n"
                   "}\n"
                   "int main() { return sum({1, 2}) == 3 ? 0 : 1; }\n");
}

TEST(SpliceReplyTest, WholeProgramOnlyUnderFileScope) {
  std::string Reply = "```cpp\n#include <cstdio>\nint main() { puts(\"3\"); }\n"
                      "```\n";
  auto AsFile = spliceReply(Reply, spliceOf(File, EditScope::File));
  ASSERT_TRUE(bool(AsFile)) << llvm::toString(AsFile.takeError());
  EXPECT_EQ(*AsFile, "#include <cstdio>\nint main() { puts(\"3\"); }\n");
  // Under --scope=target the block must be about the target.
  auto AsTarget = spliceReply(Reply, spliceOf(File, EditScope::Target));
  ASSERT_FALSE(bool(AsTarget));
  EXPECT_NE(llvm::toString(AsTarget.takeError()).find("sum"),
            std::string::npos);
}

TEST(SpliceReplyTest, UnusableRepliesSayWhy) {
  auto NoCode = spliceReply("I would use a prefix sum.",
                            spliceOf(File, EditScope::Target));
  ASSERT_FALSE(bool(NoCode));
  EXPECT_NE(llvm::toString(NoCode.takeError()).find("no fenced code block"),
            std::string::npos);
  auto OnlyIncludes = spliceReply("```cpp\n#include <sum>\n```\n",
                                  spliceOf(File, EditScope::Target));
  ASSERT_FALSE(bool(OnlyIncludes));
  llvm::consumeError(OnlyIncludes.takeError());
}

TEST(SpliceReplyTest, IncludesFromEveryBlockLand) {
  // Models often put the includes in a block of their own, before or after
  // the code; they land in every scope.
  std::string Reply =
      "Add this:\n```cpp\n#include <numeric>\n```\n"
      "Then:\n```cpp\n"
      "ll sum(const std::vector<ll> &V) {\n"
      "  return std::accumulate(V.begin(), V.end(), 0LL);\n"
      "}\n```\nAnd, for later:\n```cpp\n#include <cstdint>\n```\n";
  for (EditScope Scope : {EditScope::Target, EditScope::File}) {
    auto Text = spliceReply(Reply, spliceOf(File, Scope));
    ASSERT_TRUE(bool(Text)) << llvm::toString(Text.takeError());
    EXPECT_NE(Text->find("#include <vector>\n#include <numeric>\n"
                         "#include <cstdint>\n"),
              std::string::npos)
        << *Text;
  }
}

TEST(SpliceReplyTest, AHelperRepeatedWordForWordIsTheOneThere) {
  // The current code has a helper from an earlier step; the reply repeats
  // it (with other spacing and a comment) beside a new one.
  std::string Current =
      std::string(File).insert(std::string(File).find("ll sum("),
                               "static ll twice(ll X) { return 2 * X; }\n");
  std::string Reply = "```cpp\n"
                      "// Doubles.\n"
                      "static ll twice(ll X) {\n  return 2 * X;\n}\n"
                      "struct Acc { ll S; };\n"
                      "static ll half(ll X) { return X / 2; }\n"
                      "ll sum(const std::vector<ll> &V) {\n"
                      "  Acc A = {0};\n"
                      "  for (ll X : V) A.S += half(twice(X));\n"
                      "  return A.S;\n"
                      "}\n```\n";
  auto Text = spliceReply(Reply, spliceOf(Current, EditScope::Target));
  ASSERT_TRUE(bool(Text)) << llvm::toString(Text.takeError());
  llvm::StringRef T = *Text;
  EXPECT_EQ(T.count("ll twice("), 1u) << Text->c_str();
  EXPECT_NE(T.find("struct Acc { ll S; };"), llvm::StringRef::npos);
  EXPECT_NE(T.find("static ll half("), llvm::StringRef::npos);
  EXPECT_NE(T.find("A.S += half(twice(X));"), llvm::StringRef::npos);
}

TEST(SpliceReplyTest, TopLevelDeclarationsAreCutWhereTheyEnd) {
  // Two functions in a row, a class with a declarator, a namespace, a
  // template, a directive: each is one declaration, so that only the
  // repeated ones go.
  llvm::StringRef Current = "int f() { return 1; }\n"
                            "struct S { int g() { return 2; } } Obj;\n"
                            "namespace n { int h(); }\n"
                            "template <class T> T id(T X) { return X; }\n"
                            "#define K 3\n";
  std::string Block = "int f() { return 1; } int f2() { return 1; }\n"
                      "struct S { int g() { return 2; } } Obj;\n"
                      "namespace n { int h(); }\n"
                      "template <class T> T id(T X) { return X; }\n"
                      "#define K 3\n"
                      "int target() { return f() + id(K); }\n";
  EXPECT_EQ(llvm::StringRef(dropRepeatedDeclarations(Block, Current, "target"))
                .trim()
                .str(),
            "int f2() { return 1; }\n"
            "int target() { return f() + id(K); }");
}

TEST(RTGBinTest, ParsesTheLastBinLine) {
  const RTGBin *B =
      parseRTGBin("Thinking...\nBIN: slower\n**BIN: much-faster**");
  ASSERT_NE(B, nullptr);
  EXPECT_EQ(B->Label, "much-faster");
  EXPECT_EQ(parseRTGBin("faster, I think"), nullptr);
  EXPECT_EQ(rtgBinOf(0.03, false).Label, "fails");
  EXPECT_EQ(rtgBinOf(1.0, true).Label, "same");
  EXPECT_EQ(rtgBinOf(3.9, true).Label, "dramatic");
  EXPECT_EQ(rtgBinOf(1.2, true).Label, "faster");
}

TEST(DescribeFeedbackTest, SaysWhatFailed) {
  EXPECT_NE(describeFeedback(std::nullopt).find("original"), std::string::npos);
  EvalResult R;
  R.Status = EvalStatus::WrongOutput;
  R.TestsPassed = 1;
  R.TestsTotal = 2;
  TestFailure F;
  F.Test = "input.1.txt";
  F.Line = 3;
  F.Expected = "7";
  F.Actual = "8";
  R.FirstFailure = F;
  std::string S = describeFeedback(R);
  EXPECT_NE(S.find("Status: wrong-output"), std::string::npos);
  EXPECT_NE(S.find("Tests passed: 1 of 2."), std::string::npos);
  EXPECT_NE(S.find("input.1.txt, line 3: expected `7`, got `8`"),
            std::string::npos);
  // Warnings are fed back as errors are: a winner keeps no edit that adds
  // one.
  R.Status = EvalStatus::Ok;
  R.FirstFailure.reset();
  R.Diagnostics.push_back({4, 1, "warning", "ignoring loop annotation"});
  S = describeFeedback(R);
  EXPECT_NE(S.find("Compiler warning at line 4:1: ignoring loop annotation"),
            std::string::npos)
      << S;
}

} // namespace
