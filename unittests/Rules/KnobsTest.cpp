//===-- KnobsTest.cpp - Knob spaces ---------------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Rules/Knobs.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

TEST(KnobsTest, PowerOfTwoNeighboursNearestFirst) {
  EXPECT_EQ(powerOfTwoNeighbours(256, 1, 1024),
            (std::vector<int64_t>{128, 512, 64, 1024}));
  EXPECT_EQ(powerOfTwoNeighbours(1024, 1, 1024),
            (std::vector<int64_t>{512, 256}));
  EXPECT_EQ(powerOfTwoNeighbours(2, 1, 1024), (std::vector<int64_t>{1, 4, 8}));
  EXPECT_TRUE(powerOfTwoNeighbours(0, 1, 1024).empty());
}

TEST(KnobsTest, TuneLists) {
  EXPECT_EQ(parseTuneList("8, 16,32"), (std::vector<int64_t>{8, 16, 32}));
  EXPECT_EQ(parseTuneList("4,4,2"), (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(parseTuneList("8,x"), std::nullopt);
  EXPECT_EQ(parseTuneList(""), std::nullopt);
}

const char *Code = R"cpp(#define BLOCK_SIZE 256
#define MAXN 100000
constexpr int TILE = 16;
const int N = 1024;
int work(int *a) {
  int chunk = 3; // maxcode: tune(1,3,5)
  int s = 0;
#pragma GCC unroll 4
  for (int i = 0; i < N; i += chunk)
    s += a[i] * TILE * BLOCK_SIZE;
  return s;
}
)cpp";

TEST(KnobsTest, FindsMarkedConstantAndUnrollKnobs) {
  ParsedFile P;
  P.File = "knobs.cc";
  P.AST = clang::tooling::buildASTFromCodeWithArgs(
      Code, {"-std=c++17", "-resource-dir=" MAXCODE_CLANG_RESOURCE_DIR},
      P.File);
  ASSERT_TRUE(P.AST);
  std::vector<Target> Ts = discoverTargets(P);
  ASSERT_EQ(Ts.size(), 1u);
  RuleOptions Opts;
  RuleContext Ctx(P, Ts[0], Opts);
  std::vector<Knob> Ks = findKnobs(Ctx);
  ASSERT_EQ(Ks.size(), 4u);

  EXPECT_EQ(Ks[0].Name, "BLOCK_SIZE");
  EXPECT_EQ(Ks[0].Kind, KnobKind::Constant);
  EXPECT_EQ(Ks[0].Current, 256);
  EXPECT_EQ(Ks[0].Values, (std::vector<int64_t>{128, 512, 64, 1024}));
  EXPECT_EQ(llvm::StringRef(Code).substr(Ks[0].Offset, Ks[0].Length), "256");

  EXPECT_EQ(Ks[1].Name, "TILE");
  EXPECT_EQ(Ks[1].Line, 3u);
  EXPECT_EQ(Ks[1].Values, (std::vector<int64_t>{8, 32, 4, 64}));

  EXPECT_EQ(Ks[2].Kind, KnobKind::Marked);
  EXPECT_EQ(Ks[2].Current, 3);
  EXPECT_EQ(Ks[2].Values, (std::vector<int64_t>{1, 5}));
  EXPECT_EQ(llvm::StringRef(Code).substr(Ks[2].Offset, Ks[2].Length), "3");

  EXPECT_EQ(Ks[3].Kind, KnobKind::Unroll);
  EXPECT_EQ(Ks[3].Name, "unroll at line 8");
  EXPECT_EQ(Ks[3].Values, (std::vector<int64_t>{2, 8, 16}));
  EXPECT_EQ(knobKindName(Ks[3].Kind), "unroll");
}

TEST(KnobsTest, TargetScopeKeepsKnobsInsideTheTarget) {
  ParsedFile P;
  P.File = "knobs.cc";
  P.AST = clang::tooling::buildASTFromCodeWithArgs(
      Code, {"-std=c++17", "-resource-dir=" MAXCODE_CLANG_RESOURCE_DIR},
      P.File);
  ASSERT_TRUE(P.AST);
  std::vector<Target> Ts = discoverTargets(P);
  ASSERT_EQ(Ts.size(), 1u);
  RuleOptions Opts;
  Opts.Scope = EditScope::Target;
  RuleContext Ctx(P, Ts[0], Opts);
  std::vector<Knob> Ks = findKnobs(Ctx);
  ASSERT_EQ(Ks.size(), 2u);
  EXPECT_EQ(Ks[0].Kind, KnobKind::Marked);
  EXPECT_EQ(Ks[1].Kind, KnobKind::Unroll);
}

} // namespace
