//===-- RoleKindsTest.cpp - The policy, critic and RTG kinds --------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Search/Driver.h"
#include "maxcode/Search/LLMRoles.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

TEST(RoleKindsTest, NamesRoundTrip) {
  for (PolicyKind K : {PolicyKind::Rules, PolicyKind::LLM})
    EXPECT_EQ(llvm::cantFail(parseOptionValue<PolicyKind>(optionValueName(K))),
              K);
  for (CriticKind K : {CriticKind::Rules, CriticKind::LLM, CriticKind::None})
    EXPECT_EQ(llvm::cantFail(parseOptionValue<CriticKind>(optionValueName(K))),
              K);
  for (RTGKind K : {RTGKind::None, RTGKind::Learned, RTGKind::LLM})
    EXPECT_EQ(llvm::cantFail(parseOptionValue<RTGKind>(optionValueName(K))), K);
  // The names the command line, .clang-maxcode and the JSON output use.
  EXPECT_EQ(optionValueName(PolicyKind::LLM), "llm");
  EXPECT_EQ(optionValueName(CriticKind::None), "none");
  EXPECT_EQ(optionValueName(RTGKind::Learned), "learned");
}

TEST(RoleKindsTest, UnknownNamesSayWhatThereIs) {
  auto P = parseOptionValue<PolicyKind>("gpt");
  ASSERT_FALSE(bool(P));
  EXPECT_EQ(llvm::toString(P.takeError()), "gpt is not one of rules, llm");
  auto C =
      parseOptionValue<CriticKind>("LLM"); // Names are exact, as cl::opt's are.
  ASSERT_FALSE(bool(C));
  EXPECT_EQ(llvm::toString(C.takeError()),
            "LLM is not one of rules, llm, none");
}

TEST(RoleKindsTest, AnyLLMRoleNeedsTheLLM) {
  RunOptions O;
  EXPECT_FALSE(usesLLM(O));
  O.Settings.RTG = RTGKind::LLM;
  EXPECT_TRUE(usesLLM(O));
  O.Settings.RTG = RTGKind::Learned;
  O.Settings.Critic = CriticKind::LLM;
  EXPECT_TRUE(usesLLM(O));
}

} // namespace
