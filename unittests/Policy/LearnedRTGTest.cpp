//===-- LearnedRTGTest.cpp - The learned reward-to-go model ---------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Policy/LearnedRTG.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

TEST(LearnedRTGTest, SpearmanIsARankCorrelation) {
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  EXPECT_NEAR(spearman({1, 2, 3, 4}, {1, 4, 9, 16}), 1.0, 1e-12);
}

TEST(LearnedRTGTest, LearnsWhichRulesPayOff) {
  // "fast-io" variants realise 3x, "pragma" ones 1.05x, "bad" ones fail.
  std::vector<RTGExample> Ex;
  uint64_t Id = 0;
  for (int Rep = 0; Rep < 10; ++Rep)
    for (auto [Rule, Reward] : {std::pair<const char *, double>{"fast-io", 3.0},
                                {"pragma", 1.05},
                                {"bad", 0.02}}) {
      RTGExample E;
      E.Features.Rules = {Rule};
      E.Features.ChangedLines = Rep;
      E.Features.Depth = 1;
      E.Target = Reward * (1 + 0.01 * Rep);
      E.Id = Id++;
      Ex.push_back(E);
    }
  auto T = trainRTG(Ex);
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_GT(T->HeldOutSpearman, 0.8);
  RTGFeatures Fast, Slow;
  Fast.Rules = {"fast-io"};
  Slow.Rules = {"bad"};
  EXPECT_GT(T->Model->predict(Fast), T->Model->predict(Slow));
  // The model survives a round trip through JSON.
  auto Back = LearnedRTG::fromJSON(T->Model->toJSON());
  ASSERT_TRUE(bool(Back));
  EXPECT_DOUBLE_EQ((*Back)->predict(Fast), T->Model->predict(Fast));
}

TEST(LearnedRTGTest, RefusesToTrainOnNothing) {
  auto T = trainRTG({});
  ASSERT_FALSE(bool(T));
  EXPECT_NE(llvm::toString(T.takeError()).find("too few"), std::string::npos);
}

} // namespace
