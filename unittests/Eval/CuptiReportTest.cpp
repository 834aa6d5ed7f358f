//===-- CuptiReportTest.cpp - Reading libmaxcode-cupti's reports ----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
// The files in Inputs/ are in the exact format tools/maxcode-cupti writes:
// a timing pass, a metrics pass, a metrics pass denied the counters, a
// timing pass that lost records, and a truncated file.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/CuptiReport.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

std::string input(llvm::StringRef Name) {
  return (llvm::Twine(MAXCODE_SOURCE_DIR) + "/unittests/Eval/Inputs/" + Name)
      .str();
}

CuptiReport read(llvm::StringRef Name) {
  llvm::Expected<CuptiReport> R = readCuptiReport(input(Name));
  if (!R) {
    ADD_FAILURE() << llvm::toString(R.takeError());
    return CuptiReport();
  }
  return std::move(*R);
}

std::string parseError(llvm::StringRef Text) {
  llvm::Expected<CuptiReport> R = parseCuptiReport(Text);
  if (R)
    return "<parsed>";
  return llvm::toString(R.takeError());
}

TEST(CuptiReportTest, ReadsTimingPass) {
  CuptiReport R = read("cupti-timing.json");
  EXPECT_EQ(R.Version, 1u);
  EXPECT_EQ(R.Pass, CuptiPass::Timing);
  EXPECT_EQ(R.Pid, 31337);
  EXPECT_EQ(R.CuptiApiVersion, 130001u);
  EXPECT_EQ(R.MetricsStatus, CuptiMetricsStatus::NotRequested);
  EXPECT_TRUE(R.Notes.empty());
  ASSERT_EQ(R.Kernels.size(), 6u);

  const CuptiKernel &Scale = R.Kernels[2];
  EXPECT_EQ(Scale.Name,
            "void ops::scale<float, 256>(float*, float const*, float, int)");
  EXPECT_EQ(Scale.Mangled, "_ZN3ops5scaleIfLi256EEEvPT_PKS1_S1_i");
  EXPECT_EQ(Scale.CorrelationId, 14u);
  EXPECT_EQ(Scale.Context, 1u);
  EXPECT_TRUE(Scale.HasLaunch);
  EXPECT_EQ(Scale.Stream, 13u);
  EXPECT_EQ(Scale.Grid, (std::array<int64_t, 3>{1024, 1, 1}));
  EXPECT_EQ(Scale.Block, (std::array<int64_t, 3>{256, 1, 1}));
  EXPECT_EQ(Scale.RegistersPerThread, 24u);
  EXPECT_EQ(Scale.StaticSharedMemory, 1024);
  EXPECT_EQ(Scale.DynamicSharedMemory, 4096);
  EXPECT_TRUE(Scale.HasTime);
  EXPECT_EQ(Scale.durationNs(), 300000u);
  EXPECT_TRUE(Scale.Metrics.empty());
  EXPECT_EQ(R.Kernels[5].Grid, (std::array<int64_t, 3>{4096, 2, 1}));
}

TEST(CuptiReportTest, TotalCountsEveryKernelOnEveryStream) {
  CuptiReport R = read("cupti-timing.json");
  // Three reluKernel launches (650 us), the side-stream scale kernel that
  // overlaps one of them (300 us), softmax (50 us) and vecAdd (10 us): the
  // sum, not the 1210 us wall-clock span.
  EXPECT_EQ(R.totalKernelTimeNs(), 1010000u);
  EXPECT_TRUE(R.timesComplete());
}

TEST(CuptiReportTest, PerKernelTotals) {
  CuptiReport R = read("cupti-timing.json");
  std::vector<CuptiKernelTotal> T = R.kernelTotals();
  ASSERT_EQ(T.size(), 4u);
  EXPECT_EQ(T[0].Name, "reluKernel(float const*, float*, long)");
  EXPECT_EQ(T[0].Mangled, "_Z10reluKernelPKfPfl");
  EXPECT_EQ(T[0].Launches, 3u);
  EXPECT_EQ(T[0].TotalNs, 650000u);
  EXPECT_DOUBLE_EQ(T[0].Share, 650000.0 / 1010000.0);
  EXPECT_EQ(T[1].Mangled, "_ZN3ops5scaleIfLi256EEEvPT_PKS1_S1_i");
  EXPECT_EQ(T[1].Launches, 1u);
  EXPECT_EQ(T[2].Mangled, "_ZN12_GLOBAL__N_111softmaxRowsEPKfPfii");
  EXPECT_EQ(T[3].Name, "vecAdd");
  EXPECT_EQ(T[3].TotalNs, 10000u);
}

TEST(CuptiReportTest, ReadsMetricsPass) {
  CuptiReport R = read("cupti-metrics.json");
  EXPECT_EQ(R.Pass, CuptiPass::Metrics);
  EXPECT_EQ(R.MetricsStatus, CuptiMetricsStatus::Collected);
  EXPECT_EQ(R.RequestedMetrics.size(), 7u);
  ASSERT_EQ(R.MetricNames.size(), 6u);
  EXPECT_EQ(R.MetricNames[5], "lts__t_sector_hit_rate.pct");
  EXPECT_EQ(R.MetricPasses, 3u);
  ASSERT_EQ(R.Notes.size(), 1u);
  EXPECT_NE(R.Notes[0].find("smsp__made_up_metric.sum"), std::string::npos);
  ASSERT_EQ(R.Kernels.size(), 3u);
  // The metrics pass has neither launch configurations nor times.
  EXPECT_FALSE(R.Kernels[0].HasLaunch);
  EXPECT_FALSE(R.Kernels[0].HasTime);
  EXPECT_FALSE(R.timesComplete());
  EXPECT_EQ(R.totalKernelTimeNs(), 0u);
  // A metric CUPTI could not evaluate is written as null and left out.
  EXPECT_EQ(R.Kernels[2].Metrics.size(), 5u);
  EXPECT_EQ(R.Kernels[2].Metrics.count("l1tex__t_sector_hit_rate.pct"), 0u);
}

TEST(CuptiReportTest, MetricsOfTheTargetKernel) {
  CuptiReport R = read("cupti-metrics.json");
  auto Relu = R.metricsFor("reluKernel");
  ASSERT_TRUE(Relu.has_value());
  // Averaged over both launches.
  EXPECT_DOUBLE_EQ((*Relu)["gpu__time_duration.sum"], 210000.0);
  EXPECT_DOUBLE_EQ((*Relu)["sm__throughput.avg.pct_of_peak_sustained_elapsed"],
                   12.0);
  EXPECT_DOUBLE_EQ((*Relu)["sm__warps_active.avg.pct_of_peak_sustained_active"],
                   82.0);
  EXPECT_DOUBLE_EQ((*Relu)["lts__t_sector_hit_rate.pct"], 34.0);

  auto Matmul = R.metricsFor("_Z11matmulNaivePKfS0_Pfi");
  ASSERT_TRUE(Matmul.has_value());
  EXPECT_DOUBLE_EQ((*Matmul)["dram__throughput.avg.pct_of_peak_sustained_"
                             "elapsed"],
                   4.5);
  EXPECT_EQ(Matmul->count("l1tex__t_sector_hit_rate.pct"), 0u);

  EXPECT_FALSE(R.metricsFor("softmaxKernel").has_value());
  EXPECT_FALSE(R.metricsFor("Kernel").has_value());
}

TEST(CuptiReportTest, InsufficientPrivilegesKeepsTimes) {
  CuptiReport R = read("cupti-insufficient-privileges.json");
  EXPECT_EQ(R.Pass, CuptiPass::Metrics);
  EXPECT_EQ(R.MetricsStatus, CuptiMetricsStatus::InsufficientPrivileges);
  EXPECT_TRUE(R.MetricNames.empty());
  ASSERT_EQ(R.Notes.size(), 2u);
  EXPECT_NE(R.Notes[0].find("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"),
            std::string::npos);
  EXPECT_EQ(R.totalKernelTimeNs(), 210000u + 205000u);
  EXPECT_TRUE(R.timesComplete());
  EXPECT_FALSE(R.metricsFor("reluKernel").has_value());
}

TEST(CuptiReportTest, DroppedRecordsMakeTimesIncomplete) {
  CuptiReport R = read("cupti-dropped.json");
  EXPECT_EQ(R.DroppedRecords, 12u);
  EXPECT_EQ(R.RecordsWithoutTime, 1u);
  ASSERT_EQ(R.Kernels.size(), 3u);
  EXPECT_TRUE(R.Kernels[2].HasLaunch);
  EXPECT_FALSE(R.Kernels[2].HasTime);
  EXPECT_EQ(R.Kernels[2].durationNs(), 0u);
  EXPECT_EQ(R.totalKernelTimeNs(), 450000u);
  EXPECT_FALSE(R.timesComplete());
  EXPECT_EQ(R.kernelTotals()[0].Launches, 3u);
  EXPECT_EQ(R.Notes.size(), 2u);
}

TEST(CuptiReportTest, MalformedFile) {
  llvm::Expected<CuptiReport> R =
      readCuptiReport(input("cupti-malformed.json"));
  ASSERT_FALSE(bool(R));
  std::string Message = llvm::toString(R.takeError());
  EXPECT_NE(Message.find("malformed CUPTI report"), std::string::npos)
      << Message;
  EXPECT_NE(Message.find("cupti-malformed.json"), std::string::npos) << Message;
}

TEST(CuptiReportTest, MissingFile) {
  llvm::Expected<CuptiReport> R = readCuptiReport(input("no-such-report.json"));
  ASSERT_FALSE(bool(R));
  EXPECT_NE(llvm::toString(R.takeError()).find("cannot read CUPTI report"),
            std::string::npos);
}

TEST(CuptiReportTest, RejectsOtherVersionsAndWrongFields) {
  EXPECT_EQ(parseError("[]"), "not a maxcode-cupti report: no version");
  EXPECT_EQ(parseError(R"({"version": 2, "tool": "maxcode-cupti"})"),
            "unsupported maxcode-cupti report version 2 (this build reads "
            "version 1)");
  const char *Header = R"({"version": 1, "tool": "maxcode-cupti",
      "pass": "timing", "pid": 1, "cupti_api_version": 130001,
      "dropped_records": 0, "records_without_time": 0,
      "metrics_status": "not-requested", "requested_metrics": [],
      "metric_names": [], "metric_passes": 0, "notes": [], )";
  EXPECT_EQ(parseError(std::string(Header) + R"("kernels": []})"), "<parsed>");
  // A kernel without its name, with two grid dimensions, with a start and
  // no end, or with an id that does not fit 32 bits.
  EXPECT_NE(parseError(std::string(Header) +
                       R"("kernels": [{"mangled": "f", "correlation_id": 1,
                           "device": 0, "context": 1}]})")
                .find("kernels[0].name"),
            std::string::npos);
  EXPECT_NE(parseError(std::string(Header) +
                       R"("kernels": [{"name": "f", "mangled": "f",
                           "correlation_id": 1, "device": 0, "context": 1,
                           "stream": 7, "grid": [1, 1], "block": [1, 1, 1],
                           "registers_per_thread": 8,
                           "static_shared_memory": 0,
                           "dynamic_shared_memory": 0}]})")
                .find("expected three numbers"),
            std::string::npos);
  EXPECT_NE(parseError(std::string(Header) +
                       R"("kernels": [{"name": "f", "mangled": "f",
                           "correlation_id": 1, "device": 0, "context": 1,
                           "start_ns": 5}]})")
                .find("end_ns"),
            std::string::npos);
  EXPECT_NE(parseError(std::string(Header) +
                       R"("kernels": [{"name": "f", "mangled": "f",
                           "correlation_id": 4294967296, "device": 0,
                           "context": 1}]})")
                .find("out of range"),
            std::string::npos);
  EXPECT_NE(parseError(R"({"version": 1, "tool": "nsys"})").find("tool"),
            std::string::npos);
  std::string BadStatus(Header);
  BadStatus.replace(BadStatus.find("not-requested"), 13, "maybe");
  EXPECT_NE(parseError(BadStatus + R"("kernels": []})").find("metrics_status"),
            std::string::npos);
}

TEST(CuptiReportTest, KernelBaseNames) {
  EXPECT_EQ(cuptiKernelBaseName("reluKernel(float const*, float*, long)"),
            "reluKernel");
  EXPECT_EQ(
      cuptiKernelBaseName(
          "void ops::scale<float, 256>(float*, float const*, float, int)"),
      "ops::scale");
  EXPECT_EQ(cuptiKernelBaseName(
                "(anonymous namespace)::softmaxRows(float const*, float*, int, "
                "int)"),
            "(anonymous namespace)::softmaxRows");
  EXPECT_EQ(cuptiKernelBaseName("void f<(anonymous namespace)::Op, 2>(int)"),
            "f");
  EXPECT_EQ(cuptiKernelBaseName("vecAdd"), "vecAdd");
}

TEST(CuptiReportTest, KernelMatching) {
  CuptiKernel K;
  K.Name = "void ops::scale<float, 256>(float*, float const*, float, int)";
  K.Mangled = "_ZN3ops5scaleIfLi256EEEvPT_PKS1_S1_i";
  EXPECT_TRUE(cuptiKernelMatches(K, "ops::scale"));
  EXPECT_TRUE(cuptiKernelMatches(K, "::ops::scale"));
  EXPECT_TRUE(cuptiKernelMatches(K, "scale"));
  EXPECT_TRUE(cuptiKernelMatches(K, K.Mangled));
  EXPECT_FALSE(cuptiKernelMatches(K, "cale"));
  EXPECT_FALSE(cuptiKernelMatches(K, "ops::scale2"));
  EXPECT_FALSE(cuptiKernelMatches(K, ""));
}

TEST(CuptiReportTest, AppendAddsProcesses) {
  CuptiReport A = read("cupti-timing.json");
  CuptiReport B = read("cupti-dropped.json");
  A.append(B);
  EXPECT_EQ(A.Kernels.size(), 9u);
  EXPECT_EQ(A.totalKernelTimeNs(), 1010000u + 450000u);
  EXPECT_EQ(A.DroppedRecords, 12u);
  EXPECT_FALSE(A.timesComplete());

  CuptiReport M = read("cupti-metrics.json");
  M.append(read("cupti-insufficient-privileges.json"));
  EXPECT_EQ(M.MetricsStatus, CuptiMetricsStatus::InsufficientPrivileges);
  EXPECT_EQ(M.MetricNames.size(), 6u);
  EXPECT_EQ(M.MetricPasses, 3u);
}

} // namespace
