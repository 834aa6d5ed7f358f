//===-- ApplyTest.cpp - Writing the winner back ---------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Rewrite/Apply.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

/// A scratch folder removed with everything in it at the end of a test.
class ScratchDir {
public:
  ScratchDir() {
    std::error_code EC =
        llvm::sys::fs::createUniqueDirectory("maxcode-apply-test", Path);
    EXPECT_FALSE(EC) << EC.message();
  }
  ~ScratchDir() { llvm::sys::fs::remove_directories(Path); }
  std::string file(llvm::StringRef Name) const {
    llvm::SmallString<256> P(Path);
    llvm::sys::path::append(P, Name);
    return std::string(P);
  }
  /// The names in the folder, sorted.
  std::vector<std::string> entries() const {
    std::vector<std::string> Names;
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator I(Path, EC), E; I != E && !EC;
         I.increment(EC))
      Names.push_back(llvm::sys::path::filename(I->path()).str());
    llvm::sort(Names);
    return Names;
  }
  llvm::SmallString<256> Path;
};

void writeFile(llvm::StringRef Path, llvm::StringRef Text) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  ASSERT_FALSE(EC) << EC.message();
  OS << Text;
}

std::string readFile(llvm::StringRef Path) {
  auto B = llvm::MemoryBuffer::getFile(Path);
  EXPECT_TRUE(bool(B));
  return B ? (*B)->getBuffer().str() : "";
}

TEST(ApplyTest, ReplacementsReproduceTheEditedText) {
  const char *Cases[][2] = {
      {"a\nb\nc\n", "a\nB\nc\n"},       // A changed line.
      {"a\nb\nc\n", "x\na\nb\nc\ny\n"}, // Insertions at both ends.
      {"a\nb\nc\n", "a\nc\n"},          // A deletion.
      {"a\nb", "a\nb\n"},               // A newline added at the end.
      {"", "int x;\n"},                 // From nothing.
      {"int f();\nint g();\n", ""},     // To nothing.
  };
  for (const auto &C : Cases) {
    auto R = replacementsBetween("/x.cpp", C[0], C[1]);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    auto Text = clang::tooling::applyAllReplacements(C[0], *R);
    ASSERT_TRUE(bool(Text)) << llvm::toString(Text.takeError());
    EXPECT_EQ(*Text, C[1]);
  }
}

TEST(ApplyTest, UnchangedLinesAreNotReplaced) {
  auto R = replacementsBetween("/x.cpp", "a\nb\nc\nd\n", "a\nB\nc\nd\n");
  ASSERT_TRUE(bool(R));
  ASSERT_EQ(R->size(), 1u);
  EXPECT_EQ(R->begin()->getOffset(), 2u);
  EXPECT_EQ(R->begin()->getLength(), 2u);
  EXPECT_EQ(R->begin()->getReplacementText(), "B\n");
}

TEST(ApplyTest, FormatsOnlyChangedLinesWithTheProjectStyle) {
  ScratchDir D;
  writeFile(D.file(".clang-format"), "BasedOnStyle: LLVM\n");
  std::string File = D.file("a.cpp");
  // The untouched line keeps its odd spacing; the new one is formatted.
  std::string Original = "int  keep( int x ) ;\nint f() { return 1; }\n";
  std::string Variant = "int  keep( int x ) ;\nint f() {return   2;}\n";
  auto F = computeFixes(File, Original, Variant, Target(), EditScope::File);
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  EXPECT_EQ(F->Result, "int  keep( int x ) ;\nint f() { return 2; }\n");
  EXPECT_EQ(F->StyleSource, D.file(".clang-format"));
}

TEST(ApplyTest, WithoutAStyleFileTheTextIsKept) {
  ScratchDir D;
  // A folder of its own whose ancestors may hold a .clang-format: make one
  // that turns formatting off so the test does not depend on them.
  writeFile(D.file(".clang-format"), "DisableFormat: true\n");
  std::string File = D.file("a.cpp");
  auto F = computeFixes(File, "int f();\n", "int  f( );\n", Target(),
                        EditScope::File);
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  EXPECT_EQ(F->Result, "int  f( );\n");
}

TEST(ApplyTest, ApplyWritesTheResultAndKeepsPermissions) {
  ScratchDir D;
  std::string File = D.file("a.cpp");
  writeFile(File, "int f();\n");
  ASSERT_FALSE(llvm::sys::fs::setPermissions(File, llvm::sys::fs::perms(0640)));
  FixSet F;
  F.File = File;
  F.Original = "int f();\n";
  F.Result = "int g();\n";
  ASSERT_FALSE(bool(applyFixes(F)));
  EXPECT_EQ(readFile(File), "int g();\n");
  llvm::sys::fs::file_status S;
  ASSERT_FALSE(llvm::sys::fs::status(File, S));
  EXPECT_EQ(S.permissions(), llvm::sys::fs::perms(0640));
  EXPECT_EQ(D.entries(), std::vector<std::string>{"a.cpp"});
}

TEST(ApplyTest, ApplyRefusesAChangedFile) {
  ScratchDir D;
  std::string File = D.file("a.cpp");
  writeFile(File, "int f(); // edited by someone\n");
  FixSet F;
  F.File = File;
  F.Original = "int f();\n";
  F.Result = "int g();\n";
  llvm::Error E = applyFixes(F);
  ASSERT_TRUE(bool(E));
  EXPECT_NE(llvm::toString(std::move(E))
                .find("changed since the search "
                      "read it"),
            std::string::npos);
  EXPECT_EQ(readFile(File), "int f(); // edited by someone\n");
  EXPECT_EQ(D.entries(), std::vector<std::string>{"a.cpp"});
}

TEST(ApplyTest, AnAbandonedWriteLeavesTheOldFileAndNoTemporary) {
  ScratchDir D;
  std::string File = D.file("a.cpp");
  writeFile(File, "old\n");
  bool Complete = false;
  llvm::Error E = writeFileAtomically(File, "new\n", [&]() -> llvm::Error {
    // The new contents are complete in a temporary file beside the old one,
    // which is still untouched.
    std::vector<std::string> Names = D.entries();
    Complete = Names.size() == 2 && readFile(File) == "old\n";
    for (const std::string &N : Names)
      if (N != "a.cpp")
        Complete = Complete && readFile(D.file(N)) == "new\n";
    return llvm::createStringError("interrupted");
  });
  EXPECT_TRUE(Complete);
  EXPECT_EQ(llvm::toString(std::move(E)), "interrupted");
  EXPECT_EQ(readFile(File), "old\n");
  EXPECT_EQ(D.entries(), std::vector<std::string>{"a.cpp"});
}

TEST(ApplyTest, ExportedFixesNameTheFileAndTheEdits) {
  ScratchDir D;
  std::string File = D.file("a.cpp");
  FixSet F;
  F.File = File;
  F.Original = "int f();\n";
  auto R = replacementsBetween(File, F.Original, "int g();\n");
  ASSERT_TRUE(bool(R));
  F.Replaces = *R;
  std::string YAML = D.file("fixes.yaml");
  ASSERT_FALSE(bool(exportFixes(F, YAML, "faster")));
  std::string Text = readFile(YAML);
  EXPECT_NE(Text.find("MainSourceFile:  '" + File + "'"), std::string::npos)
      << Text;
  EXPECT_NE(Text.find("DiagnosticName:  clang-maxcode"), std::string::npos);
  EXPECT_NE(Text.find("ReplacementText: \"int g();\\n\""), std::string::npos)
      << Text;
}

} // namespace
