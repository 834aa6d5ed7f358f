//===-- RuleRegistryTest.cpp - The rule catalogue and its selection -------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Rules/Rule.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

TEST(RuleRegistryTest, IdsAreUniqueKebabCaseAndDocumented) {
  llvm::StringSet<> Seen;
  ASSERT_GE(getAllRules().size(), 25u);
  for (const std::unique_ptr<Rule> &R : getAllRules()) {
    llvm::StringRef Id = R->getId();
    EXPECT_TRUE(Seen.insert(Id).second) << Id.str();
    EXPECT_FALSE(Id.empty());
    for (char C : Id)
      EXPECT_TRUE((C >= 'a' && C <= 'z') || (C >= '0' && C <= '9') || C == '-')
          << Id.str();
    EXPECT_FALSE(Id.starts_with("-") || Id.ends_with("-")) << Id.str();
    EXPECT_FALSE(R->getSummary().empty()) << Id.str();
    std::string Doc =
        std::string(MAXCODE_SOURCE_DIR) + "/docs/rules/" + Id.str() + ".md";
    EXPECT_TRUE(llvm::sys::fs::exists(Doc)) << "missing " << Doc;
    EXPECT_EQ(findRule(Id), R.get());
  }
  EXPECT_EQ(findRule("no-such-rule"), nullptr);
}

TEST(RuleRegistryTest, CudaRulesSayTheyAreCudaOnly) {
  for (const std::unique_ptr<Rule> &R : getAllRules())
    EXPECT_EQ(R->getLanguages() == RuleLanguages::Cuda,
              R->getId().starts_with("cuda-"))
        << R->getId().str();
  EXPECT_EQ(describeLanguages(RuleLanguages::Cuda), "CUDA");
  EXPECT_EQ(describeLanguages(RuleLanguages::Host), "C/C++");
  EXPECT_EQ(describeLanguages(RuleLanguages::CPlusPlusAndCuda), "C++/CUDA");
}

TEST(RuleSelectionTest, DefaultAndEmptyEnableEveryRuleNotRetired) {
  RuleSelection All;
  auto Empty = RuleSelection::parse("");
  auto Star = RuleSelection::parse("*");
  ASSERT_TRUE(bool(Empty));
  ASSERT_TRUE(bool(Star));
  unsigned Retired = 0;
  for (const std::unique_ptr<Rule> &R : getAllRules()) {
    bool On = R->isOnByDefault();
    Retired += !On;
    EXPECT_EQ(All.isEnabled(R->getId()), On) << R->getId().str();
    EXPECT_EQ(Empty->isEnabled(R->getId()), On) << R->getId().str();
    EXPECT_EQ(Star->isEnabled(R->getId()), On) << R->getId().str();
  }
  // docs/Rules.md, "Retired rules", lists these nine.
  EXPECT_EQ(Retired, 9u);
  EXPECT_FALSE(findRule("move-const-arg")->isOnByDefault());
  EXPECT_TRUE(findRule("fast-io")->isOnByDefault());
  EXPECT_TRUE(findRule("range-for-copy")->isOnByDefault());
  EXPECT_TRUE(findRule("inefficient-algorithm")->isOnByDefault());
}

TEST(RuleSelectionTest, OnlyAnExactIdTurnsARetiredRuleOn) {
  auto Named = RuleSelection::parse("*,move-const-arg");
  ASSERT_TRUE(bool(Named));
  EXPECT_TRUE(Named->isEnabled("move-const-arg"));
  EXPECT_FALSE(Named->isEnabled("no-automatic-move"));
  EXPECT_TRUE(Named->isEnabled("fast-io"));

  for (llvm::StringRef Glob :
       {"move-*", "move-const-ar?", "move-const-[a]rg", "*-const-arg"}) {
    auto Wild = RuleSelection::parse(Glob);
    ASSERT_TRUE(bool(Wild)) << Glob.str();
    EXPECT_FALSE(Wild->isEnabled("move-const-arg")) << Glob.str();
  }
  // A wildcard still turns rules off and on-by-default rules on.
  auto Mixed = RuleSelection::parse("-*,endl-*,move-*");
  ASSERT_TRUE(bool(Mixed));
  EXPECT_TRUE(Mixed->isEnabled("endl-to-newline"));
  EXPECT_FALSE(Mixed->isEnabled("move-constructor-init"));

  // Later globs still win: a retired rule named, then everything off.
  auto Off = RuleSelection::parse("move-const-arg,-*");
  ASSERT_TRUE(bool(Off));
  EXPECT_FALSE(Off->isEnabled("move-const-arg"));
  auto Again = RuleSelection::parse("-move-const-arg,move-const-arg");
  ASSERT_TRUE(bool(Again));
  EXPECT_TRUE(Again->isEnabled("move-const-arg"));
}

TEST(RuleSelectionTest, LaterGlobsWinAsInClangTidy) {
  auto S = RuleSelection::parse("*,-cuda-*,cuda-unroll");
  ASSERT_TRUE(bool(S));
  EXPECT_TRUE(S->isEnabled("fast-io"));
  EXPECT_FALSE(S->isEnabled("cuda-fast-math"));
  EXPECT_TRUE(S->isEnabled("cuda-unroll"));

  auto Only = RuleSelection::parse("-*, fast-io ,endl-*");
  ASSERT_TRUE(bool(Only));
  std::vector<const Rule *> On = Only->getEnabledRules();
  ASSERT_EQ(On.size(), 2u);
  EXPECT_EQ(On[0]->getId(), "fast-io");
  EXPECT_EQ(On[1]->getId(), "endl-to-newline");

  auto None = RuleSelection::parse("-*");
  ASSERT_TRUE(bool(None));
  EXPECT_TRUE(None->getEnabledRules().empty());
}

TEST(RuleSelectionTest, BadGlobsAreErrors) {
  auto Bad = RuleSelection::parse("fast-[io");
  EXPECT_FALSE(bool(Bad));
  llvm::consumeError(Bad.takeError());
  auto Dash = RuleSelection::parse("fast-io,-");
  EXPECT_FALSE(bool(Dash));
  llvm::consumeError(Dash.takeError());
}

} // namespace
