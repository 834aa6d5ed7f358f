#include "launch.cuh"

__global__ void viaVariadic(float *P, int N, float S) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    P[I] *= S;
}

__global__ void viaPointer(float *P, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    P[I] += 1.0f;
}

__global__ void viaLocalPointer(float *P, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    P[I] -= 1.0f;
}

__global__ void viaTwoLevels(float *P) { P[threadIdx.x] = 0.0f; }

__global__ void neverLaunched(float *P) { P[threadIdx.x] = 1.0f; }

void run(float *P, int N, bool Fast) {
  launchKernel(viaVariadic, dim3(N / 256), dim3(256), P, N, 2.0f);
  launchPointer(viaPointer, P, N);
  launchPointer(&viaPointer, P, N);
  void (*Chosen)(float *, int) = Fast ? viaLocalPointer : viaPointer;
  Chosen<<<1, 1>>>(P, N);
  void *Args[] = {&P};
  outerLauncher(viaTwoLevels, Args);
  const void *Where = addressOf(neverLaunched);
  (void)Where;
}

#include <cuda.h>

__global__ void viaDriverApi(float *P) { P[threadIdx.x] = 2.0f; }

void runThroughDriver(float *P, CUstream S) {
  CUfunction F;
  cudaGetFuncBySymbol(&F, reinterpret_cast<const void *>(viaDriverApi));
  void *Args[] = {&P};
  cuLaunchKernel(F, 1, 1, 1, 32, 1, 1, 0, S, Args, nullptr);
}
