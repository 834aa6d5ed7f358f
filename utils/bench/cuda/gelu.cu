//===-- gelu.cu - Out = x * Phi(x), the exact GELU ------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
// Level 1, element-wise activation (KernelBench 26_GELU_):
// GELU(x) = 0.5 x (1 + erf(x / sqrt(2))). 2^27 floats in [-4, 4). The naive
// kernel evaluates it in double precision.
//
//===----------------------------------------------------------------------===//

#include "BenchHarness.cuh"

//===----------------------------------------------------------------------===//
// Target: the kernel and its launch. A variant changes this section only.
//===----------------------------------------------------------------------===//

__global__ void geluKernel(const float *In, float *Out, size_t N) {
  size_t I = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (I < N) {
    double X = In[I];
    Out[I] = static_cast<float>(0.5 * X * (1.0 + erf(X / sqrt(2.0))));
  }
}

void launchGelu(const float *In, float *Out, size_t N) {
  geluKernel<<<bench::ceilDiv(N, 128), 128>>>(In, Out, N);
}

//===----------------------------------------------------------------------===//
// Harness: inputs, timed launches, CPU reference.
//===----------------------------------------------------------------------===//

int main(int Argc, char **Argv) {
  const size_t N = size_t(1) << 27;
  std::printf("gelu: %zu elements\n", N);
  std::vector<float> In = bench::uniformVector(N, 6, -4.0f, 4.0f);
  bench::DeviceArray<float> DIn(In), DOut(N);
  bench::timeLaunches(
      "gelu", bench::timedLaunches(Argc, Argv), [] {},
      [&] { launchGelu(DIn.get(), DOut.get(), N); });
  std::vector<float> Out = DOut.download();
  bench::Checker Check("gelu", 1e-5, 1e-5);
  for (size_t I = 0; I < N; ++I) {
    double X = In[I];
    Check.check(I, Out[I], 0.5 * X * (1.0 + std::erf(X / std::sqrt(2.0))));
  }
  return Check.finish();
}
