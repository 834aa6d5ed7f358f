//===-- Injection.cpp - InitializeInjection and the exit handler ----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The CUDA driver loads the library named by CUDA_INJECTION64_PATH during
/// cuInit and calls InitializeInjection. That runs inside cuInit, so it only
/// talks to CUPTI: it subscribes to the callbacks it needs, enables the
/// pass, and registers the exit handler that synchronises the contexts,
/// flushes the records and writes the report.
///
//===----------------------------------------------------------------------===//

#include "CuptiInjection.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace maxcode::cupti;

Injection &maxcode::cupti::state() {
  // Never destroyed: the exit handler runs after static destructors that were
  // registered before it, and CUPTI's worker thread may still call back.
  static Injection *S = new Injection;
  return *S;
}

void Report::addNote(std::string Note) {
  std::fprintf(stderr, "maxcode-cupti: %s\n", Note.c_str());
  std::lock_guard<std::mutex> Lock(Mutex);
  Notes.push_back(std::move(Note));
}

std::string maxcode::cupti::resultName(CUptiResult R) {
  const char *Name = nullptr;
  if (cuptiGetResultString(R, &Name) != CUPTI_SUCCESS || !Name)
    return "CUPTI error " + std::to_string(static_cast<int>(R));
  return Name;
}

std::string maxcode::cupti::demangle(const std::string &Mangled) {
  int Status = 0;
  char *Demangled =
      abi::__cxa_demangle(Mangled.c_str(), nullptr, nullptr, &Status);
  if (Status != 0 || !Demangled)
    return Mangled;
  std::string Result(Demangled);
  std::free(Demangled);
  return Result;
}

std::vector<std::string> maxcode::cupti::defaultMetrics() {
  return {"gpu__time_duration.sum",
          "sm__throughput.avg.pct_of_peak_sustained_elapsed",
          "dram__throughput.avg.pct_of_peak_sustained_elapsed",
          "sm__warps_active.avg.pct_of_peak_sustained_active",
          "l1tex__t_sector_hit_rate.pct",
          "lts__t_sector_hit_rate.pct"};
}

static std::string trim(const std::string &S) {
  size_t B = S.find_first_not_of(" \t\n");
  if (B == std::string::npos)
    return "";
  size_t E = S.find_last_not_of(" \t\n");
  return S.substr(B, E - B + 1);
}

Config maxcode::cupti::readConfig(std::vector<std::string> &Notes) {
  Config C;
  const char *Output = std::getenv("MAXCODE_CUPTI_OUTPUT");
  std::string Path =
      Output && *Output ? Output : std::string("maxcode-cupti.%p.json");
  // "%p" becomes the process id, so that a run command starting several CUDA
  // processes gets one report each.
  std::string Pid = std::to_string(static_cast<long>(getpid()));
  for (size_t At = Path.find("%p"); At != std::string::npos;
       At = Path.find("%p", At + Pid.size()))
    Path.replace(At, 2, Pid);
  C.OutputPath = Path;

  if (const char *Pass = std::getenv("MAXCODE_CUPTI_PASS")) {
    std::string P = trim(Pass);
    if (P == "metrics")
      C.Pass = PassKind::Metrics;
    else if (!P.empty() && P != "timing")
      Notes.push_back("unknown MAXCODE_CUPTI_PASS '" + P +
                      "' (expected 'timing' or 'metrics'); timing");
  }

  if (const char *List = std::getenv("MAXCODE_CUPTI_METRICS")) {
    std::string Rest = List;
    while (!Rest.empty()) {
      size_t Comma = Rest.find(',');
      std::string Name = trim(Rest.substr(0, Comma));
      if (!Name.empty() && std::find(C.Metrics.begin(), C.Metrics.end(),
                                     Name) == C.Metrics.end())
        C.Metrics.push_back(Name);
      if (Comma == std::string::npos)
        break;
      Rest.erase(0, Comma + 1);
    }
  }
  if (C.Metrics.empty())
    C.Metrics = defaultMetrics();

  if (const char *Max = std::getenv("MAXCODE_CUPTI_MAX_RANGES")) {
    char *End = nullptr;
    unsigned long V = std::strtoul(Max, &End, 10);
    // CUPTI rejects counter data images much above a few thousand ranges.
    if (End && *End == '\0' && V >= 1 && V <= 2000)
      C.MaxRangesPerPass = V;
    else
      Notes.push_back("MAXCODE_CUPTI_MAX_RANGES='" + std::string(Max) +
                      "' is not a number from 1 to 2000; using " +
                      std::to_string(C.MaxRangesPerPass));
  }
  return C;
}

const DriverApi &maxcode::cupti::driver() {
  static const DriverApi *Api = [] {
    auto *A = new DriverApi;
    // The program loaded the driver (it is what loaded us), often with
    // RTLD_LOCAL, so ask for that very library rather than the global scope.
    // Without a driver RTLD_NOLOAD finds nothing and the entry points stay
    // null.
    void *Lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!Lib)
      return A;
    A->CtxPushCurrent = reinterpret_cast<CUresult (*)(CUcontext)>(
        dlsym(Lib, "cuCtxPushCurrent_v2"));
    A->CtxPopCurrent = reinterpret_cast<CUresult (*)(CUcontext *)>(
        dlsym(Lib, "cuCtxPopCurrent_v2"));
    A->CtxSynchronize =
        reinterpret_cast<CUresult (*)()>(dlsym(Lib, "cuCtxSynchronize"));
    return A;
  }();
  return *Api;
}

bool maxcode::cupti::synchronizeContext(CUcontext Ctx) {
  const DriverApi &D = driver();
  if (!D.available() || D.CtxPushCurrent(Ctx) != CUDA_SUCCESS)
    return false;
  bool Ok = D.CtxSynchronize() == CUDA_SUCCESS;
  CUcontext Popped = nullptr;
  D.CtxPopCurrent(&Popped);
  return Ok;
}

static void forgetContext(CUcontext Ctx) {
  Injection &S = state();
  std::lock_guard<std::mutex> Lock(S.ContextsMutex);
  S.LiveContexts.erase(
      std::remove(S.LiveContexts.begin(), S.LiveContexts.end(), Ctx),
      S.LiveContexts.end());
}

static void CUPTIAPI onCallback(void *, CUpti_CallbackDomain Domain,
                                CUpti_CallbackId Id, const void *Data) {
  Injection &S = state();
  if (Domain == CUPTI_CB_DOMAIN_RESOURCE) {
    const auto *Resource = static_cast<const CUpti_ResourceData *>(Data);
    if (Id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
      std::lock_guard<std::mutex> Lock(S.ContextsMutex);
      S.LiveContexts.push_back(Resource->context);
    } else if (Id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
      if (S.Cfg.Pass == PassKind::Metrics)
        onContextDestroy(Resource->context);
      // The context's records must be complete before it goes, or its last
      // kernels come back without timestamps.
      if (S.ActivityEnabled) {
        synchronizeContext(Resource->context);
        cuptiActivityFlushAll(0);
      }
      forgetContext(Resource->context);
    }
    return;
  }
  if (Domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    const auto *Api = static_cast<const CUpti_CallbackData *>(Data);
    if (Api->callbackSite == CUPTI_API_ENTER)
      onKernelLaunch(*Api);
  }
}

static void atExit() {
  Injection &S = state();
  // Ranges still open are decoded while their contexts exist.
  if (S.Cfg.Pass == PassKind::Metrics)
    finishMetrics();
  if (S.ActivityEnabled) {
    std::vector<CUcontext> Contexts;
    {
      std::lock_guard<std::mutex> Lock(S.ContextsMutex);
      Contexts = S.LiveContexts;
    }
    for (CUcontext Ctx : Contexts)
      if (!synchronizeContext(Ctx))
        S.Out.addNote("could not synchronise a context at exit; its last "
                      "kernels may lack timestamps");
    flushKernelActivity();
  }
  if (!writeReport(S.Cfg, S.Out))
    std::fprintf(stderr, "maxcode-cupti: cannot write '%s': %s\n",
                 S.Cfg.OutputPath.c_str(), std::strerror(errno));
}

/// Every launch entry point a kernel can come through; the runtime's
/// launches arrive here too, as the driver calls it makes.
static const CUpti_CallbackId LaunchCallbacks[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
};

static bool enableLaunchCallbacks(Injection &S) {
  for (CUpti_CallbackId Id : LaunchCallbacks) {
    CUptiResult R =
        cuptiEnableCallback(1, S.Subscriber, CUPTI_CB_DOMAIN_DRIVER_API, Id);
    if (R != CUPTI_SUCCESS) {
      S.Out.addNote("cannot enable the kernel launch callback: " +
                    resultName(R));
      return false;
    }
  }
  return true;
}

extern "C" __attribute__((visibility("default"))) int
InitializeInjection(void) {
  // The driver may call this more than once (one per cuInit).
  static std::atomic<bool> Initialized(false);
  if (Initialized.exchange(true))
    return 1;

  Injection &S = state();
  std::vector<std::string> ConfigNotes;
  S.Cfg = readConfig(ConfigNotes);
  S.Out.Pass = S.Cfg.Pass;
  for (std::string &Note : ConfigNotes)
    S.Out.addNote(std::move(Note));
  std::atexit(atExit);

  CUpti_SubscriberParams Params{};
  Params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  Params.subscriberName = "maxcode-cupti";
  char Holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {0};
  Params.oldSubscriberName = Holder;
  Params.oldSubscriberSize = sizeof(Holder) - 1;
  CUptiResult R =
      cuptiSubscribe_v2(&S.Subscriber, onCallback, nullptr, &Params);
  if (R != CUPTI_SUCCESS) {
    std::string Why = "cannot subscribe to CUPTI callbacks: " + resultName(R);
    if (R == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED && Holder[0])
      Why += std::string(" (held by ") + Holder + ")";
    S.Out.addNote(Why);
    S.Subscriber = nullptr;
  } else {
    R = cuptiEnableDomain(1, S.Subscriber, CUPTI_CB_DOMAIN_RESOURCE);
    if (R != CUPTI_SUCCESS)
      S.Out.addNote("cannot enable resource callbacks: " + resultName(R));
  }

  if (S.Cfg.Pass == PassKind::Timing) {
    enableKernelActivity();
    return 1;
  }
  if (!S.Subscriber || !enableLaunchCallbacks(S)) {
    {
      std::lock_guard<std::mutex> Lock(S.Out.Mutex);
      S.Out.MetricsStatus = "failed";
    }
    S.Out.addNote(
        "metrics unavailable: no launch callbacks; kernel times only");
    enableKernelActivity();
  }
  return 1;
}
