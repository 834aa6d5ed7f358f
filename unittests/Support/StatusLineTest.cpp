//===-- StatusLineTest.cpp ------------------------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/StatusLine.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

TEST(StatusLineTest, OtherOutputGoesAboveTheStatus) {
  std::string Screen;
  {
    llvm::raw_string_ostream Out(Screen);
    StatusLine L(Out, /*Terminal=*/true);
    L.show("[1/4] best 1.000x");
    L << "warning: the model answered nothing usable\n";
    L.show("[2/4] best 1.500x");
    L.keep();
    L << "done\n";
  }
  EXPECT_EQ(Screen, "[1/4] best 1.000x"
                    "\r\x1b[K"
                    "warning: the model answered nothing usable\n"
                    "[1/4] best 1.000x"
                    "\r\x1b[K"
                    "[2/4] best 1.500x\n"
                    "done\n");
}

TEST(StatusLineTest, AnUnfinishedLineIsKept) {
  std::string Screen;
  {
    llvm::raw_string_ostream Out(Screen);
    StatusLine L(Out, /*Terminal=*/true);
    L << "note: ";
    L.show("[1/4]");
    L << "next\n";
  }
  EXPECT_EQ(Screen, "note: \n[1/4]\r\x1b[Knext\n[1/4]\n");
}

TEST(StatusLineTest, NoStatusOffATerminal) {
  std::string Screen;
  {
    llvm::raw_string_ostream Out(Screen);
    StatusLine L(Out, /*Terminal=*/false);
    L.show("[1/4] best 1.000x");
    L << "warning: x\n";
    L.keep();
  }
  EXPECT_EQ(Screen, "warning: x\n");
}

} // namespace
