//===-- CallgrindTest.cpp - Reading callgrind output ----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/Profile.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

// The shape callgrind 3.19 writes with --demangle=no: compressed names, a
// recursion level ("'2"), relative line positions, and calls.
const char *Sample = R"(# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4242
cmd:  ./prog
part: 1

positions: line
events: Ir
summary: 1000

ob=(1) /tmp/prog
fl=(1) /tmp/prog.cpp
fn=(1) main
5 10
+1 20
cfl=(1)
cfn=(2) _Z4worki
calls=1 12
* 700
cob=(2) /usr/lib/libc.so.6
cfl=(2) ???
cfn=(3) printf
calls=1 0
* 100

fn=(2)
12 300
+2 100
cfn=(4) _Z4worki'2
calls=3 12
* 300

fn=(4)
12 250
cfn=(4)
calls=2 12
* 200
+1 50

ob=(2)
fl=(2)
fn=(3)
0 100
)";

TEST(CallgrindTest, ParsesSelfCostsAndCalls) {
  auto P = parseCallgrind(Sample);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(P->Total, 1000u);
  EXPECT_EQ(P->Functions["main"].Self, 30u);
  ASSERT_EQ(P->Functions["main"].Calls.size(), 2u);
  EXPECT_EQ(P->Functions["main"].Calls[0].Callee, "_Z4worki");
  EXPECT_EQ(P->Functions["main"].Calls[0].Inclusive, 700u);
  EXPECT_EQ(P->Functions["_Z4worki"].Self, 400u);
  EXPECT_EQ(P->Functions["_Z4worki'2"].Self, 300u);
  // Relative positions: "+1" after line 5 is line 6, "+2" after 12 is 14.
  EXPECT_EQ((P->Lines[{"/tmp/prog.cpp", 6}]), 20u);
  EXPECT_EQ((P->Lines[{"/tmp/prog.cpp", 14}]), 100u);
}

TEST(CallgrindTest, RecursionSuffix) {
  EXPECT_EQ(callgrindBaseName("_Z3fibi'2"), "_Z3fibi");
  EXPECT_EQ(callgrindBaseName("main"), "main");
  EXPECT_EQ(callgrindBaseName("operator'x"), "operator'x");
}

TEST(CallgrindTest, CostGoesToTheTargetThatSpendsIt) {
  auto P = parseCallgrind(Sample);
  ASSERT_TRUE(bool(P));
  std::vector<Target> Targets(2);
  Targets[0].Name = "main";
  Targets[0].MangledNames = {"main"};
  Targets[1].Name = "work";
  Targets[1].MangledNames = {"_Z4worki"};
  attributeProfile(*P, Targets);
  // main: its own 30 plus the library call (100); work's 700 is work's.
  EXPECT_DOUBLE_EQ(*Targets[0].Share, 0.13);
  // work: 300 + 100 + 250 + 50 of its own recursion levels, calls into
  // itself not counted twice.
  EXPECT_DOUBLE_EQ(*Targets[1].Share, 0.7);
  rankTargets(Targets);
  EXPECT_EQ(Targets.front().Name, "work");
}

TEST(CallgrindTest, TwoProgramsMainsStayApart) {
  // A bench that runs two of a project's programs: each has its own main.
  auto Program = [](llvm::StringRef Object, llvm::StringRef File,
                    unsigned Cost) {
    std::string Text =
        ("events: Ir\nsummary: " + llvm::Twine(Cost) + "\nob=" + Object +
         "\nfl=" + File + "\nfn=main\n1 " + llvm::Twine(Cost) + "\n")
            .str();
    return parseCallgrind(Text);
  };
  auto A = Program("/b/encode", "src/encode.cpp", 900);
  auto B = Program("/b/decode", "/p/src/decode.cpp", 100);
  auto Again = Program("/b/encode", "src/encode.cpp", 900);
  ASSERT_TRUE(A && B && Again);
  A->merge(*B);
  A->merge(*Again);
  EXPECT_EQ(A->Total, 1900u);
  std::vector<Target> Targets(2);
  for (Target &T : Targets) {
    T.Name = "main";
    T.MangledNames = {"main"};
  }
  Targets[0].File = "/p/src/decode.cpp";
  Targets[1].File = "/p/src/encode.cpp";
  attributeProfile(*A, Targets);
  // The same program run twice is one function; the other program's main
  // is not its cost.
  EXPECT_DOUBLE_EQ(*Targets[0].Share, 100.0 / 1900);
  EXPECT_DOUBLE_EQ(*Targets[1].Share, 1800.0 / 1900);
}

TEST(CallgrindTest, KernelsRankByGpuTime) {
  std::vector<Target> Targets(4);
  Targets[0].Name = "main";
  Targets[1].Name = "naiveKernel";
  Targets[1].Kind = TargetKind::CudaKernel;
  Targets[1].MangledNames = {"_Z11naiveKernelPf"};
  Targets[2].Name = "ops::scale";
  Targets[2].Kind = TargetKind::CudaKernel;
  Targets[3].Name = "helper";
  Targets[3].Kind = TargetKind::CudaDeviceFunction;
  // A template kernel without linker names matches by qualified name; a
  // kernel of a library (cub) counts in the total only.
  std::vector<KernelTime> Times = {
      {"_ZN3ops5scaleIfEEvPT_i", "ops::scale", 600},
      {"_Z11naiveKernelPf", "naiveKernel", 300},
      {"_ZN3cub6kernelEv", "cub::kernel", 100}};
  attributeKernelTimes(Times, Targets);
  EXPECT_DOUBLE_EQ(*Targets[0].Share, 0.0);
  EXPECT_DOUBLE_EQ(*Targets[1].Share, 0.3);
  EXPECT_DOUBLE_EQ(*Targets[2].Share, 0.6);
  EXPECT_DOUBLE_EQ(*Targets[3].Share, 0.0);
  rankTargets(Targets);
  EXPECT_EQ(Targets[0].Name, "ops::scale");
  EXPECT_EQ(Targets[1].Name, "naiveKernel");
}

// A relative position past the largest 64-bit value overflowed (UBSan in the
// callgrind fuzzer's build), and a line past the largest unsigned one counted
// as a small line.
TEST(CallgrindTest, PositionsThatDoNotFit) {
  auto P = parseCallgrind("events: Ir\n"
                          "fl=a.cpp\n"
                          "fn=f\n"
                          "9223372036854775807 1\n"
                          "+9 2\n"
                          "-9223372036854775807 4\n"
                          "4294967297 8\n"
                          "3 16\n"
                          "+1 32\n");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(P->Functions["f"].Self, 63u);
  // The third line is relative to the second, which is past any line.
  EXPECT_EQ(P->Lines.size(), 3u);
  EXPECT_EQ((P->Lines[{"a.cpp", 9}]), 4u);
  EXPECT_EQ((P->Lines[{"a.cpp", 3}]), 16u);
  EXPECT_EQ((P->Lines[{"a.cpp", 4}]), 32u);
}

TEST(CallgrindTest, RejectsGarbage) {
  EXPECT_FALSE(bool(parseCallgrind("fn=(7)\n1 2\n")));
  auto P = parseCallgrind("hello world\n");
  EXPECT_FALSE(bool(P));
  if (!P)
    llvm::consumeError(P.takeError());
}

} // namespace

// A target that only calls the program's own code in another file (not a
// target) spends nothing itself; a call into a system header's template
// (the standard library's, in the program's object) is its own.
TEST(CallgrindTest, OwnCostLeavesOtherProgramFunctionsOut) {
  auto P = parseCallgrind(R"(# callgrind format
positions: line
events: Ir
summary: 1000

ob=(1) /tmp/prog
fl=(1) /tmp/main.cpp
fn=(1) _Z4loadv
3 10
cfl=(2) /tmp/parse.cpp
cfn=(2) _Z8parseAllv
calls=1 2
* 700
fn=(3) _Z7sortAllv
9 20
cfl=(3) /usr/include/c++/12/bits/stl_algo.h
cfn=(4) _ZSt4sortIPlEvT_S1_
calls=1 5
* 250

fl=(2)
fn=(2)
2 700

fl=(3)
fn=(4)
5 250
)");
  ASSERT_TRUE(bool(P));
  EXPECT_EQ(P->Functions["_Z8parseAllv"].File, "/tmp/parse.cpp");
  EXPECT_EQ(P->Functions["_Z8parseAllv"].Object, "/tmp/prog");
  std::vector<Target> Targets(2);
  Targets[0].Name = "load";
  Targets[0].MangledNames = {"_Z4loadv"};
  Targets[1].Name = "sortAll";
  Targets[1].MangledNames = {"_Z7sortAllv"};
  attributeProfile(*P, Targets);
  EXPECT_DOUBLE_EQ(*Targets[0].Share, 0.01);
  EXPECT_DOUBLE_EQ(*Targets[0].InclusiveShare, 0.71);
  EXPECT_DOUBLE_EQ(*Targets[1].Share, 0.27);
  EXPECT_DOUBLE_EQ(*Targets[1].InclusiveShare, 0.27);
  rankTargets(Targets);
  EXPECT_EQ(Targets.front().Name, "sortAll");
}

TEST(CallgrindTest, WithoutDebugInfoTheProgramsOwnHelpersAreStillTheirs) {
  // A release build: no source lines. A helper of the program's own (in its
  // object, a name not the standard library's) is not the caller's cost; a
  // standard-library template instantiated in the program is.
  auto P = parseCallgrind(R"(# callgrind format
positions: line
events: Ir
summary: 1000

ob=(1) /tmp/prog
fl=(1) ???
fn=(1) _ZN5ModelC2EPKc
0 100
cfn=(2) _ZN5Model12load_textureEv
calls=1 0
0 600
cfn=(3) _ZNSt6vectorIiSaIiEE9push_backERKi
calls=1 0
0 200
fn=(2)
0 600
fn=(3)
0 200
)");
  ASSERT_TRUE(bool(P));
  std::vector<Target> Targets(1);
  Targets[0].Name = "Model::Model";
  Targets[0].MangledNames = {"_ZN5ModelC2EPKc"};
  attributeProfile(*P, Targets);
  EXPECT_DOUBLE_EQ(*Targets[0].Share, 0.3);
  EXPECT_DOUBLE_EQ(*Targets[0].InclusiveShare, 0.9);
}
