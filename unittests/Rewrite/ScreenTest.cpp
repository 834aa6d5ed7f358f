//===-- ScreenTest.cpp - The static screen of variants --------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Rewrite/Screen.h"
#include "llvm/ADT/STLExtras.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

clang::tooling::CompileCommand command() {
  clang::tooling::CompileCommand C;
  C.Directory = "/";
  C.Filename = "/screen/prog.cpp";
  C.CommandLine = {"g++", "-std=c++17", "/screen/prog.cpp"};
  return C;
}

ParseSettings settings() {
  ParseSettings S;
  S.ResourceDir = MAXCODE_CLANG_RESOURCE_DIR;
  return S;
}

std::vector<std::string> namesIn(llvm::StringRef Code) {
  auto Scan = scanFile(command(), "/screen/prog.cpp", settings(), Code);
  EXPECT_TRUE(bool(Scan)) << llvm::toString(Scan.takeError());
  std::vector<std::string> Out;
  if (Scan)
    for (const ApiUse &U : Scan->Uses)
      Out.push_back((U.Definition ? "def " : "") + U.Name);
  return Out;
}

TEST(ScreenTest, FindsLibraryCallsByWhatTheyResolveTo) {
  auto N = namesIn(R"(#include <chrono>
#include <cstdlib>
#include <unistd.h>
int f() {
  auto T = std::chrono::steady_clock::now();
  (void)T;
  if (std::getenv("X"))
    return fork();
  return std::system("true");
}
)");
  EXPECT_TRUE(llvm::is_contained(N, "std::chrono::steady_clock::now"));
  EXPECT_TRUE(llvm::is_contained(N, "getenv"));
  EXPECT_TRUE(llvm::is_contained(N, "fork"));
  EXPECT_TRUE(llvm::is_contained(N, "system"));
}

TEST(ScreenTest, TheUsersOwnFunctionsOfTheSameNameAreNotTheLibrarys) {
  // Competitive code names its helpers link, connect, time...
  auto N = namesIn(R"(namespace g { int time(int X) { return X; } }
int connect(int A, int B) { return A + B; }
int f() { int clock = 3; return g::time(clock) + connect(1, 2); }
)");
  EXPECT_TRUE(N.empty()) << N.front();
}

TEST(ScreenTest, CLinkageDefinitionsReplaceLibrarySymbols) {
  auto N = namesIn(R"(#include <ctime>
extern "C" int clock_gettime(clockid_t, struct timespec *T) throw() {
  T->tv_sec = 0;
  return 0;
}
extern "C" long fake(void *) __asm__("time");
extern "C" long fake(void *) { return 0; }
)");
  EXPECT_TRUE(llvm::is_contained(N, "def clock_gettime"));
  EXPECT_TRUE(llvm::is_contained(N, "def time"));
}

TEST(ScreenTest, ProcPathsAndInlineAssembly) {
  auto N = namesIn(R"(#include <cstdio>
int f() {
  std::FILE *F = std::fopen("/pr" "oc/self/maps", "r");
  unsigned Lo;
  __asm__ volatile("rdtsc" : "=a"(Lo) : : "edx");
  return F != nullptr && Lo;
}
)");
  EXPECT_TRUE(llvm::is_contained(N, "/proc")); // Concatenated literals.
  EXPECT_TRUE(llvm::is_contained(N, "asm"));
  EXPECT_TRUE(llvm::is_contained(N, "fopen"));
}

Target target(llvm::StringRef Code, llvm::StringRef Begin,
              llvm::StringRef EndBefore) {
  Target T;
  T.Name = "work";
  T.BeginOffset = Code.find(Begin);
  T.EndOffset = Code.rfind('}', Code.find(EndBefore)) + 1;
  return T;
}

const char *Harness = R"(#include <cstdio>
#define LIMIT 10
int work(int N) {
  int S = 0;
  for (int I = 0; I < N; ++I)
    S += I;
  return S;
}
int main() { std::printf("%d\n", work(LIMIT)); }
)";

std::optional<std::string> judge(llvm::StringRef Variant) {
  llvm::StringRef O(Harness);
  auto Screen =
      VariantScreen::create(command(), "/screen/prog.cpp", settings(), O,
                            target(O, "int work", "int main"),
                            EditScope::Target, {}, OptionNames::Flags);
  EXPECT_TRUE(bool(Screen)) << llvm::toString(Screen.takeError());
  return Screen ? (*Screen)->screen(Variant) : std::nullopt;
}

TEST(ScreenTest, TheScopeIsJudgedAfterPreprocessing) {
  std::string Fine = Harness;
  Fine.replace(Fine.find("  for"), 0, "#define STEP 1\n");
  Fine.replace(Fine.find("    S += I;"), 0, "#undef STEP\n");
  EXPECT_EQ(judge(Fine), std::nullopt);
  // A digraph directive that changes the harness after the target.
  std::string Digraph = Harness;
  Digraph.replace(Digraph.find("int work"), 0,
                  "%:undef LIMIT\n%:define LIMIT 1\n");
  auto Why = judge(Digraph);
  ASSERT_TRUE(Why);
  EXPECT_NE(Why->find("line 9 (after the target)"), std::string::npos) << *Why;
  // A _Pragma outside the target's body.
  std::string Pragma = Harness;
  Pragma.replace(Pragma.find("int work"), 0,
                 "_Pragma(\"GCC optimize(\\\"O0\\\")\")\n");
  Why = judge(Pragma);
  ASSERT_TRUE(Why);
  EXPECT_NE(Why->find("a #pragma at line 3"), std::string::npos) << *Why;
  // A line splice inside a directive name.
  std::string Splice = Harness;
  Splice.replace(Splice.find("int work"), 0,
                 "#\\\nundef LIMIT\n#define LIMIT 2\n");
  Why = judge(Splice);
  ASSERT_TRUE(Why);
  EXPECT_NE(Why->find("(after the target) was changed"), std::string::npos);
}

} // namespace
