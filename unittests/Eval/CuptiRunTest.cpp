//===-- CuptiRunTest.cpp - Measuring kernels from CUPTI reports -----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
// What --measure=cuda-kernel and a GPU --profile-cmd make of the reports in
// Inputs/ (the exact format tools/maxcode-cupti writes). Running a program
// under CUPTI needs a GPU: test/CUDA covers that with REQUIRES: cuda-gpu.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/CuptiRun.h"
#include "maxcode/Eval/Evaluator.h"
#include "maxcode/Eval/Sandbox.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

std::string input(llvm::StringRef Name) {
  return (llvm::Twine(MAXCODE_SOURCE_DIR) + "/unittests/Eval/Inputs/" + Name)
      .str();
}

/// A scratch folder holding copies of the named reports, as the library
/// leaves one file per CUDA process of a run.
class ReportDir {
public:
  explicit ReportDir(std::initializer_list<const char *> Names) {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("cupti-run-test", Dir));
    unsigned Pid = 100;
    for (const char *N : Names) {
      llvm::SmallString<256> To(Dir);
      llvm::sys::path::append(To, "cupti." + std::to_string(Pid++) + ".json");
      EXPECT_FALSE(llvm::sys::fs::copy_file(input(N), To));
    }
  }
  ~ReportDir() { llvm::sys::fs::remove_directories(Dir); }
  llvm::StringRef path() const { return Dir; }

private:
  llvm::SmallString<128> Dir;
};

TEST(CuptiRunTest, EnvironmentInjectsTheLibraryPerProcess) {
  auto Env = cuptiEnvironment("/opt/lib/libmaxcode-cupti.so", "/scratch/c",
                              CuptiPass::Metrics);
  ASSERT_EQ(Env.size(), 3u);
  EXPECT_EQ(Env[0],
            std::make_pair(std::string("CUDA_INJECTION64_PATH"),
                           std::string("/opt/lib/libmaxcode-cupti.so")));
  EXPECT_EQ(Env[1].second, "/scratch/c/cupti.%p.json");
  EXPECT_EQ(Env[2].second, "metrics");
  EXPECT_EQ(cuptiEnvironment("l", "d", CuptiPass::Timing)[2].second, "timing");
}

TEST(CuptiRunTest, CostSumsEveryProcessOfTheRun) {
  ReportDir D({"cupti-timing.json", "cupti-timing.json"});
  auto R = readCuptiReports(D.path());
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  auto Cost = cudaKernelCost(*R);
  ASSERT_TRUE(bool(Cost)) << llvm::toString(Cost.takeError());
  // Two processes, each with 1010 us of kernels on two streams.
  EXPECT_EQ(*Cost, 2 * 1010000.0);
}

TEST(CuptiRunTest, IncompleteKernelListsCannotBeMeasured) {
  ReportDir D({"cupti-timing.json", "cupti-dropped.json"});
  auto R = readCuptiReports(D.path());
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  auto Cost = cudaKernelCost(*R);
  ASSERT_FALSE(bool(Cost));
  EXPECT_EQ(llvm::toString(Cost.takeError()),
            "the kernel list is incomplete (12 records dropped, 1 without "
            "timestamps)");
}

TEST(CuptiRunTest, NoKernelAndNoReportAreErrors) {
  CuptiReport Empty;
  auto Cost = cudaKernelCost(Empty);
  ASSERT_FALSE(bool(Cost));
  EXPECT_EQ(llvm::toString(Cost.takeError()),
            "the program launched no CUDA kernel");
  ReportDir None({});
  auto R = readCuptiReports(None.path());
  ASSERT_FALSE(bool(R));
  EXPECT_NE(llvm::toString(R.takeError()).find("wrote no report"),
            std::string::npos);
}

TEST(CuptiRunTest, AMissingLibraryIsNamed) {
  llvm::Error E = checkCudaMeasurable("", OptionNames::Settings);
  ASSERT_TRUE(bool(E));
  std::string Message = llvm::toString(std::move(E));
  EXPECT_NE(Message.find("libmaxcode-cupti.so"), std::string::npos);
  // Named as the front end that runs it names the setting.
  EXPECT_EQ(Message.find("measure=cuda-kernel needs"), 0u) << Message;
}

} // namespace

namespace {

TEST(CuptiRunTest, SandboxPassesTheGpuDevicesThrough) {
  SandboxPolicy P;
  P.Mode = SandboxMode::Bwrap;
  P.Devices = {"/dev/nvidiactl", "/dev/nvidia0"};
  ProcessSpec S;
  S.Argv = {"./prog"};
  std::vector<std::string> Argv = sandboxed(S, P).Argv;
  auto At = std::find(Argv.begin(), Argv.end(), "--dev-bind");
  ASSERT_NE(At, Argv.end());
  EXPECT_EQ(*(At + 1), "/dev/nvidiactl");
  EXPECT_EQ(*(At + 2), "/dev/nvidiactl");
  // After bwrap's own /dev, which would otherwise hide them.
  EXPECT_LT(std::find(Argv.begin(), Argv.end(), "--dev"), At);
  EXPECT_EQ(Argv.back(), "./prog");
}

TEST(CuptiRunTest, CudaProgramsAreRecognised) {
  EvalConfig C;
  C.File = "/p/relu.cu";
  EXPECT_TRUE(C.cudaProgram());
  C.File = "/p/relu.cpp";
  C.Command.CommandLine = {"/usr/local/cuda/bin/nvcc", "-c", "relu.cpp"};
  EXPECT_TRUE(C.cudaProgram());
  C.Command.CommandLine = {"clang++", "-x", "cuda", "-c", "relu.cpp"};
  EXPECT_TRUE(C.cudaProgram());
  C.Command.CommandLine = {"g++", "-c", "relu.cpp"};
  EXPECT_FALSE(C.cudaProgram());
}

} // namespace
