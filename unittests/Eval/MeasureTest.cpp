//===-- MeasureTest.cpp - What each measure is ----------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/Measure.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

// Every value --measure takes has its traits, and they say what the
// evaluator relies on: a deterministic measure resolves finer than a timed
// one; a cross-check is by a measure that is cross-checked back, never by
// the measure itself.
TEST(MeasureTest, EveryMeasureHasItsTraits) {
  const OptionInfo *Row = findOption("Measure");
  ASSERT_NE(Row, nullptr);
  ASSERT_FALSE(Row->valueNames().empty());
  for (llvm::StringRef Name : Row->valueNames()) {
    SCOPED_TRACE(Name.str());
    auto M = parseOptionValue<MeasureMode>(Name);
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    const MeasureTraits &T = measureTraits(*M);
    EXPECT_EQ(T.Mode, *M);
    EXPECT_FALSE(T.Unit.empty());
    EXPECT_GT(T.Resolution, 0);
    EXPECT_GE(T.FloorRuns, 1u);
    if (T.Deterministic)
      EXPECT_LT(T.Resolution, measureTraits(MeasureMode::Time).Resolution);
    else
      EXPECT_FALSE(T.HintsNeedTime) << "time is the hints' judge";
    if (T.CrossCheckedBy) {
      EXPECT_NE(*T.CrossCheckedBy, *M);
      std::optional<MeasureMode> Back =
          measureTraits(*T.CrossCheckedBy).CrossCheckedBy;
      ASSERT_TRUE(Back.has_value());
      EXPECT_EQ(*Back, *M);
    }
  }
  // The measures as the evaluator has used them.
  EXPECT_TRUE(measureTraits(MeasureMode::Instructions).Deterministic);
  EXPECT_TRUE(measureTraits(MeasureMode::Instructions).HintsNeedTime);
  EXPECT_EQ(measureTraits(MeasureMode::Time).FloorRuns, 3u);
  EXPECT_FALSE(measureTraits(MeasureMode::CudaKernel).CrossCheckedBy);
}

} // namespace
