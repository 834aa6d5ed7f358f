//===-- CrossCheckPolicyTest.cpp - The other measure's verdict ------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// One row per threshold of the cross-check's policy: the evidence the other
// measure brings, and the verdict and judgement it must give.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/CrossCheckPolicy.h"
#include "gtest/gtest.h"

#include <vector>

using namespace maxcode;

namespace {

/// Each of \p Values, \p Times times over (pairs of a steady machine).
std::vector<double> repeat(std::vector<double> Values, unsigned Times) {
  std::vector<double> Out;
  for (unsigned I = 0; I < Times; ++I)
    Out.insert(Out.end(), Values.begin(), Values.end());
  return Out;
}

/// \p Values, each times \p Factor.
std::vector<double> scaled(std::vector<double> Values, double Factor) {
  for (double &V : Values)
    V *= Factor;
  return Values;
}

// A loaded machine's wall times (ms): the half-IQR is 42% of the median,
// beyond a third of the run, so the medians judge nothing.
const std::vector<double> Scattered = {30, 60, 20, 50, 25, 70, 30, 45, 20};
// A steady machine's (ms), 1% apart.
const std::vector<double> Steady = {100, 101, 99};

struct Row {
  const char *Name;
  std::vector<double> Baseline, Variant, Cpu;
  double Floor;
  double SavedPrimary;
  double Claim;
  bool ByTime;
  CrossCheckVerdict Verdict;
  bool Judged;
};

class CrossCheckPolicyTest : public ::testing::TestWithParam<Row> {};

TEST_P(CrossCheckPolicyTest, Verdict) {
  const Row &R = GetParam();
  CrossCheckEvidence E;
  E.Baseline = R.Baseline;
  E.Variant = R.Variant;
  E.BaselineCpu = R.Cpu;
  E.Floor = R.Floor;
  E.SavedPrimary = R.SavedPrimary;
  E.Claim = R.Claim;
  E.ByTime = R.ByTime;
  CrossCheckDecision D = judgeCrossCheck(E);
  EXPECT_EQ(int(D.Verdict), int(R.Verdict)) << R.Name;
  EXPECT_EQ(D.Judged, R.Judged) << R.Name;
}

using V = CrossCheckVerdict;

const Row Rows[] = {
    // An honest halving time confirms in the first three pairs.
    {"halved-confirmed",
     Steady,
     scaled(Steady, 0.5),
     {},
     1,
     0.5,
     2,
     true,
     V::Confirmed,
     true},
    // Time does not see it in the first pairs: a second look first.
    {"first-look", Steady, Steady, {}, 1, 0.5, 2, true, V::MorePairs, true},
    // Nine steady pairs that see nothing of a halving deny it.
    {"nine-pairs-deny",
     repeat(Steady, 3),
     repeat(Steady, 3),
     {},
     1,
     0.5,
     2,
     true,
     V::Suspect,
     true},
    // A third of the saving is enough.
    {"third-confirms",
     repeat(Steady, 3),
     scaled(repeat(Steady, 3), 0.83),
     {},
     1,
     0.5,
     2,
     true,
     V::Confirmed,
     true},
    // A run mostly start-up (work 25% of it) cannot judge a 1.6x: credited
    // what time saw, never denied.
    {"start-up-bound",
     repeat({2.0, 2.02, 1.98}, 3),
     repeat({1.99, 2.0, 1.97}, 3),
     {},
     1.5,
     0.4,
     1.6,
     true,
     V::Unconfirmed,
     false},
    // A baseline asleep for most of its run: its work is the CPU time it
    // spent (20 ms of 2 s), too small a share to judge.
    {"asleep", repeat({2000, 2001, 1999}, 3), repeat({1999, 2000, 2001}, 3),
     repeat({20, 20, 20}, 3), 1, 0.55, 2.2, true, V::Unconfirmed, false},
    // A small claim a quarter slower by time is judged whatever its work.
    {"clearly-slower",
     repeat({2.0, 2.02, 1.98}, 3),
     repeat({2.6, 2.62, 2.58}, 3),
     {},
     1.5,
     0.4,
     1.6,
     true,
     V::Suspect,
     true},
    // Slower by time, too scattered to judge, in a run mostly work: more
    // pairs, up to 21.
    {"slower-scattered-9",
     Scattered,
     scaled(Scattered, 1.05),
     {},
     1,
     0.6,
     2.5,
     true,
     V::MorePairs,
     false},
    // After 21 such pairs a claim of more than half the work saved that
    // time reads as a loss is denied...
    {"slower-scattered-21-halved",
     repeat(Scattered, 3),
     scaled(repeat(Scattered, 3), 1.05),
     {},
     1,
     0.6,
     2.5,
     true,
     V::Suspect,
     false},
    // ...and one of less is only unconfirmed.
    {"slower-scattered-21-small",
     repeat(Scattered, 3),
     scaled(repeat(Scattered, 3), 1.05),
     {},
     1,
     0.2,
     1.25,
     true,
     V::Unconfirmed,
     false},
    // A bench that silenced its own metric (50000x) on a loaded machine:
    // the medians cannot judge, the pairs can (every one of them is nearer
    // no saving than the claim's).
    {"large-claim-no-run-saw",
     Scattered,
     scaled(Scattered, 0.95),
     {},
     1,
     1.0,
     50000,
     true,
     V::Suspect,
     false},
    // An honest 20x on the same machine: every pair beyond the midpoint.
    {"large-claim-honest",
     Scattered,
     scaled(Scattered, 0.05),
     {},
     1,
     0.95,
     20,
     true,
     V::Confirmed,
     true},
    // A large claim where the work is below a quarter of the run: nothing
    // to judge by time.
    {"large-claim-start-up",
     repeat({2.0, 2.02, 1.98}, 3),
     repeat({1.9, 1.92, 1.88}, 3),
     {},
     1.7,
     0.98,
     50,
     true,
     V::Unconfirmed,
     false},
    // A large claim a steady machine does not confirm.
    {"large-claim-steady",
     repeat(Steady, 3),
     scaled(repeat(Steady, 3), 0.9),
     {},
     1,
     0.99,
     100,
     true,
     V::Suspect,
     true},
    // Instructions repeat exactly: one pair judges, never a second look.
    {"instructions-confirm",
     {1e9},
     {5e8},
     {},
     1e6,
     0.5,
     2,
     false,
     V::Confirmed,
     true},
    {"instructions-deny",
     {1e9},
     {1e9},
     {},
     1e6,
     0.5,
     2,
     false,
     V::Suspect,
     true},
};

INSTANTIATE_TEST_SUITE_P(Rows, CrossCheckPolicyTest, ::testing::ValuesIn(Rows),
                         [](const ::testing::TestParamInfo<Row> &Info) {
                           std::string Name = Info.param.Name;
                           for (char &C : Name)
                             if (C == '-')
                               C = '_';
                           return Name;
                         });

TEST(CrossCheckPolicyTest, SavedShare) {
  // The share of the cost above the floor.
  EXPECT_DOUBLE_EQ(savedShare(110, 60, 10), 0.5);
  // A floor not below the cost: the share of all of it.
  EXPECT_DOUBLE_EQ(savedShare(10, 5, 20), 0.5);
  EXPECT_DOUBLE_EQ(savedShare(0, 0, 0), 0);
}

TEST(CrossCheckPolicyTest, BelowInNearlyEveryPair) {
  std::vector<double> A = {10, 10, 10, 10, 10, 10, 10, 10, 10};
  std::vector<double> Slow = {11, 11, 11, 11, 11, 11, 11, 11, 9};
  // 8 of 9 below 1.0 clears the 2% sign test; fewer than nine pairs never.
  EXPECT_TRUE(belowInNearlyEveryPair(A, Slow, 1.0));
  EXPECT_FALSE(belowInNearlyEveryPair(llvm::ArrayRef(A).take_front(8),
                                      llvm::ArrayRef(Slow).take_front(8), 1.0));
  // 7 of 9 does not.
  Slow[0] = 9;
  EXPECT_FALSE(belowInNearlyEveryPair(A, Slow, 1.0));
  // The line moves with the threshold.
  EXPECT_TRUE(belowInNearlyEveryPair(A, Slow, 1.2));
}

} // namespace
