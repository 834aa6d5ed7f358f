// A header of CUDA code with an extension nvcc does not know and no entry in
// the database; its nearest neighbour by name is a C++ file.
#pragma once
#include <cuda_runtime.h>

template <typename T> __global__ void fill(T *Out, T Value, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = Value;
}

template <typename T> cudaError_t fillAll(T *Out, T Value, int N) {
  fill<<<(N + 255) / 256, 256>>>(Out, Value, N);
  return cudaGetLastError();
}
