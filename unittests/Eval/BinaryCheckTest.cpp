//===-- BinaryCheckTest.cpp - The linked program's check ------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/BinaryCheck.h"
#include "maxcode/Support/Options.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

TEST(BinaryCheckTest, NewWatchedSymbolsAreRefusedUnlessAllowed) {
  BinaryFacts Orig, Var;
  Orig.WatchedSymbols = {{"exit", "exit"}};
  Var.WatchedSymbols = {{"exit", "exit"}};
  EXPECT_FALSE(judgeBinary(Orig, Var, {}, OptionNames::Flags));
  Var.WatchedSymbols["clock_gettime"] = "clock";
  auto Why = judgeBinary(Orig, Var, {}, OptionNames::Flags);
  ASSERT_TRUE(Why);
  EXPECT_NE(Why->find("uses clock_gettime (clock), which the original's does "
                      "not"),
            std::string::npos);
  EXPECT_NE(Why->find("--allow-api=clock_gettime"), std::string::npos);
  EXPECT_FALSE(judgeBinary(Orig, Var, {"clock_gettime"}, OptionNames::Flags));
  EXPECT_FALSE(judgeBinary(Orig, Var, {"clock"}, OptionNames::Flags));
  EXPECT_TRUE(judgeBinary(Orig, Var, {"socket"}, OptionNames::Flags));
}

TEST(BinaryCheckTest, MoreWatchedInstructionsAreRefused) {
  BinaryFacts Orig, Var;
  Orig.InstructionsRead = Var.InstructionsRead = true;
  Orig.Instructions = {{"cpuid", 2}};
  Var.Instructions = {{"cpuid", 2}};
  EXPECT_FALSE(judgeBinary(Orig, Var, {}, OptionNames::Flags));
  Var.Instructions["cpuid"] = 3;
  auto Why = judgeBinary(Orig, Var, {}, OptionNames::Flags);
  ASSERT_TRUE(Why);
  EXPECT_NE(Why->find("holds 3 cpuid instructions where the original's holds "
                      "2"),
            std::string::npos);
  EXPECT_FALSE(judgeBinary(Orig, Var, {"cpuid"}, OptionNames::Flags));
  EXPECT_FALSE(judgeBinary(Orig, Var, {"measurement"}, OptionNames::Flags));
  Var.Instructions = {{"valgrind client request", 1}};
  // The reason names the setting as the front end that runs the check does.
  Why = judgeBinary(Orig, Var, {}, OptionNames::Settings);
  ASSERT_TRUE(Why);
  EXPECT_NE(Why->find("(allow it with allowApi=measurement if"),
            std::string::npos)
      << *Why;
  // Where the instructions could not be read, only the symbols judge.
  Var.InstructionsRead = false;
  EXPECT_FALSE(judgeBinary(Orig, Var, {}, OptionNames::Flags));
}

TEST(BinaryCheckTest, ReadsWhatTheCompilerMade) {
  auto CC = llvm::sys::findProgramByName("cc");
  if (!CC)
    GTEST_SKIP() << "no C compiler";
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("binary-check", Dir));
  llvm::scope_exit Clean([&] { (void)llvm::sys::fs::remove_directories(Dir); });
  auto Build = [&](llvm::StringRef Name, llvm::StringRef Code) {
    std::string Src = (Dir + "/" + Name + ".c").str();
    std::string Exe = (Dir + "/" + Name).str();
    std::error_code EC;
    llvm::raw_fd_ostream(Src, EC) << Code;
    EXPECT_FALSE(EC);
    llvm::StringRef Args[] = {*CC, "-O1", Src, "-o", Exe};
    EXPECT_EQ(llvm::sys::ExecuteAndWait(*CC, Args), 0);
    return Exe;
  };
  std::string Plain = Build("plain", "int main(void) { return 0; }\n");
  // rdtsc and cpuid as bytes in a code section, and a clock by name.
  std::string Hostile =
      Build("hostile",
            "#include <time.h>\n"
            "__attribute__((section(\".text.x\"), used)) static const unsigned "
            "char Code[] = {0x0f, 0x31, 0x0f, 0xa2, 0xc3};\n"
            "int main(void) { struct timespec T; "
            "return clock_gettime(CLOCK_MONOTONIC, &T); }\n");
  auto P = readBinaryFacts(Plain);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  auto H = readBinaryFacts(Hostile);
  ASSERT_TRUE(bool(H)) << llvm::toString(H.takeError());
  EXPECT_EQ(H->WatchedSymbols.count("clock_gettime"), 1u);
  EXPECT_EQ(P->WatchedSymbols.count("clock_gettime"), 0u);
  if (H->InstructionsRead) {
    EXPECT_EQ(H->Instructions["rdtsc"], P->Instructions["rdtsc"] + 1);
    EXPECT_EQ(H->Instructions["cpuid"], P->Instructions["cpuid"] + 1);
  }
  EXPECT_TRUE(judgeBinary(*P, *H, {}, OptionNames::Flags));
  EXPECT_FALSE(judgeBinary(*P, *P, {}, OptionNames::Flags));
  // Not a program at all.
  auto Bad = readBinaryFacts((Dir + "/plain.c").str());
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(llvm::toString(Bad.takeError()).find("plain.c"), std::string::npos);
}

} // namespace
