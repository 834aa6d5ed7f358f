//===-- CpuEvidenceTest.cpp - Why a CPU target's lines are slow -----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/CpuEvidence.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

TEST(CpuEvidenceTest, RemarksOfGccAndClangOnTheTargetsLines) {
  const char *Gcc =
      "/usr/include/c++/12/bits/stl_tree.h:1966:18: missed: couldn't "
      "vectorize loop\n"
      "src/f.cpp:5:21: missed: couldn't vectorize loop\n"
      "src/f.cpp:6:11: missed: not vectorized: complicated access pattern.\n"
      "src/f.cpp:6:11: missed: not vectorized: complicated access pattern.\n"
      "src/f.cpp:7:3: missed: splitting region at dominance boundary bb9\n"
      "src/f.cpp:8:41: missed:   not inlinable: f/1 -> int fgetc(FILE*)/2, "
      "function body not available\n"
      "src/f.cpp:30:1: missed: couldn't vectorize loop\n"
      "src/g.cpp:6:1: missed: couldn't vectorize loop\n";
  std::vector<CompilerRemark> R =
      parseCompilerRemarks(Gcc, "/p/src/f.cpp", "/p", 4, 20);
  ASSERT_EQ(R.size(), 3u);
  EXPECT_EQ(R[0].Line, 5u);
  EXPECT_EQ(R[0].Column, 21u);
  EXPECT_EQ(R[0].Pass, "vectorize");
  EXPECT_EQ(R[1].Message, "not vectorized: complicated access pattern");
  EXPECT_EQ(R[2].Pass, "inline");
  EXPECT_EQ(R[2].Line, 8u);
  EXPECT_EQ(R[2].Message,
            "call to fgetc not inlined: function body not available");

  // GCC's internals left out: signatures, the GIMPLE it quotes.
  const char *Internals =
      "f.cpp:10:41: missed: will not early inline: long long unsigned int "
      "work(unsigned int)/162->std::vector<_Tp, _Alloc>::vector(size_type, "
      "const allocator_type&) [with _Tp = unsigned int]/186, growth 4 "
      "exceeds --param early-inlining-insns\n"
      "f.cpp:11:7: missed: not vectorized: statement can throw an "
      "exception: _112 = fgetc (stdin.0_2);\n"
      "f.cpp:12:7: missed: statement clobbers memory: _45 = fscanf "
      "(In_38(D), \"%d\", &V);\n";
  R = parseCompilerRemarks(Internals, "/p/f.cpp", "/p", 1, 100);
  ASSERT_EQ(R.size(), 3u);
  EXPECT_EQ(R[0].Message, "call to std::vector::vector not inlined: growth 4 "
                          "exceeds --param early-inlining-insns");
  EXPECT_EQ(R[1].Message, "not vectorized: statement can throw an exception");
  EXPECT_EQ(R[2].Message, "statement clobbers memory");

  const char *Clang =
      "f.cpp:6:14: remark: loop not vectorized: cannot identify array bounds "
      "[-Rpass-analysis=loop-vectorize]\n"
      "f.cpp:5:3: remark: loop not vectorized [-Rpass-missed=loop-vectorize]\n"
      "f.cpp:9:7: remark: failed to move load with loop-invariant address "
      "because the loop may invalidate its value [-Rpass-missed=licm]\n"
      "f.cpp:9:7: warning: unused variable 'x' [-Wunused-variable]\n";
  R = parseCompilerRemarks(Clang, "/p/f.cpp", "/p", 1, 100);
  ASSERT_EQ(R.size(), 3u);
  EXPECT_EQ(R[0].Message, "loop not vectorized: cannot identify array bounds");
  EXPECT_EQ(R[0].Pass, "vectorize");
  EXPECT_EQ(R[2].Pass, "licm");
}

TEST(CpuEvidenceTest, RemarkFlagsByCompiler) {
  EXPECT_EQ(remarkFlags({"g++-12", "-O2"}).front(), "-fopt-info-vec-missed");
  EXPECT_EQ(remarkFlags({"/usr/bin/clang++-22", "-O2"}).front().substr(0, 14),
            "-Rpass-missed=");
  EXPECT_TRUE(remarkFlags({"nvcc", "-O2"}).empty());
  EXPECT_TRUE(remarkFlags({"icpx", "-O2"}).empty());
}

TEST(CpuEvidenceTest, LinesOfASimulatedRun) {
  // Two events columns besides Ir; a call from line 12 of 1000 calls
  // costing 5000 instructions; a line outside the target; another file.
  const char *Out = "version: 1\n"
                    "positions: line\n"
                    "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi "
                    "Bim\n"
                    "fl=(1) /src/prog.cpp\n"
                    "fn=(1) work\n"
                    "10 1000 500 0 0 400 0 0 20 0 100 50\n"
                    "+1 2000\n"
                    "+1 300\n"
                    "cfn=(2) helper\n"
                    "calls=1000 30\n"
                    "12 5000\n"
                    "30 7000 0 0 0 0 0 0 0 0 10 1\n"
                    "fl=(2) /src/other.cpp\n"
                    "fn=(2)\n"
                    "30 5000\n"
                    "totals: 20300\n";
  auto P = parseCallgrind(Out);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  CpuEvidence E = lineEvidenceOf(*P, "prog.cpp", 9, 20);
  ASSERT_EQ(E.Lines.size(), 3u);
  const LineEvidence *L10 = nullptr, *L12 = nullptr;
  for (const LineEvidence &L : E.Lines) {
    if (L.Line == 10)
      L10 = &L;
    if (L.Line == 12)
      L12 = &L;
    EXPECT_NE(L.Line, 30u);
  }
  ASSERT_TRUE(L10 && L12);
  EXPECT_EQ(L10->Instructions, 1000u);
  EXPECT_EQ(L10->L1Misses, 400u);
  EXPECT_EQ(L10->LLMisses, 20u);
  EXPECT_EQ(L10->Branches, 100u);
  EXPECT_EQ(L10->Mispredicts, 50u);
  EXPECT_EQ(L12->Calls, 1000u);
  EXPECT_EQ(L12->CallInstructions, 5000u);
  // 1000 + 10*400 + 100*20 + 10*50: hottest by estimated cycles.
  EXPECT_EQ(E.Lines.front().Line, 10u);
  EXPECT_DOUBLE_EQ(L10->estimatedCycles(), 7500);
  EXPECT_GT(E.TotalCycles, E.TargetCycles);
}

TEST(CpuEvidenceTest, AnUnsimulatedProfileHasNoLines) {
  auto P = parseCallgrind("positions: line\nevents: Ir\nfl=(1) /src/p.cpp\n"
                          "fn=(1) f\n10 1000\n");
  ASSERT_TRUE(bool(P));
  EXPECT_TRUE(lineEvidenceOf(*P, "p.cpp", 1, 20).Lines.empty());
}

} // namespace
