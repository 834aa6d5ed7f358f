//===-- TargetDiscoveryTest.cpp - Targets on real ASTs --------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/Target.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

std::vector<Target> discover(llvm::StringRef Code) {
  ParsedFile P;
  P.File = "input.cc";
  P.AST = clang::tooling::buildASTFromCodeWithArgs(
      Code, {"-std=c++17", "-resource-dir=" MAXCODE_CLANG_RESOURCE_DIR},
      P.File);
  EXPECT_TRUE(P.AST);
  EXPECT_FALSE(P.AST->getDiagnostics().hasErrorOccurred());
  return discoverTargets(P);
}

const Target *find(const std::vector<Target> &Ts, llvm::StringRef Name) {
  for (const Target &T : Ts)
    if (T.Name == Name)
      return &T;
  return nullptr;
}

const char *Code = R"cpp(int square(int x) { return x * x; }
namespace ns {
struct S {
  int get() const { return v; }
  int v = 0;
};
template <typename T>
T sum(const T *p, int n) {
  T s{};
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < 1; ++j)
      s += p[i];
  return s;
}
} // namespace ns
int decl_only(int);
int main() {
  auto l = [](int a) { return a; };
  int a[3] = {1, 2, 3};
  while (l(1) < 0) {}
  return ns::sum(a, 3) + square(2);
}
)cpp";

TEST(TargetDiscoveryTest, ListsDefinitionsInTheMainFile) {
  std::vector<Target> Ts = discover(Code);
  std::vector<std::string> Names;
  for (const Target &T : Ts)
    Names.push_back(T.Name);
  // Source order; no declarations, no lambdas, no instantiations.
  EXPECT_EQ(Names, (std::vector<std::string>{"square", "ns::S::get",
                                             "ns::sum", "main"}));
}

TEST(TargetDiscoveryTest, RangesSignaturesAndLoops) {
  std::vector<Target> Ts = discover(Code);
  const Target *Sum = find(Ts, "ns::sum");
  ASSERT_TRUE(Sum);
  EXPECT_EQ(Sum->Kind, TargetKind::CpuFunction);
  EXPECT_EQ(Sum->Line, 7u); // the template header
  EXPECT_EQ(Sum->EndLine, 14u);
  EXPECT_EQ(Sum->LoopDepth, 2u);
  EXPECT_EQ(Sum->Signature, "template <typename T> T sum(const T *p, int n)");
  llvm::StringRef Text(Code);
  EXPECT_TRUE(Text.slice(Sum->BeginOffset, Sum->EndOffset)
                  .starts_with("template <typename T>"));
  EXPECT_TRUE(Text.slice(Sum->BeginOffset, Sum->EndOffset).ends_with("}"));
  // Instantiations give the linker names a profile reports.
  ASSERT_EQ(Sum->MangledNames.size(), 1u);
  EXPECT_EQ(Sum->MangledNames[0], "_ZN2ns3sumIiEET_PKS1_i");
  const Target *Main = find(Ts, "main");
  ASSERT_TRUE(Main);
  EXPECT_EQ(Main->LoopDepth, 1u);
  EXPECT_EQ(Main->MangledNames, std::vector<std::string>{"main"});
  EXPECT_EQ(find(Ts, "square")->MangledNames,
            std::vector<std::string>{"_Z6squarei"});
  EXPECT_EQ(find(Ts, "square")->TextHash.size(), 64u);
  EXPECT_FALSE(find(Ts, "square")->USR.empty());
}

TEST(TargetDiscoveryTest, StaticRankingPrefersLoops) {
  std::vector<Target> Ts = discover(Code);
  rankTargets(Ts);
  EXPECT_EQ(Ts.front().Name, "ns::sum");
}

} // namespace
