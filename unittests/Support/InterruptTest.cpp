//===-- InterruptTest.cpp - The interrupt's deadline ----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/Process.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace maxcode;

namespace {

/// Makes \p Root a scratch tree as an evaluation leaves it: files, nested
/// folders, and a folder the program made read-only.
void makeTree(llvm::StringRef Root) {
  llvm::SmallString<128> Deep(Root);
  llvm::sys::path::append(Deep, "a", "b", "c");
  ASSERT_FALSE(llvm::sys::fs::create_directories(Deep));
  for (const char *Name : {"a/x.txt", "a/b/y.txt", "a/b/c/z.txt"}) {
    llvm::SmallString<128> F(Root);
    llvm::sys::path::append(F, Name);
    int Fd = ::open(F.c_str(), O_CREAT | O_WRONLY, 0444);
    ASSERT_GE(Fd, 0);
    ::close(Fd);
  }
  llvm::SmallString<128> B(Root);
  llvm::sys::path::append(B, "a", "b");
  ::chmod(B.c_str(), 0555);
}

/// Runs \p Work in a child with the tool's interrupt handlers and \p Root
/// registered as scratch, sends \p Signal 0.3 s in, and returns how the
/// child ended and how long after the signal.
std::pair<int, double> interruptChild(llvm::StringRef Root, int Signal,
                                      void (*Work)()) {
  pid_t Pid = fork();
  if (Pid == 0) {
    installInterruptHandlers();
    registerScratch(Root);
    Work();
    _exit(0);
  }
  usleep(300000);
  ::kill(Pid, Signal);
  auto Sent = std::chrono::steady_clock::now();
  int Status = 0;
  while (waitpid(Pid, &Status, 0) < 0 && errno == EINTR)
    ;
  double Took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Sent)
          .count();
  return {Status, Took};
}

/// Stands for a parse: work that never looks at interrupted().
void busyForever() {
  BlockingWork Parse;
  volatile unsigned long N = 0;
  for (;;)
    N = N + 1;
}

/// A mode that unwinds, then starts a parse anyway.
void parseWhileUnwinding() {
  while (!interrupted())
    usleep(10000);
  usleep(200000);
  busyForever();
}

/// Stands for a mode that unwinds when asked: it polls, then returns.
void politeWork() {
  while (!interrupted())
    usleep(10000);
}

class InterruptTest : public ::testing::TestWithParam<int> {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("maxcode-int", Root));
    llvm::sys::path::append(Root, "scratch");
    makeTree(Root);
  }
  void TearDown() override {
    llvm::SmallString<128> B(Root);
    llvm::sys::path::append(B, "a", "b");
    ::chmod(B.c_str(), 0755);
    llvm::sys::fs::remove_directories(llvm::sys::path::parent_path(Root));
  }
  llvm::SmallString<128> Root;
};

TEST_P(InterruptTest, BusyWorkEndsWithinASecondWithScratchRemoved) {
  auto [Status, Took] = interruptChild(Root, GetParam(), busyForever);
  ASSERT_TRUE(WIFSIGNALED(Status)) << "status " << Status;
  EXPECT_EQ(WTERMSIG(Status), GetParam());
  EXPECT_LT(Took, 1.0);
  EXPECT_FALSE(llvm::sys::fs::exists(Root));
}

TEST_P(InterruptTest, BlockingWorkBegunAfterTheSignalEndsToo) {
  auto [Status, Took] = interruptChild(Root, GetParam(), parseWhileUnwinding);
  ASSERT_TRUE(WIFSIGNALED(Status)) << "status " << Status;
  EXPECT_EQ(WTERMSIG(Status), GetParam());
  EXPECT_LT(Took, 1.0);
  EXPECT_FALSE(llvm::sys::fs::exists(Root));
}

TEST_P(InterruptTest, PoliteWorkEndsOnItsOwn) {
  // A mode that unwinds in time exits normally; its scratch is its owner's
  // to remove, so it is still there here.
  auto [Status, Took] = interruptChild(Root, GetParam(), politeWork);
  ASSERT_TRUE(WIFEXITED(Status)) << "status " << Status;
  EXPECT_EQ(WEXITSTATUS(Status), 0);
  EXPECT_LT(Took, 0.5);
  EXPECT_TRUE(llvm::sys::fs::exists(Root));
}

INSTANTIATE_TEST_SUITE_P(Signals, InterruptTest,
                         ::testing::Values(SIGTERM, SIGINT, SIGHUP));

TEST(InterruptScratchTest, UnregisteredScratchStays) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("maxcode-int", Dir));
  pid_t Pid = fork();
  if (Pid == 0) {
    installInterruptHandlers();
    int Slot = registerScratch(Dir);
    unregisterScratch(Slot);
    busyForever();
  }
  usleep(300000);
  ::kill(Pid, SIGTERM);
  int Status = 0;
  while (waitpid(Pid, &Status, 0) < 0 && errno == EINTR)
    ;
  EXPECT_TRUE(WIFSIGNALED(Status));
  EXPECT_TRUE(llvm::sys::fs::exists(Dir));
  llvm::sys::fs::remove_directories(Dir);
}

} // namespace
