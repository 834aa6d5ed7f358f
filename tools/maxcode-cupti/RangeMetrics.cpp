//===-- RangeMetrics.cpp - Per-kernel metrics from the Range Profiler -----===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The metrics pass, with the CUDA 12.6+ Profiler Host API (config image,
/// evaluation) and Range Profiler API (collection); the older Profiling API
/// is deprecated in CUDA 13 and the Event/Metric APIs are gone.
///
/// Auto range + kernel replay: every kernel launch is one range, and CUPTI
/// replays each kernel once per pass the metrics need, restoring the memory
/// it writes in between. Ranges are only numbered, so the launch callback
/// records each kernel's name in launch order; after decoding, range i is
/// the i-th launch of the pass.
///
/// A context is set up at its first launch (it is then current and fully
/// created). When a pass has MaxRangesPerPass launches, it is decoded and the
/// profiler restarted. Any failure, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
/// first among them, stops profiling on that context and turns on the
/// timing pass's activity records instead, so the report still has times.
///
//===----------------------------------------------------------------------===//

#include "CuptiInjection.h"

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <algorithm>
#include <memory>

using namespace maxcode::cupti;

namespace {

struct PendingLaunch {
  std::string Mangled;
  uint32_t CorrelationId = 0;
};

/// The range profiler of one context.
struct ContextProfiler {
  CUcontext Ctx = nullptr;
  uint32_t DeviceId = 0;
  uint32_t ContextId = 0;
  /// Set once anything failed: the context is no longer profiled.
  bool Failed = false;
  /// Between cuptiRangeProfilerStart and Stop.
  bool Running = false;
  CUpti_Profiler_Host_Object *Host = nullptr;
  CUpti_RangeProfiler_Object *Profiler = nullptr;
  std::vector<uint8_t> Availability;
  std::vector<uint8_t> ConfigImage;
  std::vector<uint8_t> CounterData;
  /// The launches of the current pass, in order.
  std::vector<PendingLaunch> Launches;
};

/// Serialises the profiler: the range profiler itself serialises kernels
/// (auto range synchronises after every launch), so nothing is lost.
struct MetricsState {
  std::mutex Mutex;
  bool ProfilerInitialized = false;
  /// Decided at the first context: the requested metrics the chip knows.
  bool MetricsChosen = false;
  std::vector<std::string> Metrics;
  std::vector<const char *> MetricPtrs;
  bool FellBack = false;
  std::vector<std::unique_ptr<ContextProfiler>> Contexts;
};

MetricsState &metricsState() {
  static MetricsState *S = new MetricsState; // see state()
  return *S;
}

} // namespace

static bool isPrivilegeError(CUptiResult R) {
  return R == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
         R == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES;
}

/// Records why profiling stopped on \p P and switches the run to kernel
/// times from activity records.
static void fail(MetricsState &M, ContextProfiler &P, const char *Call,
                 CUptiResult R) {
  P.Failed = true;
  Report &Out = state().Out;
  std::string Note = std::string("metrics unavailable on context ") +
                     std::to_string(P.ContextId) + ": " + Call + " returned " +
                     resultName(R);
  if (isPrivilegeError(R))
    Note += " (GPU performance counters are restricted to administrators: "
            "run as root or with CAP_SYS_ADMIN, or load the nvidia module "
            "with NVreg_RestrictProfilingToAdminUsers=0)";
  {
    std::lock_guard<std::mutex> Lock(Out.Mutex);
    if (Out.MetricsStatus.empty() || Out.MetricsStatus == "collected")
      Out.MetricsStatus =
          isPrivilegeError(R) ? "insufficient-privileges" : "failed";
  }
  Out.addNote(Note);
  if (!M.FellBack) {
    M.FellBack = true;
    if (enableKernelActivity())
      Out.addNote("kernel times come from activity records; kernels launched "
                  "before the failure have neither times nor metrics");
  }
}

/// Calls a CUPTI function on its parameter struct; on failure, fails the
/// context P (of MetricsState M, both in scope) and returns false.
#define CALL_OR_FAIL(Call, Params)                                             \
  do {                                                                         \
    CUptiResult R_ = Call(&Params);                                            \
    if (R_ != CUPTI_SUCCESS) {                                                 \
      fail(M, P, #Call, R_);                                                   \
      return false;                                                            \
    }                                                                          \
  } while (false)

/// Checks each requested metric on its own against a scratch host object:
/// one unknown name must not cost the others.
static bool chooseMetrics(MetricsState &M, ContextProfiler &P,
                          const std::string &Chip) {
  Report &Out = state().Out;
  for (const std::string &Name : state().Cfg.Metrics) {
    CUpti_Profiler_Host_Initialize_Params Init{};
    Init.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
    Init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    Init.pChipName = Chip.c_str();
    Init.pCounterAvailabilityImage = P.Availability.data();
    CALL_OR_FAIL(cuptiProfilerHostInitialize, Init);
    const char *One[] = {Name.c_str()};
    CUpti_Profiler_Host_ConfigAddMetrics_Params Add{};
    Add.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    Add.pHostObject = Init.pHostObject;
    Add.ppMetricNames = One;
    Add.numMetrics = 1;
    CUptiResult R = cuptiProfilerHostConfigAddMetrics(&Add);
    if (R == CUPTI_SUCCESS)
      M.Metrics.push_back(Name);
    else
      Out.addNote("metric '" + Name + "' is not available on " + Chip + ": " +
                  resultName(R));
    CUpti_Profiler_Host_Deinitialize_Params Deinit{};
    Deinit.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
    Deinit.pHostObject = Init.pHostObject;
    cuptiProfilerHostDeinitialize(&Deinit);
  }
  if (M.Metrics.empty()) {
    fail(M, P, "cuptiProfilerHostConfigAddMetrics (no requested metric known)",
         CUPTI_ERROR_INVALID_METRIC_NAME);
    return false;
  }
  for (const std::string &Name : M.Metrics)
    M.MetricPtrs.push_back(Name.c_str());
  M.MetricsChosen = true;
  std::lock_guard<std::mutex> Lock(Out.Mutex);
  Out.MetricNames = M.Metrics;
  return true;
}

/// Clears the counter data image, configures and starts a pass.
static bool startPass(MetricsState &M, ContextProfiler &P) {
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params Image{};
  Image.structSize =
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
  Image.pRangeProfilerObject = P.Profiler;
  Image.counterDataSize = P.CounterData.size();
  Image.pCounterData = P.CounterData.data();
  CALL_OR_FAIL(cuptiRangeProfilerCounterDataImageInitialize, Image);

  CUpti_RangeProfiler_SetConfig_Params Config{};
  Config.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
  Config.pRangeProfilerObject = P.Profiler;
  Config.configSize = P.ConfigImage.size();
  Config.pConfig = P.ConfigImage.data();
  Config.counterDataImageSize = P.CounterData.size();
  Config.pCounterDataImage = P.CounterData.data();
  Config.range = CUPTI_AutoRange;
  Config.replayMode = CUPTI_KernelReplay;
  Config.maxRangesPerPass = state().Cfg.MaxRangesPerPass;
  Config.numNestingLevels = 1; // must be 1 with auto range
  Config.minNestingLevel = 1;
  Config.passIndex = 0;
  Config.targetNestingLevel = 1;
  CALL_OR_FAIL(cuptiRangeProfilerSetConfig, Config);

  CUpti_RangeProfiler_Start_Params Start{};
  Start.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
  Start.pRangeProfilerObject = P.Profiler;
  CALL_OR_FAIL(cuptiRangeProfilerStart, Start);
  P.Running = true;
  return true;
}

/// Everything from cuptiProfilerInitialize to the first Start.
static bool setUp(MetricsState &M, ContextProfiler &P) {
  if (!M.ProfilerInitialized) {
    CUpti_Profiler_Initialize_Params Init{};
    Init.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
    CALL_OR_FAIL(cuptiProfilerInitialize, Init);
    M.ProfilerInitialized = true;
  }

  CUpti_Device_GetChipName_Params ChipParams{};
  ChipParams.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
  ChipParams.deviceIndex = P.DeviceId;
  CALL_OR_FAIL(cuptiDeviceGetChipName, ChipParams);
  std::string Chip = ChipParams.pChipName ? ChipParams.pChipName : "";

  // Which counters this context may read; the first call sizes the image.
  // Counter access denied to non-administrators shows up here.
  CUpti_Profiler_GetCounterAvailability_Params Avail{};
  Avail.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
  Avail.ctx = P.Ctx;
  CALL_OR_FAIL(cuptiProfilerGetCounterAvailability, Avail);
  P.Availability.resize(Avail.counterAvailabilityImageSize);
  Avail.pCounterAvailabilityImage = P.Availability.data();
  CALL_OR_FAIL(cuptiProfilerGetCounterAvailability, Avail);

  if (!M.MetricsChosen && !chooseMetrics(M, P, Chip))
    return false;

  CUpti_Profiler_Host_Initialize_Params HostInit{};
  HostInit.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
  HostInit.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  HostInit.pChipName = Chip.c_str();
  HostInit.pCounterAvailabilityImage = P.Availability.data();
  CALL_OR_FAIL(cuptiProfilerHostInitialize, HostInit);
  P.Host = HostInit.pHostObject;

  CUpti_Profiler_Host_ConfigAddMetrics_Params Add{};
  Add.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
  Add.pHostObject = P.Host;
  Add.ppMetricNames = M.MetricPtrs.data();
  Add.numMetrics = M.MetricPtrs.size();
  CALL_OR_FAIL(cuptiProfilerHostConfigAddMetrics, Add);

  CUpti_Profiler_Host_GetConfigImageSize_Params Size{};
  Size.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
  Size.pHostObject = P.Host;
  CALL_OR_FAIL(cuptiProfilerHostGetConfigImageSize, Size);
  P.ConfigImage.resize(Size.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params Image{};
  Image.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
  Image.pHostObject = P.Host;
  Image.configImageSize = P.ConfigImage.size();
  Image.pConfigImage = P.ConfigImage.data();
  CALL_OR_FAIL(cuptiProfilerHostGetConfigImage, Image);

  // Each pass replays every kernel once more; report the cost.
  CUpti_Profiler_Host_GetNumOfPasses_Params Passes{};
  Passes.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
  Passes.configImageSize = P.ConfigImage.size();
  Passes.pConfigImage = P.ConfigImage.data();
  CALL_OR_FAIL(cuptiProfilerHostGetNumOfPasses, Passes);
  {
    Report &Out = state().Out;
    std::lock_guard<std::mutex> Lock(Out.Mutex);
    Out.MetricPasses = std::max(Out.MetricPasses, Passes.numOfPasses);
  }

  CUpti_RangeProfiler_Enable_Params Enable{};
  Enable.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
  Enable.ctx = P.Ctx;
  CALL_OR_FAIL(cuptiRangeProfilerEnable, Enable);
  P.Profiler = Enable.pRangeProfilerObject;

  size_t MaxRanges = state().Cfg.MaxRangesPerPass;
  CUpti_RangeProfiler_GetCounterDataSize_Params DataSize{};
  DataSize.structSize =
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
  DataSize.pRangeProfilerObject = P.Profiler;
  DataSize.pMetricNames = M.MetricPtrs.data();
  DataSize.numMetrics = M.MetricPtrs.size();
  DataSize.maxNumOfRanges = MaxRanges;
  DataSize.maxNumRangeTreeNodes = static_cast<uint32_t>(MaxRanges);
  CALL_OR_FAIL(cuptiRangeProfilerGetCounterDataSize, DataSize);
  P.CounterData.resize(DataSize.counterDataSize);
  return startPass(M, P);
}

/// Stops the pass, decodes it and turns its ranges into kernel records.
static bool endPass(MetricsState &M, ContextProfiler &P) {
  if (!P.Running)
    return true;
  P.Running = false;
  // On failure the launches stay in P.Launches, and tearDown reports them
  // without metrics.
  const std::vector<PendingLaunch> &Launches = P.Launches;

  CUpti_RangeProfiler_Stop_Params Stop{};
  Stop.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
  Stop.pRangeProfilerObject = P.Profiler;
  CALL_OR_FAIL(cuptiRangeProfilerStop, Stop);
  // A pass without a launch has nothing to decode.
  if (Launches.empty())
    return true;

  CUpti_RangeProfiler_DecodeData_Params Decode{};
  Decode.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
  Decode.pRangeProfilerObject = P.Profiler;
  CALL_OR_FAIL(cuptiRangeProfilerDecodeData, Decode);
  Report &Out = state().Out;
  if (Decode.numOfRangeDropped)
    Out.addNote(std::to_string(Decode.numOfRangeDropped) +
                " profiled ranges were dropped on context " +
                std::to_string(P.ContextId));

  CUpti_RangeProfiler_GetCounterDataInfo_Params Info{};
  Info.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
  Info.pCounterDataImage = P.CounterData.data();
  Info.counterDataImageSize = P.CounterData.size();
  CALL_OR_FAIL(cuptiRangeProfilerGetCounterDataInfo, Info);
  if (Info.numTotalRanges != Launches.size())
    Out.addNote("context " + std::to_string(P.ContextId) + ": " +
                std::to_string(Info.numTotalRanges) + " profiled ranges for " +
                std::to_string(Launches.size()) +
                " launches; names are matched in launch order");

  std::vector<KernelRecord> Records;
  for (const PendingLaunch &L : Launches) {
    KernelRecord K;
    K.Mangled = L.Mangled;
    K.CorrelationId = L.CorrelationId;
    K.DeviceId = P.DeviceId;
    K.ContextId = P.ContextId;
    Records.push_back(std::move(K));
  }
  for (size_t I = 0; I < Info.numTotalRanges && I < Records.size(); ++I) {
    std::vector<double> Values(M.MetricPtrs.size(), 0.0);
    CUpti_Profiler_Host_EvaluateToGpuValues_Params Eval{};
    Eval.structSize =
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
    Eval.pHostObject = P.Host;
    Eval.pCounterDataImage = P.CounterData.data();
    Eval.counterDataImageSize = P.CounterData.size();
    Eval.rangeIndex = I;
    Eval.ppMetricNames = M.MetricPtrs.data();
    Eval.numMetrics = M.MetricPtrs.size();
    Eval.pMetricValues = Values.data();
    CALL_OR_FAIL(cuptiProfilerHostEvaluateToGpuValues, Eval);
    Records[I].MetricValues = std::move(Values);
  }

  P.Launches.clear();
  std::lock_guard<std::mutex> Lock(Out.Mutex);
  if (Out.MetricsStatus.empty())
    Out.MetricsStatus = "collected";
  for (KernelRecord &K : Records)
    Out.Kernels.push_back(std::move(K));
  return true;
}

/// Ends the last pass and releases the context's profiler objects.
static void tearDown(MetricsState &M, ContextProfiler &P) {
  if (!P.Failed)
    endPass(M, P);
  if (P.Profiler) {
    CUpti_RangeProfiler_Disable_Params Disable{};
    Disable.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
    Disable.pRangeProfilerObject = P.Profiler;
    cuptiRangeProfilerDisable(&Disable);
    P.Profiler = nullptr;
  }
  if (P.Host) {
    CUpti_Profiler_Host_Deinitialize_Params Deinit{};
    Deinit.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
    Deinit.pHostObject = P.Host;
    cuptiProfilerHostDeinitialize(&Deinit);
    P.Host = nullptr;
  }
  // Launches a failed pass never decoded still count as kernels.
  Report &Out = state().Out;
  std::lock_guard<std::mutex> Lock(Out.Mutex);
  for (const PendingLaunch &L : P.Launches) {
    KernelRecord K;
    K.Mangled = L.Mangled;
    K.CorrelationId = L.CorrelationId;
    K.DeviceId = P.DeviceId;
    K.ContextId = P.ContextId;
    Out.Kernels.push_back(std::move(K));
  }
  P.Launches.clear();
}

void maxcode::cupti::onKernelLaunch(const CUpti_CallbackData &Data) {
  MetricsState &M = metricsState();
  std::lock_guard<std::mutex> Lock(M.Mutex);
  ContextProfiler *P = nullptr;
  for (auto &C : M.Contexts)
    if (C->Ctx == Data.context)
      P = C.get();
  if (!P) {
    M.Contexts.push_back(std::make_unique<ContextProfiler>());
    P = M.Contexts.back().get();
    P->Ctx = Data.context;
    P->ContextId = Data.contextUid;
    if (cuptiGetDeviceId(Data.context, &P->DeviceId) != CUPTI_SUCCESS)
      P->DeviceId = 0;
    if (!setUp(M, *P))
      return;
  }
  if (P->Failed)
    return;
  if (P->Launches.size() >= state().Cfg.MaxRangesPerPass &&
      (!endPass(M, *P) || !startPass(M, *P)))
    return;
  P->Launches.push_back(
      {Data.symbolName ? Data.symbolName : "", Data.correlationId});
}

void maxcode::cupti::onContextDestroy(CUcontext Ctx) {
  MetricsState &M = metricsState();
  std::lock_guard<std::mutex> Lock(M.Mutex);
  auto It = std::find_if(M.Contexts.begin(), M.Contexts.end(),
                         [&](const auto &C) { return C->Ctx == Ctx; });
  if (It == M.Contexts.end())
    return;
  tearDown(M, **It);
  M.Contexts.erase(It);
}

void maxcode::cupti::finishMetrics() {
  MetricsState &M = metricsState();
  std::lock_guard<std::mutex> Lock(M.Mutex);
  const DriverApi &D = driver();
  for (auto &C : M.Contexts) {
    // Stop and decode act on the current context's work.
    bool Pushed = D.available() && D.CtxPushCurrent(C->Ctx) == CUDA_SUCCESS;
    tearDown(M, *C);
    if (Pushed) {
      CUcontext Popped = nullptr;
      D.CtxPopCurrent(&Popped);
    }
  }
  M.Contexts.clear();
  if (M.ProfilerInitialized) {
    CUpti_Profiler_DeInitialize_Params Deinit{};
    Deinit.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE;
    cuptiProfilerDeInitialize(&Deinit);
    M.ProfilerInitialized = false;
  }
}

#undef CALL_OR_FAIL
