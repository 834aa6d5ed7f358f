//===-- CuptiInjection.h - The injection library ----------------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The pieces of libmaxcode-cupti.so: the run's configuration (read from the
/// environment), the report it writes at exit, and the two passes, kernel
/// timing through the Activity API and per-kernel metrics through the Range
/// Profiler. The format of the report is documented in docs/CUDA.md and read
/// back by lib/Eval/CuptiReport.cpp.
///
/// The library is loaded into programs we do not control, so it links
/// neither LLVM nor the CUDA runtime: only libcupti, and the driver the
/// program has already loaded.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_TOOLS_MAXCODE_CUPTI_CUPTIINJECTION_H
#define MAXCODE_TOOLS_MAXCODE_CUPTI_CUPTIINJECTION_H

#include <cuda.h>
#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace maxcode {
namespace cupti {

/// Version of the JSON file; bump it when a field changes meaning.
constexpr unsigned ReportVersion = 1;

enum class PassKind { Timing, Metrics };

/// What the environment asked for (docs/CUDA.md lists the variables).
struct Config {
  std::string OutputPath;
  PassKind Pass = PassKind::Timing;
  std::vector<std::string> Metrics;
  /// Kernels profiled per range-profiler pass before the counter data is
  /// decoded and the profiler restarted.
  size_t MaxRangesPerPass = 64;
};

/// Reads MAXCODE_CUPTI_OUTPUT, MAXCODE_CUPTI_PASS, MAXCODE_CUPTI_METRICS and
/// MAXCODE_CUPTI_MAX_RANGES. Problems become notes in the report.
Config readConfig(std::vector<std::string> &Notes);

/// The metrics collected when MAXCODE_CUPTI_METRICS is not set.
std::vector<std::string> defaultMetrics();

/// One kernel launch. The timing pass fills the launch configuration and the
/// times from the activity record; the metrics pass fills the name from the
/// launch callback and the values from the range profiler.
struct KernelRecord {
  std::string Mangled;
  uint32_t CorrelationId = 0;
  uint32_t DeviceId = 0;
  uint32_t ContextId = 0;

  bool HasLaunch = false;
  uint32_t StreamId = 0;
  int32_t Grid[3] = {0, 0, 0};
  int32_t Block[3] = {0, 0, 0};
  unsigned RegistersPerThread = 0;
  int64_t StaticSharedMemory = 0;
  int64_t DynamicSharedMemory = 0;

  bool HasTime = false;
  uint64_t StartNs = 0;
  uint64_t EndNs = 0;

  /// Parallel to Report::MetricNames when non-empty.
  std::vector<double> MetricValues;
};

/// Everything the run will write. Guarded by Mutex: CUPTI calls back from
/// the application's threads and from its own worker thread.
struct Report {
  std::mutex Mutex;
  PassKind Pass = PassKind::Timing;
  std::vector<KernelRecord> Kernels;
  std::vector<std::string> Notes;
  uint64_t DroppedRecords = 0;
  /// Kernel records that came back without timestamps (CUPTI could not
  /// allocate device memory for them).
  uint64_t RecordsWithoutTime = 0;
  /// Metrics pass: the metrics the profiler accepted, the number of replay
  /// passes they need, and one of "collected", "insufficient-privileges" or
  /// "failed".
  std::vector<std::string> MetricNames;
  size_t MetricPasses = 0;
  std::string MetricsStatus;

  void addNote(std::string Note);
};

/// The process-wide state, created by InitializeInjection and deliberately
/// never destroyed: the exit handler runs after static destructors may have.
struct Injection {
  Config Cfg;
  Report Out;
  CUpti_SubscriberHandle Subscriber = nullptr;
  std::atomic<bool> ActivityEnabled{false};
  /// Contexts alive now, synchronised at exit so every kernel has finished
  /// before the activity buffers are flushed.
  std::mutex ContextsMutex;
  std::vector<CUcontext> LiveContexts;
};

Injection &state();

/// "CUPTI_ERROR_..." for a result code.
std::string resultName(CUptiResult R);

/// The Itanium demangling of \p Mangled, or \p Mangled itself when it is not
/// a mangled name (extern "C" kernels).
std::string demangle(const std::string &Mangled);

/// Timing pass: registers the buffer callbacks and enables concurrent-kernel
/// records. Returns false (and notes why) when CUPTI refuses.
bool enableKernelActivity();
/// Delivers every buffered record (a forced flush) and adds the dropped
/// count of the global queue.
void flushKernelActivity();

/// Metrics pass entry points, called from the CUPTI callback.
void onKernelLaunch(const CUpti_CallbackData &Data);
void onContextDestroy(CUcontext Ctx);
/// Decodes and evaluates what every context still holds; run at exit.
void finishMetrics();

/// Driver entry points the library needs at exit, looked up in the driver
/// the program already loaded (absent when there is none).
struct DriverApi {
  CUresult (*CtxPushCurrent)(CUcontext) = nullptr;
  CUresult (*CtxPopCurrent)(CUcontext *) = nullptr;
  CUresult (*CtxSynchronize)() = nullptr;
  bool available() const {
    return CtxPushCurrent && CtxPopCurrent && CtxSynchronize;
  }
};
const DriverApi &driver();

/// Waits for the work queued on \p Ctx; false if the driver refused.
bool synchronizeContext(CUcontext Ctx);

/// Writes the report as JSON to Cfg.OutputPath (through a temporary file and
/// a rename, so a reader never sees half a file). Returns false on failure.
bool writeReport(const Config &Cfg, Report &R);

} // namespace cupti
} // namespace maxcode

#endif // MAXCODE_TOOLS_MAXCODE_CUPTI_CUPTIINJECTION_H
