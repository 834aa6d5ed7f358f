//===-- Measure.cpp - What each measure is --------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/Measure.h"
#include "llvm/Support/ErrorHandling.h"

using namespace maxcode;

// Instruction counts repeat exactly, so a thousandth is their resolution;
// wall and kernel time resolve a hundredth between alternated pairs.
static const MeasureTraits Table[] = {
    {MeasureMode::Time, "seconds", /*Deterministic=*/false,
     /*Resolution=*/0.01, MeasureMode::Instructions, /*LinesFromBuild=*/false,
     /*FloorRuns=*/3, /*HintsNeedTime=*/false},
    {MeasureMode::Instructions, "instructions", /*Deterministic=*/true,
     /*Resolution=*/0.002, MeasureMode::Time, /*LinesFromBuild=*/true,
     /*FloorRuns=*/1, /*HintsNeedTime=*/true},
    {MeasureMode::CudaKernel, "gpu-ns", /*Deterministic=*/false,
     /*Resolution=*/0.01, std::nullopt, /*LinesFromBuild=*/false,
     /*FloorRuns=*/1, /*HintsNeedTime=*/false},
};

const MeasureTraits &maxcode::measureTraits(MeasureMode M) {
  for (const MeasureTraits &T : Table)
    if (T.Mode == M)
      return T;
  llvm_unreachable("a measure without traits");
}
