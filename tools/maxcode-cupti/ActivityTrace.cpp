//===-- ActivityTrace.cpp - Kernel times from the CUPTI Activity API ------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The timing pass. CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL gives one record
/// per kernel with GPU start and end timestamps without serialising kernels
/// (CUPTI_ACTIVITY_KIND_KERNEL would). Records arrive in buffers we hand to
/// CUPTI; completed buffers come back on CUPTI's worker thread, or in the
/// calling thread during a flush.
///
//===----------------------------------------------------------------------===//

#include "CuptiInjection.h"

#include <cstdlib>

using namespace maxcode::cupti;

/// CUPTI's documentation suggests 1 to 10 MB; a kernel record is a few
/// hundred bytes, so one buffer holds tens of thousands of launches.
static constexpr size_t BufferBytes = 8u << 20;
/// Records must be 8-byte aligned.
static constexpr size_t BufferAlignment = 8;

static void CUPTIAPI onBufferRequested(uint8_t **Buffer, size_t *Size,
                                       size_t *MaxRecords) {
  *Buffer =
      static_cast<uint8_t *>(std::aligned_alloc(BufferAlignment, BufferBytes));
  // A null buffer tells CUPTI to drop records, which it then counts.
  *Size = *Buffer ? BufferBytes : 0;
  *MaxRecords = 0;
}

static KernelRecord fromActivity(const CUpti_ActivityKernel10 &K) {
  KernelRecord R;
  // The name is shared by every record of the kernel and owned by CUPTI.
  R.Mangled = K.name ? K.name : "";
  R.CorrelationId = K.correlationId;
  R.DeviceId = K.deviceId;
  R.ContextId = K.contextId;
  R.HasLaunch = true;
  R.StreamId = K.streamId;
  R.Grid[0] = K.gridX;
  R.Grid[1] = K.gridY;
  R.Grid[2] = K.gridZ;
  R.Block[0] = K.blockX;
  R.Block[1] = K.blockY;
  R.Block[2] = K.blockZ;
  R.RegistersPerThread = K.registersPerThread;
  R.StaticSharedMemory = K.staticSharedMemory;
  R.DynamicSharedMemory = K.dynamicSharedMemory;
  // Both zero: CUPTI had no device memory to record the timestamps.
  R.HasTime = K.start != 0 || K.end != 0;
  R.StartNs = K.start;
  R.EndNs = K.end;
  return R;
}

static void CUPTIAPI onBufferCompleted(CUcontext Ctx, uint32_t StreamId,
                                       uint8_t *Buffer, size_t,
                                       size_t ValidSize) {
  if (!Buffer)
    return;
  std::vector<KernelRecord> Records;
  std::string Problem;
  CUpti_Activity *Record = nullptr;
  for (;;) {
    CUptiResult R = cuptiActivityGetNextRecord(Buffer, ValidSize, &Record);
    if (R == CUPTI_ERROR_MAX_LIMIT_REACHED)
      break;
    if (R != CUPTI_SUCCESS) {
      Problem = "reading an activity buffer stopped early: " + resultName(R);
      break;
    }
    if (Record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
        Record->kind == CUPTI_ACTIVITY_KIND_KERNEL)
      Records.push_back(fromActivity(
          *reinterpret_cast<const CUpti_ActivityKernel10 *>(Record)));
  }
  size_t Dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(Ctx, StreamId, &Dropped) !=
      CUPTI_SUCCESS)
    Dropped = 0;
  std::free(Buffer);

  if (!Problem.empty())
    state().Out.addNote(Problem);
  Report &Out = state().Out;
  std::lock_guard<std::mutex> Lock(Out.Mutex);
  Out.DroppedRecords += Dropped;
  for (KernelRecord &K : Records) {
    if (!K.HasTime)
      ++Out.RecordsWithoutTime;
    Out.Kernels.push_back(std::move(K));
  }
}

bool maxcode::cupti::enableKernelActivity() {
  Injection &S = state();
  if (S.ActivityEnabled)
    return true;
  CUptiResult R =
      cuptiActivityRegisterCallbacks(onBufferRequested, onBufferCompleted);
  if (R == CUPTI_SUCCESS)
    R = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (R != CUPTI_SUCCESS) {
    S.Out.addNote("kernel timing unavailable: enabling concurrent-kernel "
                  "activity records failed: " +
                  resultName(R));
    return false;
  }
  S.ActivityEnabled = true;
  return true;
}

void maxcode::cupti::flushKernelActivity() {
  Injection &S = state();
  // Forced: also hand back buffers holding records still incomplete, which
  // then show up as records without timestamps instead of vanishing.
  CUptiResult R = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (R != CUPTI_SUCCESS)
    S.Out.addNote("flushing activity records failed: " + resultName(R));
  size_t Dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &Dropped) ==
          CUPTI_SUCCESS &&
      Dropped) {
    std::lock_guard<std::mutex> Lock(S.Out.Mutex);
    S.Out.DroppedRecords += Dropped;
  }
}
