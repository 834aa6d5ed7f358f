// Kernels on two non-blocking streams, and an exit without synchronising:
// the injection library must still report every launch with its times.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void spinKernel(float *Out, int Iterations) {
  float X = threadIdx.x;
  for (int I = 0; I < Iterations; ++I)
    X = X * 0.999f + 1.0f;
  Out[blockIdx.x * blockDim.x + threadIdx.x] = X;
}

namespace side {
template <int Scale> __global__ void scaleKernel(float *Data, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Data[I] *= Scale;
}
} // namespace side

int main() {
  const int N = 1 << 20;
  float *A = nullptr, *B = nullptr;
  cudaStream_t S1, S2;
  if (cudaMalloc(&A, N * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&B, N * sizeof(float)) != cudaSuccess ||
      cudaStreamCreateWithFlags(&S1, cudaStreamNonBlocking) != cudaSuccess ||
      cudaStreamCreateWithFlags(&S2, cudaStreamNonBlocking) != cudaSuccess) {
    std::printf("FAIL: setup\n");
    return 1;
  }
  for (int I = 0; I < 3; ++I)
    spinKernel<<<N / 256, 256, 0, S1>>>(A, 20000);
  for (int I = 0; I < 2; ++I)
    side::scaleKernel<3><<<N / 256, 256, 0, S2>>>(B, N);
  if (cudaGetLastError() != cudaSuccess) {
    std::printf("FAIL: launch\n");
    return 1;
  }
  std::printf("launched\n");
  return 0; // no synchronisation on purpose
}
