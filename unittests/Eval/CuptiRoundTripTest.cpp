//===-- CuptiRoundTripTest.cpp - The report writer against its reader -----===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
// tools/maxcode-cupti writes the report and lib/Eval reads it; without a GPU
// the library never sees a kernel, so this writes reports from records made
// here, reads them back, and checks that nothing is lost or renamed. Also
// the environment the library is configured by.
//
//===----------------------------------------------------------------------===//

#include "CuptiInjection.h"
#include "maxcode/Eval/CuptiReport.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstdlib>
#include <unistd.h>

using namespace maxcode;

namespace {

/// A report file in the temporary folder, removed afterwards.
class TempReport {
public:
  TempReport() {
    std::error_code EC =
        llvm::sys::fs::createTemporaryFile("cupti-roundtrip", "json", Path);
    EXPECT_FALSE(EC) << EC.message();
  }
  ~TempReport() { llvm::sys::fs::remove(Path); }
  std::string path() const { return std::string(Path.str()); }

private:
  llvm::SmallString<128> Path;
};

cupti::KernelRecord launch(const char *Mangled, uint32_t Correlation) {
  cupti::KernelRecord K;
  K.Mangled = Mangled;
  K.CorrelationId = Correlation;
  K.DeviceId = 0;
  K.ContextId = 1;
  return K;
}

cupti::KernelRecord timed(const char *Mangled, uint32_t Correlation,
                          uint64_t Start, uint64_t End) {
  cupti::KernelRecord K = launch(Mangled, Correlation);
  K.HasLaunch = true;
  K.StreamId = 7;
  K.Grid[0] = 1048576;
  K.Grid[1] = 2;
  K.Grid[2] = 1;
  K.Block[0] = 128;
  K.Block[1] = 1;
  K.Block[2] = 1;
  K.RegistersPerThread = 16;
  K.StaticSharedMemory = 1024;
  K.DynamicSharedMemory = 4096;
  K.HasTime = true;
  K.StartNs = Start;
  K.EndNs = End;
  return K;
}

CuptiReport writeAndRead(cupti::Report &R, const cupti::Config &Cfg) {
  EXPECT_TRUE(cupti::writeReport(Cfg, R));
  llvm::Expected<CuptiReport> Read = readCuptiReport(Cfg.OutputPath);
  if (!Read) {
    ADD_FAILURE() << llvm::toString(Read.takeError());
    return CuptiReport();
  }
  return std::move(*Read);
}

TEST(CuptiRoundTripTest, TimingPass) {
  TempReport File;
  cupti::Config Cfg;
  Cfg.OutputPath = File.path();
  cupti::Report R;
  R.Pass = cupti::PassKind::Timing;
  // Buffers complete out of order; the report is in GPU start order, and a
  // record without timestamps comes last.
  cupti::KernelRecord NoTime = timed("_Z10reluKernelPKfPfm", 30, 0, 0);
  NoTime.HasTime = false;
  R.Kernels = {timed("_ZN3ops5scaleIfLi256EEEvPT_PKS1_S1_i", 22, 3000, 3500),
               NoTime, timed("_Z10reluKernelPKfPfm", 20, 1000, 1250),
               timed("vecAdd", 24, 5000, 5010)};
  R.DroppedRecords = 3;
  R.RecordsWithoutTime = 1;
  R.Notes = {"a \"quoted\" note\twith a tab, a \\ and\na newline"};

  CuptiReport Read = writeAndRead(R, Cfg);
  EXPECT_EQ(Read.Pass, CuptiPass::Timing);
  EXPECT_EQ(Read.Pid, static_cast<int64_t>(getpid()));
  EXPECT_EQ(Read.MetricsStatus, CuptiMetricsStatus::NotRequested);
  EXPECT_TRUE(Read.RequestedMetrics.empty());
  EXPECT_EQ(Read.DroppedRecords, 3u);
  EXPECT_EQ(Read.RecordsWithoutTime, 1u);
  ASSERT_EQ(Read.Kernels.size(), 4u);

  const CuptiKernel &First = Read.Kernels[0];
  EXPECT_EQ(First.Name, "reluKernel(float const*, float*, unsigned long)");
  EXPECT_EQ(First.Mangled, "_Z10reluKernelPKfPfm");
  EXPECT_EQ(First.CorrelationId, 20u);
  EXPECT_EQ(First.Context, 1u);
  EXPECT_TRUE(First.HasLaunch);
  EXPECT_EQ(First.Stream, 7u);
  EXPECT_EQ(First.Grid, (std::array<int64_t, 3>{1048576, 2, 1}));
  EXPECT_EQ(First.Block, (std::array<int64_t, 3>{128, 1, 1}));
  EXPECT_EQ(First.RegistersPerThread, 16u);
  EXPECT_EQ(First.StaticSharedMemory, 1024);
  EXPECT_EQ(First.DynamicSharedMemory, 4096);
  EXPECT_EQ(First.durationNs(), 250u);

  EXPECT_EQ(Read.Kernels[1].Name,
            "void ops::scale<float, 256>(float*, float const*, float, int)");
  EXPECT_EQ(Read.Kernels[2].Name, "vecAdd");
  EXPECT_EQ(Read.Kernels[3].CorrelationId, 30u);
  EXPECT_TRUE(Read.Kernels[3].HasLaunch);
  EXPECT_FALSE(Read.Kernels[3].HasTime);
  EXPECT_EQ(Read.totalKernelTimeNs(), 250u + 500u + 10u);
  EXPECT_FALSE(Read.timesComplete());

  ASSERT_EQ(Read.Notes.size(), 3u);
  EXPECT_EQ(Read.Notes[0], R.Notes[0]);
  EXPECT_EQ(Read.Notes[1], "activity records dropped: 3 (the kernel list and "
                           "the total time are incomplete)");
  EXPECT_EQ(Read.Notes[2], "kernel records without timestamps: 1");
}

TEST(CuptiRoundTripTest, MetricsPass) {
  TempReport File;
  cupti::Config Cfg;
  Cfg.OutputPath = File.path();
  Cfg.Pass = cupti::PassKind::Metrics;
  Cfg.Metrics = cupti::defaultMetrics();
  Cfg.Metrics.push_back("made__up.sum");
  cupti::Report R;
  R.Pass = cupti::PassKind::Metrics;
  R.MetricNames = cupti::defaultMetrics();
  R.MetricPasses = 4;
  R.MetricsStatus = "collected";
  cupti::KernelRecord K = launch("_Z12matmulKernelPKfS0_Pfi", 12);
  K.MetricValues = {41250000, 62.125, 4.5, 97.25, NAN, 1e-300};
  R.Kernels = {K};

  CuptiReport Read = writeAndRead(R, Cfg);
  EXPECT_EQ(Read.Pass, CuptiPass::Metrics);
  EXPECT_EQ(Read.MetricsStatus, CuptiMetricsStatus::Collected);
  EXPECT_EQ(Read.RequestedMetrics, Cfg.Metrics);
  EXPECT_EQ(Read.MetricNames, cupti::defaultMetrics());
  EXPECT_EQ(Read.MetricPasses, 4u);
  ASSERT_EQ(Read.Kernels.size(), 1u);
  EXPECT_FALSE(Read.Kernels[0].HasLaunch);
  EXPECT_FALSE(Read.Kernels[0].HasTime);
  auto M = Read.metricsFor("matmulKernel");
  ASSERT_TRUE(M.has_value());
  // NaN is written as null and read as absent; values keep every bit.
  EXPECT_EQ(M->size(), 5u);
  EXPECT_EQ(M->count("l1tex__t_sector_hit_rate.pct"), 0u);
  EXPECT_EQ((*M)["gpu__time_duration.sum"], 41250000.0);
  EXPECT_EQ((*M)["sm__throughput.avg.pct_of_peak_sustained_elapsed"], 62.125);
  EXPECT_EQ((*M)["lts__t_sector_hit_rate.pct"], 1e-300);
}

TEST(CuptiRoundTripTest, MetricsDenied) {
  TempReport File;
  cupti::Config Cfg;
  Cfg.OutputPath = File.path();
  Cfg.Pass = cupti::PassKind::Metrics;
  Cfg.Metrics = cupti::defaultMetrics();
  cupti::Report R;
  R.Pass = cupti::PassKind::Metrics;
  R.MetricsStatus = "insufficient-privileges";
  R.Kernels = {timed("_Z10reluKernelPKfPfm", 20, 1000, 1250)};
  CuptiReport Read = writeAndRead(R, Cfg);
  EXPECT_EQ(Read.MetricsStatus, CuptiMetricsStatus::InsufficientPrivileges);
  EXPECT_TRUE(Read.MetricNames.empty());
  EXPECT_EQ(Read.totalKernelTimeNs(), 250u);
  EXPECT_TRUE(Read.timesComplete());
}

TEST(CuptiRoundTripTest, UnwritablePath) {
  cupti::Config Cfg;
  Cfg.OutputPath = "/nonexistent-folder/report.json";
  cupti::Report R;
  EXPECT_FALSE(cupti::writeReport(Cfg, R));
}

TEST(CuptiRoundTripTest, ConfigFromEnvironment) {
  setenv("MAXCODE_CUPTI_OUTPUT", "/tmp/run.%p.json", 1);
  setenv("MAXCODE_CUPTI_PASS", "metrics", 1);
  setenv("MAXCODE_CUPTI_METRICS", " b.sum, a.pct,, b.sum ", 1);
  setenv("MAXCODE_CUPTI_MAX_RANGES", "8", 1);
  std::vector<std::string> Notes;
  cupti::Config C = cupti::readConfig(Notes);
  EXPECT_EQ(C.OutputPath, "/tmp/run." + std::to_string(getpid()) + ".json");
  EXPECT_EQ(C.Pass, cupti::PassKind::Metrics);
  EXPECT_EQ(C.Metrics, (std::vector<std::string>{"b.sum", "a.pct"}));
  EXPECT_EQ(C.MaxRangesPerPass, 8u);
  EXPECT_TRUE(Notes.empty());

  unsetenv("MAXCODE_CUPTI_OUTPUT");
  setenv("MAXCODE_CUPTI_PASS", "sampling", 1);
  unsetenv("MAXCODE_CUPTI_METRICS");
  setenv("MAXCODE_CUPTI_MAX_RANGES", "5000", 1);
  C = cupti::readConfig(Notes);
  EXPECT_EQ(C.OutputPath,
            "maxcode-cupti." + std::to_string(getpid()) + ".json");
  EXPECT_EQ(C.Pass, cupti::PassKind::Timing);
  EXPECT_EQ(C.Metrics, cupti::defaultMetrics());
  EXPECT_EQ(C.MaxRangesPerPass, 64u);
  ASSERT_EQ(Notes.size(), 2u);
  EXPECT_EQ(Notes[0], "unknown MAXCODE_CUPTI_PASS 'sampling' (expected "
                      "'timing' or 'metrics'); timing");
  unsetenv("MAXCODE_CUPTI_PASS");
  unsetenv("MAXCODE_CUPTI_MAX_RANGES");
}

} // namespace
