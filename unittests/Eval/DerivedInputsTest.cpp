//===-- DerivedInputsTest.cpp - Inputs derived from tests -----------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/DerivedInputs.h"
#include "llvm/ADT/StringExtras.h"
#include "gtest/gtest.h"

#include <algorithm>

using namespace maxcode;

namespace {

/// The whitespace-separated tokens of each line of \p Text.
std::vector<std::vector<std::string>> tokens(llvm::StringRef Text) {
  std::vector<std::vector<std::string>> Out;
  for (llvm::StringRef L : llvm::split(Text, '\n')) {
    llvm::SmallVector<llvm::StringRef, 8> T;
    llvm::SplitString(L, T);
    Out.emplace_back(T.begin(), T.end());
  }
  return Out;
}

long long value(const std::string &T) { return std::stoll(T); }

TEST(DerivedInputsTest, CountsStayAndOrdersHold) {
  // n, then n numbers, then a query line "l r" with l <= r.
  std::vector<std::string> Tests = {"5 3\n40 10 30 30 20\n2 4\n",
                                    "4 2\n7 90 8 60\n1 3\n"};
  auto Made = deriveInputs(Tests, {0, 1}, 12, 1);
  ASSERT_GE(Made.size(), 6u);
  for (const DerivedInput &D : Made) {
    const std::string &From = Tests[D.Template];
    auto A = tokens(From), B = tokens(D.Text);
    ASSERT_EQ(A.size(), B.size()) << D.Text;
    for (size_t L = 0; L < A.size(); ++L)
      ASSERT_EQ(A[L].size(), B[L].size()) << D.Text;
    // The count of the next line's numbers stays.
    EXPECT_EQ(B[0][0], A[0][0]) << D.Text;
    // Every order and equality between two numbers holds.
    std::vector<std::pair<long long, long long>> Pairs;
    for (size_t L = 0; L < A.size(); ++L)
      for (size_t K = 0; K < A[L].size(); ++K)
        Pairs.push_back({value(A[L][K]), value(B[L][K])});
    for (auto [X1, Y1] : Pairs)
      for (auto [X2, Y2] : Pairs) {
        EXPECT_EQ(X1 < X2, Y1 < Y2) << D.Text;
        EXPECT_EQ(X1 == X2, Y1 == Y2) << D.Text;
      }
    EXPECT_NE(D.Text, Tests[0]);
    EXPECT_NE(D.Text, Tests[1]);
  }
  // No input twice.
  for (size_t I = 0; I < Made.size(); ++I)
    for (size_t J = I + 1; J < Made.size(); ++J)
      EXPECT_NE(Made[I].Text, Made[J].Text);
}

TEST(DerivedInputsTest, TheCostliestFirstAndTheSameForASeed) {
  std::vector<std::string> Tests = {"3 100\n", "7 900\n"};
  auto Made = deriveInputs(Tests, {1, 0}, 4, 42);
  ASSERT_FALSE(Made.empty());
  EXPECT_EQ(Made.front().Template, 1u);
  auto Again = deriveInputs(Tests, {1, 0}, 4, 42);
  ASSERT_EQ(Made.size(), Again.size());
  for (size_t I = 0; I < Made.size(); ++I)
    EXPECT_EQ(Made[I].Text, Again[I].Text);
  auto Other = deriveInputs(Tests, {1, 0}, 4, 43);
  bool Differs = Other.size() != Made.size();
  for (size_t I = 0; !Differs && I < Made.size(); ++I)
    Differs = Made[I].Text != Other[I].Text;
  EXPECT_TRUE(Differs);
}

TEST(DerivedInputsTest, WithinTheRangesTheTestsUse) {
  // The largest value of an input may move up to the largest the tests use
  // at its place, the smallest down to the smallest there; no further.
  std::vector<std::string> Tests = {"200000 3\n", "7 150000\n", "120000 5\n"};
  auto Made = deriveInputs(Tests, {0, 1, 2}, 30, 5);
  ASSERT_FALSE(Made.empty());
  for (const DerivedInput &D : Made) {
    auto B = tokens(D.Text);
    long long X = value(B[0][0]), Y = value(B[0][1]);
    EXPECT_GE(std::min(X, Y), 3);
    EXPECT_LE(std::max(X, Y), 200000);
  }
}

TEST(DerivedInputsTest, APlaceTheTestsVaryStaysWithinThem) {
  // Rounds, a buffer's length and a loop bound: the loop bound lies between
  // the rounds and the length in the template's order, but the tests never
  // take it past 5000; a derived input that did would ask for hundreds of
  // times their work.
  std::vector<std::string> Tests = {"300 1048576 4000\n", "250 1048576 3000\n",
                                    "200 524288 5000\n"};
  auto Made = deriveInputs(Tests, {0, 1, 2}, 30, 7);
  ASSERT_GE(Made.size(), 10u);
  for (const DerivedInput &D : Made) {
    auto B = tokens(D.Text);
    EXPECT_GE(value(B[0][0]), 200) << D.Text;
    EXPECT_LE(value(B[0][0]), 300) << D.Text;
    EXPECT_GE(value(B[0][1]), 524288) << D.Text;
    EXPECT_LE(value(B[0][1]), 1048576) << D.Text;
    EXPECT_GE(value(B[0][2]), 3000) << D.Text;
    EXPECT_LE(value(B[0][2]), 5000) << D.Text;
  }
}

TEST(DerivedInputsTest, AListLongerThanTheOthersStillDraws) {
  // The tail of the longest list is at places no other test has: it is
  // drawn within the template's order, not held where it is.
  std::vector<std::string> Tests = {"3\n5 9 2\n", "6\n4 8 1 30 20 10\n"};
  auto Made = deriveInputs(Tests, {1, 0}, 8, 3);
  bool TailMoved = false;
  for (const DerivedInput &D : Made)
    if (D.Template == 1) {
      auto B = tokens(D.Text);
      TailMoved |= B[1][3] != "30" || B[1][4] != "20" || B[1][5] != "10";
    }
  EXPECT_TRUE(TailMoved);
}

TEST(DerivedInputsTest, WordsDecimalsAndSpacingStay) {
  std::vector<std::string> Tests = {"abc 17 2.50  -8\r\n  x 400 0\n#\n"};
  auto Made = deriveInputs(Tests, {0}, 3, 9);
  ASSERT_FALSE(Made.empty());
  for (const DerivedInput &D : Made) {
    llvm::StringRef T = D.Text;
    EXPECT_TRUE(T.starts_with("abc ")) << T.str();
    EXPECT_TRUE(T.contains(" 2.50  -")) << T.str();
    EXPECT_TRUE(T.contains("\r\n  x ")) << T.str();
    EXPECT_TRUE(T.ends_with(" 0\n#\n")) << T.str();
  }
}

TEST(DerivedInputsTest, NothingToDrawYieldsNothing) {
  // Words only, or only counts, -1, 0 and 1.
  EXPECT_TRUE(deriveInputs({"ABA\n"}, {0}, 4, 1).empty());
  EXPECT_TRUE(deriveInputs({"2\n0 1\n"}, {0}, 4, 1).empty());
  EXPECT_TRUE(deriveInputs({}, {}, 4, 1).empty());
}

} // namespace
