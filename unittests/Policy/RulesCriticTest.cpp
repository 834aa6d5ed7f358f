//===-- RulesCriticTest.cpp - The rules critic on evaluation results ------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Policy/RulesCritic.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

const char *Base = "#include <cstdio>\n"
                   "int main() {\n"
                   "  int n;\n"
                   "  scanf(\"%d\", &n);\n"
                   "  for (int i = 0; i < n; ++i)\n"
                   "    printf(\"%d\\n\", i * i);\n"
                   "}\n";

Variant variant(std::vector<std::string> Rules) {
  Variant V;
  V.Text = "#include <cstdio>\n"
           "int main() {\n"
           "  int n;\n"
           "  scanf(\"%d\", &n);\n"
           "  for (int i = 0; i < n; ++i)\n"
           "    printf(\"%d\\n\", i * j);\n"
           "}\n";
  V.Rules = std::move(Rules);
  return V;
}

TEST(RulesCriticTest, BuildErrorOnAChangedLine) {
  EvalResult R;
  R.Status = EvalStatus::BuildError;
  R.Reason = "the compiler failed";
  R.Diagnostics.push_back(
      {6, 26, "error", "'j' was not declared in this scope"});
  R.Diagnostics.push_back({6, 26, "note", "suggested alternative: 'i'"});
  Critique C = critiqueByRules(R, variant({"pow-to-multiply"}), Base);
  EXPECT_EQ(C.Text, "[build-error] 1 compiler error in the variant made by "
                    "pow-to-multiply.\n"
                    "  line 6: 'j' was not declared in this scope\n"
                    "    6 | printf(\"%d\\n\", i * j);\n"
                    "    (a line the variant changed)\n");
  EXPECT_EQ(C.Tags, std::vector<CritiqueTag>{CritiqueTag::BuildError});
  EXPECT_EQ(C.BlamedRules, std::vector<std::string>{"pow-to-multiply"});
}

TEST(RulesCriticTest, WarningOnAChangedLine) {
  EvalResult R;
  R.Status = EvalStatus::Ok;
  R.Ratio = R.RawRatio = 1.5;
  R.Noise = 0.01;
  // Line 6 changed; line 3 did not (the original's own warning).
  R.Diagnostics.push_back({6, 5, "warning", "ignoring loop annotation"});
  R.Diagnostics.push_back({3, 7, "warning", "unused variable 'n'"});
  Critique C = critiqueByRules(R, variant({"gcc-pragmas"}), Base);
  EXPECT_NE(C.Text.find("compiler warning at line 6, which the variant "
                        "changed: ignoring loop annotation"),
            std::string::npos)
      << C.Text;
  EXPECT_EQ(C.Text.find("line 3"), std::string::npos) << C.Text;
}

TEST(RulesCriticTest, WrongOutputNamesTheTestAndLine) {
  EvalResult R;
  R.Status = EvalStatus::WrongOutput;
  R.Reason = "the output differs from the expected output";
  R.TestsPassed = 1;
  R.TestsTotal = 3;
  R.FirstFailure = TestFailure{"input.1.txt", 3, "4", "9", ""};
  Critique C = critiqueByRules(R, variant({"fast-io", "user"}), Base);
  EXPECT_EQ(C.Text, "[wrong-output] the output differs from the expected "
                    "output (1 of 3 tests passed)\n"
                    "  test input.1.txt: line 3: expected \"4\", got \"9\"\n");
  EXPECT_EQ(C.Tags, std::vector<CritiqueTag>{CritiqueTag::WrongOutput});
  EXPECT_EQ(C.BlamedRules, std::vector<std::string>{"fast-io"});
}

TEST(RulesCriticTest, SlowerFasterAndNoise) {
  EvalResult R;
  R.Status = EvalStatus::Ok;
  R.CostUnit = "instructions";
  R.BaselineCost = 1000;
  R.VariantCost = 1250;
  R.Ratio = R.RawRatio = 0.8;
  R.RatioSpread = 0.001;
  R.Noise = 0.002;
  Critique Slow = critiqueByRules(R, variant({"gcc-pragmas"}));
  EXPECT_EQ(Slow.Text, "[slower] 1.25x slower than the baseline (baseline "
                       "1000 instructions, variant 1250 instructions; spread "
                       "+/-0.001, noise 0.2%).\n");
  EXPECT_EQ(Slow.Tags, std::vector<CritiqueTag>{CritiqueTag::Slower});
  EXPECT_EQ(Slow.BlamedRules, std::vector<std::string>{"gcc-pragmas"});

  R.VariantCost = 500;
  R.Ratio = R.RawRatio = 2.0;
  Critique Fast = critiqueByRules(R, variant({"gcc-pragmas"}));
  EXPECT_EQ(Fast.Tags, std::vector<CritiqueTag>{CritiqueTag::Faster});
  EXPECT_TRUE(Fast.BlamedRules.empty());
  EXPECT_NE(Fast.Text.find("[faster] 2.00x faster"), std::string::npos);

  R.Ratio = 1.0;
  R.RawRatio = 1.004;
  Critique Same = critiqueByRules(R, variant({"gcc-pragmas"}));
  EXPECT_EQ(Same.Tags, std::vector<CritiqueTag>{CritiqueTag::WithinNoise});
  EXPECT_NE(Same.Text.find("measured 1.004x"), std::string::npos);
}

TEST(RulesCriticTest, HotLinesInLoopsAndIO) {
  EvalResult R;
  R.Status = EvalStatus::Ok;
  R.Ratio = R.RawRatio = 1.5;
  R.HotLines = {{6, 0.12}, {5, 0.05}, {4, 0.02}};
  Critique C = critiqueByRules(R, variant({}));
  // Tags in their fixed order, whatever order they were found in.
  EXPECT_EQ(C.Tags, (std::vector<CritiqueTag>{
                        CritiqueTag::Faster, CritiqueTag::HotLoop,
                        CritiqueTag::IOBound, CritiqueTag::StartupBound}));
  EXPECT_NE(C.Text.find("[hot-loop] hottest lines:\n  line 6 (12.0%): "
                        "printf(\"%d\\n\", i * j);\n  line 5 (5.0%): for"),
            std::string::npos)
      << C.Text;
  EXPECT_NE(C.Text.find("[startup-bound] only 19.0% of the cost"),
            std::string::npos);
  size_t Faster = C.Text.find("[faster]"), Hot = C.Text.find("[hot-loop]"),
         IO = C.Text.find("[io-bound]"), Start = C.Text.find("[startup-bound]");
  EXPECT_LT(Faster, Hot);
  EXPECT_LT(Hot, IO);
  EXPECT_LT(IO, Start);
}

TEST(RulesCriticTest, GpuMetrics) {
  EvalResult R;
  R.Status = EvalStatus::Ok;
  R.Ratio = R.RawRatio = 1.1;
  R.Metrics = {{"sm__throughput.avg.pct_of_peak_sustained_elapsed", 20},
               {"dram__throughput.avg.pct_of_peak_sustained_elapsed", 85},
               {"sm__warps_active.avg.pct_of_peak_sustained_active", 22},
               {"l1tex__t_sector_hit_rate.pct", 12},
               {"lts__t_sector_hit_rate.pct", 70},
               {"registers_per_thread", 128},
               {"block_size", 256}};
  Critique C = critiqueByRules(R, variant({}));
  EXPECT_EQ(C.Tags, (std::vector<CritiqueTag>{
                        CritiqueTag::Faster, CritiqueTag::MemoryBound,
                        CritiqueTag::LowOccupancy, CritiqueTag::RegisterLimited,
                        CritiqueTag::PoorL1HitRate}));
  EXPECT_NE(C.Text.find("[memory-bound] DRAM throughput 85% of peak, SM "
                        "throughput 20%"),
            std::string::npos);
  EXPECT_NE(C.Text.find("[low-occupancy] achieved occupancy 22% (at most 25% "
                        "with 256 threads per block, 128 registers per thread"),
            std::string::npos)
      << C.Text;

  R.Metrics = {{"sm__throughput.avg.pct_of_peak_sustained_elapsed", 90},
               {"dram__throughput.avg.pct_of_peak_sustained_elapsed", 30}};
  EXPECT_EQ(critiqueByRules(R, variant({})).Tags,
            (std::vector<CritiqueTag>{CritiqueTag::Faster,
                                      CritiqueTag::ComputeBound}));
}

TEST(RulesCriticTest, OccupancyLimits) {
  auto Full = estimateOccupancy(256, 32, 0);
  ASSERT_TRUE(Full);
  EXPECT_DOUBLE_EQ(Full->Theoretical, 1.0);
  auto Regs = estimateOccupancy(256, 128, 0);
  EXPECT_DOUBLE_EQ(Regs->Theoretical, 0.25);
  EXPECT_EQ(Regs->Limit, CritiqueTag::RegisterLimited);
  auto Small = estimateOccupancy(32, 16, 0);
  EXPECT_DOUBLE_EQ(Small->Theoretical, 0.5);
  EXPECT_EQ(Small->Limit, CritiqueTag::BlockSizeLimited);
  auto Smem = estimateOccupancy(256, 32, 100 * 1024);
  EXPECT_DOUBLE_EQ(Smem->Theoretical, 0.25);
  EXPECT_EQ(Smem->Limit, CritiqueTag::SharedMemoryLimited);
  EXPECT_FALSE(estimateOccupancy(0, 32, 0));
}

/// A line of evidence: \p Ir instructions and the rest as given.
LineEvidence line(unsigned N, uint64_t Ir, uint64_t L1 = 0, uint64_t LL = 0,
                  uint64_t Branches = 0, uint64_t Mispredicts = 0,
                  uint64_t Calls = 0, uint64_t CallIr = 0) {
  LineEvidence L;
  L.Line = N;
  L.Instructions = Ir;
  L.L1Misses = L1;
  L.LLMisses = LL;
  L.Branches = Branches;
  L.Mispredicts = Mispredicts;
  L.Calls = Calls;
  L.CallInstructions = CallIr;
  return L;
}

CpuEvidence evidenceOf(std::vector<LineEvidence> Lines) {
  CpuEvidence E;
  E.Lines = std::move(Lines);
  for (const LineEvidence &L : E.Lines)
    E.TargetCycles += L.estimatedCycles();
  E.TotalCycles = E.TargetCycles;
  return E;
}

TEST(RulesCriticTest, EvidenceNamesWhatBoundsAHotLine) {
  // Line 5 misses the cache, line 6 mispredicts and calls printf per
  // element; line 4 is cold though it misses.
  CpuEvidence E =
      evidenceOf({line(5, 1000000, 200000, 0),
                  line(6, 1000000, 0, 0, 100000, 30000, 50000, 2000000),
                  line(4, 1000, 500, 10)});
  CompilerRemark R;
  R.Line = 5;
  R.Pass = "vectorize";
  R.Message = "not vectorized: control flow in loop";
  E.Remarks.push_back(R);
  Critique C = critiqueOfEvidence(E, Base);
  EXPECT_TRUE(C.has(CritiqueTag::CacheMissBound));
  EXPECT_TRUE(C.has(CritiqueTag::MispredictBound));
  EXPECT_TRUE(C.has(CritiqueTag::PerElementIO));
  EXPECT_FALSE(C.has(CritiqueTag::CallBound)); // printf: I/O, said once.
  EXPECT_TRUE(C.has(CritiqueTag::NotVectorised));
  EXPECT_NE(C.Text.find("[cache-miss-bound] line 5 (`for (int i = 0; i < n; "
                        "++i)`)"),
            std::string::npos)
      << C.Text;
  EXPECT_EQ(C.Text.find("line 4 ("), std::string::npos) << C.Text;
  EXPECT_TRUE(C.BlamedRules.empty());
}

TEST(RulesCriticTest, EvidenceBelowItsThresholdsSaysNothing) {
  // Misses a tenth of the line's instructions' cycles, a predictable
  // branch, few calls, a remark on a cold line.
  CpuEvidence E = evidenceOf(
      {line(5, 1000000, 10000, 0, 500000, 1000, 900, 5000000), line(3, 100)});
  CompilerRemark R;
  R.Line = 3;
  R.Pass = "vectorize";
  R.Message = "couldn't vectorize loop";
  E.Remarks.push_back(R);
  Critique C = critiqueOfEvidence(E, Base);
  for (CritiqueTag T : {CritiqueTag::CacheMissBound,
                        CritiqueTag::MispredictBound, CritiqueTag::CallBound,
                        CritiqueTag::PerElementIO, CritiqueTag::NotVectorised})
    EXPECT_FALSE(C.has(T)) << critiqueTagName(T).str() << "\n" << C.Text;
}

TEST(RulesCriticTest, RemarksAloneWithoutASimulation) {
  // Project mode: no lines, every remark on the target is read.
  CpuEvidence E;
  CompilerRemark R;
  R.Line = 5;
  R.Pass = "vectorize";
  R.Message = "loop not vectorized";
  E.Remarks.push_back(R);
  Critique C = critiqueOfEvidence(E, Base);
  EXPECT_TRUE(C.has(CritiqueTag::NotVectorised));
}

} // namespace
