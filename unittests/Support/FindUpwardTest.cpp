//===-- FindUpwardTest.cpp ------------------------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/FindUpward.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {
/// A fresh folder, removed with what it holds.
class Folder {
public:
  Folder() { EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("find", Root)); }
  ~Folder() { llvm::sys::fs::remove_directories(Root); }
  std::string path(llvm::StringRef Rel) const {
    llvm::SmallString<256> P(Root);
    llvm::sys::path::append(P, Rel);
    return std::string(P);
  }
  void touch(llvm::StringRef Rel) const {
    std::string P = path(Rel);
    ASSERT_FALSE(
        llvm::sys::fs::create_directories(llvm::sys::path::parent_path(P)));
    std::error_code EC;
    llvm::raw_fd_ostream(P, EC) << "";
    ASSERT_FALSE(EC);
  }

private:
  llvm::SmallString<256> Root;
};

TEST(FindUpwardTest, NearestFolderWinsThenNamesInOrder) {
  Folder F;
  F.touch("a/.clang-format");
  F.touch("a/b/_clang-format");
  ASSERT_FALSE(llvm::sys::fs::create_directories(F.path("a/b/c")));
  // The nearest folder holding any of the names wins over a farther one
  // holding the first name.
  EXPECT_EQ(findUpward(F.path("a/b/c"), {".clang-format", "_clang-format"}),
            F.path("a/b/_clang-format"));
  EXPECT_EQ(findUpward(F.path("a"), {".clang-format", "_clang-format"}),
            F.path("a/.clang-format"));
  // A name below a folder (clangd's build/ subfolder) is tried in each.
  F.touch("a/build/compile_commands.json");
  EXPECT_EQ(findUpward(F.path("a/b/c"), {"compile_commands.json",
                                         "build/compile_commands.json"}),
            F.path("a/build/compile_commands.json"));
  EXPECT_EQ(findUpward(F.path("a/b/c"), {"no-such-file-anywhere.txt"}),
            std::nullopt);
}

TEST(FindUpwardTest, AFolderOfTheNameIsNotAMatch) {
  Folder F;
  ASSERT_FALSE(
      llvm::sys::fs::create_directories(F.path("x/compile_flags.txt")));
  EXPECT_EQ(findUpward(F.path("x"), {"compile_flags.txt"}), std::nullopt);
}
} // namespace
