//===-- CritiqueTagsTest.cpp - The critique's tags ------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Policy/CritiqueTags.h"
#include "llvm/ADT/StringSet.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

TEST(CritiqueTagsTest, NamesRoundTripInOrder) {
  llvm::StringSet<> Names;
  CritiqueTag Prev = CritiqueTag::Rejected;
  bool First = true;
  for (CritiqueTag T : allCritiqueTags()) {
    llvm::StringRef N = critiqueTagName(T);
    EXPECT_TRUE(Names.insert(N).second) << N.str();
    EXPECT_EQ(parseCritiqueTag(N), T);
    // EXPECT_* expands to an if/else: the braces keep this one unambiguous.
    if (!First) {
      EXPECT_LT(static_cast<int>(Prev), static_cast<int>(T));
    }
    Prev = T;
    First = false;
  }
  EXPECT_EQ(critiqueTagName(CritiqueTag::BuildError), "build-error");
  EXPECT_EQ(critiqueTagName(CritiqueTag::MemoryBound), "memory-bound");
  EXPECT_EQ(parseCritiqueTag("nonsense"), std::nullopt);
}

} // namespace
