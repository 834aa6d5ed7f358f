//===-- TreeCopyTest.cpp - Copying and removing trees ---------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/TreeCopy.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace maxcode;

namespace {

/// The error's message; empty on success.
std::string messageOf(llvm::Error E) {
  return E ? llvm::toString(std::move(E)) : std::string();
}

std::string makeFile(llvm::StringRef Dir, llvm::StringRef Name) {
  llvm::SmallString<256> P(Dir);
  llvm::sys::path::append(P, Name);
  std::error_code EC;
  llvm::raw_fd_ostream OS(P, EC);
  OS << "x\n";
  return std::string(P);
}

/// Makes a tree under a new folder with a read-only folder holding a
/// mode-000 one, then removes it: 0 when removeTree succeeds and the tree
/// is gone, 1 when it says it failed, 2 when it says it succeeded but left
/// the tree, 3 when the tree could not be made (4: the child could not
/// become nobody).
int lockUpAndRemove(llvm::StringRef Root) {
  llvm::SmallString<256> Locked(Root), Closed(Root);
  llvm::sys::path::append(Locked, "locked");
  llvm::sys::path::append(Closed, "locked", "closed");
  if (llvm::sys::fs::create_directories(Closed))
    return 3;
  makeFile(Locked, "a.txt");
  makeFile(Closed, "b.txt");
  if (::chmod(Closed.c_str(), 0) != 0 || ::chmod(Locked.c_str(), 0500) != 0)
    return 3;
  if (!messageOf(removeTree(Root)).empty())
    return 1;
  return llvm::sys::fs::exists(Root) ? 2 : 0;
}

// A program under test can leave folders it made unwritable or unreadable;
// the scratch folder must still go, and a failure must not pass for
// success. Root can remove anything, so as root the tree is made and
// removed by a child running as nobody.
TEST(TreeCopyTest, RemovesWhatAProgramLockedUp) {
  if (::geteuid() != 0) {
    llvm::SmallString<256> Root;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("treecopy", Root));
    EXPECT_EQ(lockUpAndRemove(Root), 0);
    return;
  }
  // Under /tmp, which nobody can reach: the test's own temporary folder
  // (lit's, in the build tree) may not be.
  char Template[] = "/tmp/maxcode-treecopy-XXXXXX";
  ASSERT_NE(::mkdtemp(Template), nullptr);
  std::string Root = Template;
  const uid_t Nobody = 65534;
  ASSERT_EQ(::chown(Root.c_str(), Nobody, Nobody), 0);
  pid_t Child = ::fork();
  ASSERT_GE(Child, 0);
  if (Child == 0) {
    if (::setgid(Nobody) != 0 || ::setuid(Nobody) != 0)
      ::_exit(4);
    ::_exit(lockUpAndRemove(Root));
  }
  int Status = 0;
  ASSERT_EQ(::waitpid(Child, &Status, 0), Child);
  ASSERT_TRUE(WIFEXITED(Status));
  EXPECT_EQ(WEXITSTATUS(Status), 0);
  (void)llvm::sys::fs::remove_directories(Root);
}

TEST(TreeCopyTest, RemovingWhatIsGoneSucceeds) {
  llvm::SmallString<256> Root;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("treecopy", Root));
  ASSERT_FALSE(llvm::sys::fs::remove(Root));
  EXPECT_EQ(messageOf(removeTree(Root)), "");
}

} // namespace
