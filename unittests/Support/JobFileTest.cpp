//===-- JobFileTest.cpp - A process run elsewhere -------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/JobFile.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

class JobFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("jobfile-test", Dir));
    Stem = Dir;
    llvm::sys::path::append(Stem, "job-0");
  }
  void TearDown() override { (void)llvm::sys::fs::remove_directories(Dir); }
  llvm::SmallString<128> Dir, Stem;
};

TEST_F(JobFileTest, SpecRoundTrips) {
  ProcessSpec S;
  S.Argv = {"bwrap", "--", "./prog", "a b"};
  S.WorkingDir = "/shared/scratch";
  S.Env = {{"TMPDIR", "/shared/scratch"}, {"EMPTY", ""}};
  S.InheritEnvironment = true;
  S.PassEnv = {"CC"};
  S.ReportPipe = true;
  S.StdinFile = "/data/input.0.txt";
  S.Limits.WallSeconds = 2.5;
  S.Limits.CpuSeconds = 6;
  S.Limits.MemoryBytes = 4ull << 30;
  S.Limits.FileSizeBytes = 256ull << 20;
  S.Limits.MaxProcesses = 256;
  S.Limits.OutputBytes = 1 << 20;
  S.RunAsUid = 3000042;
  S.RunAsGid = 3000042;
  ASSERT_FALSE(bool(writeJobSpec(Stem, S)));
  auto R = readJobSpec(Stem);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Argv, S.Argv);
  EXPECT_EQ(R->WorkingDir, S.WorkingDir);
  EXPECT_EQ(R->Env, S.Env);
  EXPECT_TRUE(R->InheritEnvironment);
  EXPECT_EQ(R->PassEnv, S.PassEnv);
  EXPECT_TRUE(R->ReportPipe);
  EXPECT_EQ(R->StdinFile, S.StdinFile);
  EXPECT_EQ(R->Limits.WallSeconds, 2.5);
  EXPECT_EQ(R->Limits.CpuSeconds, 6u);
  EXPECT_EQ(R->Limits.MemoryBytes, 4ull << 30);
  EXPECT_EQ(R->Limits.FileSizeBytes, 256ull << 20);
  EXPECT_EQ(R->Limits.MaxProcesses, 256u);
  EXPECT_EQ(R->Limits.OutputBytes, 1ull << 20);
  EXPECT_EQ(R->RunAsUid, 3000042);
  EXPECT_EQ(R->RunAsGid, 3000042);
}

TEST_F(JobFileTest, ResultKeepsRawOutput) {
  ProcessResult R;
  R.ExitCode = 3;
  R.TimedOut = true;
  R.WallSeconds = 1.25;
  R.MaxRSSBytes = 123456789;
  // Output need not be UTF-8 or free of NULs.
  R.Stdout = std::string("a\0\xff\xfe b\n", 7);
  R.Stderr = "err\n";
  R.Report = "maxcode-timer-report 1\n";
  ASSERT_FALSE(bool(writeJobResult(Stem, R)));
  auto Back = readJobResult(Stem);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->ExitCode, 3);
  EXPECT_TRUE(Back->TimedOut);
  EXPECT_FALSE(Back->Cancelled);
  EXPECT_EQ(Back->WallSeconds, 1.25);
  EXPECT_EQ(Back->MaxRSSBytes, 123456789u);
  EXPECT_EQ(Back->Stdout, R.Stdout);
  EXPECT_EQ(Back->Stderr, R.Stderr);
  EXPECT_EQ(Back->Report, R.Report);
  // The job's id, as maxcode-job writes it, goes with the rest.
  {
    std::error_code EC;
    llvm::raw_fd_ostream((Stem + ".jobid").str(), EC) << "12\n";
    ASSERT_FALSE(EC);
  }
  removeJobFiles(Stem);
  std::error_code EC;
  EXPECT_EQ(llvm::sys::fs::directory_iterator(Dir, EC),
            llvm::sys::fs::directory_iterator());
}

TEST_F(JobFileTest, MissingResultIsAnError) {
  auto R = readJobResult(Stem);
  ASSERT_FALSE(bool(R));
  EXPECT_NE(llvm::toString(R.takeError()).find("job-0.result.json"),
            std::string::npos);
}

} // namespace
