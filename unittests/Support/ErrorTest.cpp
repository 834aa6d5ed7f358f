//===-- ErrorTest.cpp - The user's errors and the tool's ------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/Error.h"
#include "maxcode/Support/Debug.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

int exitCodeOf(llvm::Error E, std::string &Printed) {
  llvm::raw_string_ostream OS(Printed);
  return reportError(std::move(E), "tool", OS);
}

TEST(ErrorTest, UserErrorsExitOne) {
  std::string Out;
  EXPECT_EQ(exitCodeOf(llvm::createStringError("no such target 'f'"), Out), 1);
  EXPECT_EQ(Out, "tool: error: no such target 'f'\n");
}

TEST(ErrorTest, InternalErrorsExitTwo) {
  std::string Out;
  EXPECT_EQ(exitCodeOf(createInternalError("cannot write 'r.json'"), Out), 2);
  EXPECT_EQ(Out, "tool: error: cannot write 'r.json'\n");
}

TEST(ErrorTest, MakeInternalKeepsEveryMessage) {
  llvm::Error Both = llvm::joinErrors(llvm::createStringError("first"),
                                      llvm::createStringError("second"));
  std::string Out;
  EXPECT_EQ(exitCodeOf(makeInternal(std::move(Both)), Out), 2);
  EXPECT_EQ(Out, "tool: error: first\ntool: error: second\n");
  EXPECT_FALSE(makeInternal(llvm::Error::success()));
}

TEST(ErrorTest, OneInternalPartMakesItInternal) {
  llvm::Error Mixed = llvm::joinErrors(llvm::createStringError("bad flag"),
                                       createInternalError("disk full"));
  std::string Out;
  EXPECT_EQ(exitCodeOf(std::move(Mixed), Out), 2);
}

TEST(DebugTest, OnlyTheTypesAsked) {
  EXPECT_FALSE(isDebugTypeOn("maxcode-rules"));
  enableDebugOutput(false, {"maxcode-rules,maxcode-x", "maxcode-search"});
  EXPECT_TRUE(isDebugTypeOn("maxcode-rules"));
  EXPECT_TRUE(isDebugTypeOn("maxcode-x"));
  EXPECT_TRUE(isDebugTypeOn("maxcode-search"));
  EXPECT_FALSE(isDebugTypeOn("maxcode-lsp"));
  enableDebugOutput(true, {});
  EXPECT_TRUE(isDebugTypeOn("maxcode-lsp"));
  llvm::DebugFlag = false;
}

} // namespace
