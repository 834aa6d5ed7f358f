//===-- maxcode/Eval/CuptiReport.h - Reading CUPTI reports ------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The reader of the JSON report the CUPTI injection library
/// (tools/maxcode-cupti) writes at the end of a CUDA program (format in
/// docs/CUDA.md), and the numbers the evaluator takes from it: the kernel
/// time of a run, per-kernel totals for ranking, and the metrics of the
/// kernel a target names.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_EVAL_CUPTIREPORT_H
#define MAXCODE_EVAL_CUPTIREPORT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace maxcode {

/// The only report version this reader understands.
constexpr unsigned CuptiReportVersion = 1;

enum class CuptiPass { Timing, Metrics };

enum class CuptiMetricsStatus {
  NotRequested,           ///< A timing pass.
  Collected,              ///< Metrics for every profiled kernel.
  InsufficientPrivileges, ///< Counters denied: kernel times only.
  Failed,                 ///< The profiler failed: kernel times only.
};

llvm::StringRef cuptiMetricsStatusName(CuptiMetricsStatus S);

/// One kernel launch.
struct CuptiKernel {
  std::string Name;    ///< Demangled: "void ops::scale<float>(float*, int)".
  std::string Mangled; ///< As the binary names it.
  uint32_t CorrelationId = 0;
  uint32_t Device = 0;
  uint32_t Context = 0;

  /// The launch configuration (timing pass).
  bool HasLaunch = false;
  uint32_t Stream = 0;
  std::array<int64_t, 3> Grid = {0, 0, 0};
  std::array<int64_t, 3> Block = {0, 0, 0};
  unsigned RegistersPerThread = 0;
  int64_t StaticSharedMemory = 0;
  int64_t DynamicSharedMemory = 0;

  /// GPU timestamps (timing pass, or a metrics pass that fell back).
  bool HasTime = false;
  uint64_t StartNs = 0;
  uint64_t EndNs = 0;

  /// Metric values (metrics pass); a metric CUPTI could not evaluate is
  /// absent.
  std::map<std::string, double> Metrics;

  uint64_t durationNs() const {
    return HasTime && EndNs > StartNs ? EndNs - StartNs : 0;
  }
};

/// All launches of one kernel, by name.
struct CuptiKernelTotal {
  std::string Name; ///< Demangled.
  std::string Mangled;
  unsigned Launches = 0;
  uint64_t TotalNs = 0;
  /// TotalNs over the run's total kernel time.
  double Share = 0;
};

struct CuptiReport {
  unsigned Version = CuptiReportVersion;
  CuptiPass Pass = CuptiPass::Timing;
  int64_t Pid = 0;
  uint32_t CuptiApiVersion = 0;
  /// Activity records CUPTI dropped: the kernel list is incomplete.
  uint64_t DroppedRecords = 0;
  /// Kernel records without timestamps.
  uint64_t RecordsWithoutTime = 0;
  CuptiMetricsStatus MetricsStatus = CuptiMetricsStatus::NotRequested;
  std::vector<std::string> RequestedMetrics;
  /// The metrics actually collected.
  std::vector<std::string> MetricNames;
  uint64_t MetricPasses = 0;
  std::vector<CuptiKernel> Kernels;
  /// Why something is missing, in words.
  std::vector<std::string> Notes;

  /// The kernel time of the run: (end - start) summed over every kernel of
  /// every stream, so moving work into another kernel or onto a side stream
  /// never makes a run look faster.
  uint64_t totalKernelTimeNs() const;

  /// False when some launches have no time (dropped records, records without
  /// timestamps, a metrics pass): then totalKernelTimeNs() undercounts.
  bool timesComplete() const;

  /// Launches and time per kernel name, most time first (ties by name).
  std::vector<CuptiKernelTotal> kernelTotals() const;

  /// The metrics of the kernel \p Target names (see cuptiKernelMatches),
  /// averaged over its launches; a metric missing from some launches is
  /// averaged over the others. None when no launch of it has metrics.
  std::optional<std::map<std::string, double>>
  metricsFor(llvm::StringRef Target) const;

  /// Adds another process's report of the same run (a run command may start
  /// several CUDA programs): kernels, drops and notes add up; the worse
  /// metrics status wins.
  void append(const CuptiReport &Other);
};

/// Parses the text of a report. Fails on malformed JSON, a version other
/// than CuptiReportVersion, or a field of the wrong type, with the path of
/// the field ("kernels[2].start_ns").
llvm::Expected<CuptiReport> parseCuptiReport(llvm::StringRef Text);

/// Reads and parses the report at \p Path.
llvm::Expected<CuptiReport> readCuptiReport(llvm::StringRef Path);

/// The kernel's qualified name without return type, template arguments and
/// parameters: "void ops::scale<float>(float*, int)" -> "ops::scale".
std::string cuptiKernelBaseName(llvm::StringRef Demangled);

/// Whether launch \p K is of the kernel a target calls \p Target: its
/// qualified name ("ops::scale"), its unqualified name ("scale", when the
/// kernel's last name component is exactly that), or its mangled name.
bool cuptiKernelMatches(const CuptiKernel &K, llvm::StringRef Target);

} // namespace maxcode

#endif // MAXCODE_EVAL_CUPTIREPORT_H
