#pragma once
#include <cuda_runtime.h>

namespace ops {
void launchAll(float *Out, const float *In, int N, cudaStream_t Stream);
} // namespace ops
