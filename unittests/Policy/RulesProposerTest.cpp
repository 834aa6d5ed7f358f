//===-- RulesProposerTest.cpp - Combining and ordering rule edits ---------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Policy/RulesProposer.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

struct Parsed {
  ParsedFile File;
  std::vector<Target> Targets;
};

Parsed parse(llvm::StringRef Code) {
  Parsed P;
  P.File.File = "prog.cc";
  P.File.AST = clang::tooling::buildASTFromCodeWithArgs(
      Code, {"-std=c++17", "-resource-dir=" MAXCODE_CLANG_RESOURCE_DIR},
      P.File.File);
  EXPECT_TRUE(P.File.AST);
  EXPECT_FALSE(P.File.AST->getDiagnostics().hasErrorOccurred());
  P.Targets = discoverTargets(P.File);
  rankTargets(P.Targets);
  return P;
}

const char *Program = R"cpp(#include <iostream>
#include <cmath>
using namespace std;
int main() {
  int n;
  cin >> n;
  for (int i = 0; i < n; ++i)
    cout << pow(i, 2) << endl;
  return 0;
}
)cpp";

RuleRequest request(Parsed &P, llvm::StringRef Globs) {
  RuleRequest R;
  R.Parsed = &P.File;
  R.T = &P.Targets.front();
  R.Selection = cantFail(RuleSelection::parse(Globs));
  R.Options.HostFeatures = {};
  return R;
}

TEST(RulesProposerTest, CombinedVariantFirstThenEachEdit) {
  Parsed P = parse(Program);
  RuleRequest R = request(P, "fast-io,endl-to-newline,pow-to-multiply");
  std::vector<Variant> Vs = proposeWithRules(R);
  ASSERT_GE(Vs.size(), 3u);
  // endl-to-newline rewrites what fast-io's printf replaces: one of them.
  EXPECT_EQ(Vs[0].Rules,
            (std::vector<std::string>{"fast-io", "pow-to-multiply"}));
  EXPECT_NE(Vs[0].Text.find("printf(\"%g\\n\", ((double)i * i));"),
            std::string::npos)
      << Vs[0].Text;
  EXPECT_NE(Vs[0].Text.find("scanf(\"%d\", &n);"), std::string::npos)
      << Vs[0].Text;
  EXPECT_EQ(Vs[0].Text.find("#include <iostream>"), std::string::npos);
  EXPECT_NE(Vs[0].Text.find("#include <cstdio>"), std::string::npos);
  // Where it changed what, for the summary of a winner.
  ASSERT_EQ(Vs[0].Changes.size(), 2u);
  EXPECT_EQ(Vs[0].Changes[0].Where, "main");
  EXPECT_EQ(Vs[0].Changes[0].What, "stdio");
  EXPECT_EQ(Vs[0].Changes[1].What, "multiplication");
  // Then the edits alone, most promising first.
  EXPECT_EQ(Vs[1].Rules, std::vector<std::string>{"fast-io"});
  for (const Variant &V : Vs)
    EXPECT_NE(V.Text, Program);
}

TEST(RulesProposerTest, BlamedRulesGoLastAndTagsPromote) {
  Parsed P = parse(Program);
  RuleRequest R = request(P, "fast-io,endl-to-newline,pow-to-multiply");
  Critique Broken;
  Broken.Tags = {CritiqueTag::BuildError};
  Broken.BlamedRules = {"fast-io"};
  std::vector<Critique> Cs = {Broken};
  R.Critiques = Cs;
  EXPECT_DOUBLE_EQ(critiqueFactor("fast-io", Cs), 0.1);
  EXPECT_DOUBLE_EQ(critiqueFactor("endl-to-newline", Cs), 1.0);
  // fast-io offers stdio and, as its alternative, unsynced streams.
  std::vector<PlacedEdit> Edits = collectRuleEdits(R);
  ASSERT_EQ(Edits.size(), 4u);
  EXPECT_EQ(Edits.back().Edit.RuleId, "fast-io");
  EXPECT_TRUE(Edits.back().InTarget);

  Critique IO;
  IO.Tags = {CritiqueTag::Faster, CritiqueTag::IOBound};
  std::vector<Critique> Promote = {IO};
  EXPECT_DOUBLE_EQ(critiqueFactor("fast-io", Promote), 2.0);
  EXPECT_DOUBLE_EQ(critiqueFactor("endl-to-newline", Promote), 2.0);
  EXPECT_DOUBLE_EQ(critiqueFactor("pow-to-multiply", Promote), 1.0);

  // The CPU evidence's mispredicted branches promote branch-to-select.
  Critique Branchy;
  Branchy.Tags = {CritiqueTag::MispredictBound};
  EXPECT_DOUBLE_EQ(critiqueFactor("branch-to-select", {Branchy}), 2.0);
  EXPECT_DOUBLE_EQ(critiqueFactor("fast-io", {Branchy}), 1.0);
  // Calls costing much promote the rules that remove a call's work.
  Critique Calls;
  Calls.Tags = {CritiqueTag::CallBound};
  EXPECT_DOUBLE_EQ(critiqueFactor("memoize-recursion", {Calls}), 1.5);
  EXPECT_DOUBLE_EQ(critiqueFactor("string-append", {Calls}), 1.5);
  EXPECT_DOUBLE_EQ(critiqueFactor("inefficient-algorithm", {Calls}), 1.5);
  EXPECT_DOUBLE_EQ(critiqueFactor("move-const-arg", {Calls}), 1.0);

  // A slower variant's rules are demoted, less than broken ones.
  Critique Slow;
  Slow.Tags = {CritiqueTag::Slower};
  Slow.BlamedRules = {"pow-to-multiply"};
  EXPECT_DOUBLE_EQ(critiqueFactor("pow-to-multiply", {Slow}), 0.5);
}

TEST(RulesProposerTest, DeterministicAndBounded) {
  Parsed P = parse(Program);
  RuleRequest R = request(P, "*");
  R.Seed = 7;
  std::vector<Variant> A = proposeWithRules(R);
  std::vector<Variant> B = proposeWithRules(R);
  ASSERT_EQ(A.size(), B.size());
  for (size_t I = 0; I < A.size(); ++I)
    EXPECT_EQ(A[I].Text, B[I].Text);
  R.MaxCount = 2;
  EXPECT_EQ(proposeWithRules(R).size(), 2u);
}

TEST(RulesProposerTest, KnobValuesAreNeverCombined) {
  Parsed P = parse(R"cpp(constexpr int TILE = 16;
int sum(const int *a, int n) {
  int s = 0;
  for (int i = 0; i < n; i += TILE)
    s += a[i];
  return s;
}
)cpp");
  RuleRequest R = request(P, "tune-constants,loop-unroll-pragma");
  std::vector<Variant> Vs = proposeWithRules(R);
  unsigned Knobs = 0;
  for (const Variant &V : Vs) {
    if (llvm::is_contained(V.Rules, "tune-constants")) {
      ++Knobs;
      EXPECT_EQ(V.Rules.size(), 1u) << V.Description;
    }
  }
  EXPECT_EQ(Knobs, 4u); // 8, 32, 4, 64.
}

TEST(RulesProposerTest, TargetScopeDropsEditsElsewhere) {
  Parsed P = parse(R"cpp(#include <iostream>
int helper(int x) { return x; }
int main() {
  std::cout << helper(1) << std::endl;
}
)cpp");
  RuleRequest R = request(P, "endl-to-newline,fast-io");
  R.Options.Scope = EditScope::Target;
  const Target *Helper = nullptr;
  for (const Target &T : P.Targets)
    if (T.Name == "helper")
      Helper = &T;
  ASSERT_TRUE(Helper);
  R.T = Helper;
  EXPECT_TRUE(proposeWithRules(R).empty());
}

} // namespace
