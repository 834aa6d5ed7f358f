//===-- CritiqueTags.cpp - What a critique can say ------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Policy/CritiqueTags.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"

using namespace maxcode;

llvm::StringRef maxcode::critiqueTagName(CritiqueTag T) {
  switch (T) {
  case CritiqueTag::Rejected:
    return "rejected";
  case CritiqueTag::BuildError:
    return "build-error";
  case CritiqueTag::Crash:
    return "crash";
  case CritiqueTag::Timeout:
    return "timeout";
  case CritiqueTag::WrongOutput:
    return "wrong-output";
  case CritiqueTag::Faster:
    return "faster";
  case CritiqueTag::Slower:
    return "slower";
  case CritiqueTag::WithinNoise:
    return "within-noise";
  case CritiqueTag::HotLoop:
    return "hot-loop";
  case CritiqueTag::IOBound:
    return "io-bound";
  case CritiqueTag::StartupBound:
    return "startup-bound";
  case CritiqueTag::MemoryBound:
    return "memory-bound";
  case CritiqueTag::ComputeBound:
    return "compute-bound";
  case CritiqueTag::LatencyBound:
    return "latency-bound";
  case CritiqueTag::LowOccupancy:
    return "low-occupancy";
  case CritiqueTag::RegisterLimited:
    return "occupancy-registers";
  case CritiqueTag::SharedMemoryLimited:
    return "occupancy-shared-memory";
  case CritiqueTag::BlockSizeLimited:
    return "occupancy-block-size";
  case CritiqueTag::PoorL1HitRate:
    return "poor-l1-hit-rate";
  case CritiqueTag::PoorL2HitRate:
    return "poor-l2-hit-rate";
  case CritiqueTag::Unsafe:
    return "unsafe";
  case CritiqueTag::NotVectorised:
    return "not-vectorised";
  case CritiqueTag::CacheMissBound:
    return "cache-miss-bound";
  case CritiqueTag::MispredictBound:
    return "mispredict-bound";
  case CritiqueTag::CallBound:
    return "call-bound";
  case CritiqueTag::PerElementIO:
    return "per-element-io";
  }
  llvm_unreachable("unknown critique tag");
}

llvm::ArrayRef<CritiqueTag> maxcode::allCritiqueTags() {
  static const CritiqueTag All[] = {CritiqueTag::Rejected,
                                    CritiqueTag::BuildError,
                                    CritiqueTag::Crash,
                                    CritiqueTag::Timeout,
                                    CritiqueTag::WrongOutput,
                                    CritiqueTag::Faster,
                                    CritiqueTag::Slower,
                                    CritiqueTag::WithinNoise,
                                    CritiqueTag::HotLoop,
                                    CritiqueTag::IOBound,
                                    CritiqueTag::StartupBound,
                                    CritiqueTag::MemoryBound,
                                    CritiqueTag::ComputeBound,
                                    CritiqueTag::LatencyBound,
                                    CritiqueTag::LowOccupancy,
                                    CritiqueTag::RegisterLimited,
                                    CritiqueTag::SharedMemoryLimited,
                                    CritiqueTag::BlockSizeLimited,
                                    CritiqueTag::PoorL1HitRate,
                                    CritiqueTag::PoorL2HitRate,
                                    CritiqueTag::Unsafe,
                                    CritiqueTag::NotVectorised,
                                    CritiqueTag::CacheMissBound,
                                    CritiqueTag::MispredictBound,
                                    CritiqueTag::CallBound,
                                    CritiqueTag::PerElementIO};
  return All;
}

std::optional<CritiqueTag> maxcode::parseCritiqueTag(llvm::StringRef Name) {
  for (CritiqueTag T : allCritiqueTags())
    if (critiqueTagName(T) == Name)
      return T;
  return std::nullopt;
}

bool Critique::has(CritiqueTag T) const { return llvm::is_contained(Tags, T); }
