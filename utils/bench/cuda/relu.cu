//===-- relu.cu - Out = max(In, 0) ----------------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
// Level 1, element-wise activation (KernelBench 19_ReLU). 2^27 floats.
//
//===----------------------------------------------------------------------===//

#include "BenchHarness.cuh"

//===----------------------------------------------------------------------===//
// Target: the kernel and its launch. A variant changes this section only.
//===----------------------------------------------------------------------===//

__global__ void reluKernel(const float *In, float *Out, size_t N) {
  size_t I = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (I < N) {
    if (In[I] > 0.0f)
      Out[I] = In[I];
    else
      Out[I] = 0.0f;
  }
}

void launchRelu(const float *In, float *Out, size_t N) {
  reluKernel<<<bench::ceilDiv(N, 128), 128>>>(In, Out, N);
}

//===----------------------------------------------------------------------===//
// Harness: inputs, timed launches, CPU reference.
//===----------------------------------------------------------------------===//

int main(int Argc, char **Argv) {
  const size_t N = size_t(1) << 27;
  std::printf("relu: %zu elements\n", N);
  std::vector<float> In = bench::uniformVector(N, 5);
  bench::DeviceArray<float> DIn(In), DOut(N);
  bench::timeLaunches(
      "relu", bench::timedLaunches(Argc, Argv), [] {},
      [&] { launchRelu(DIn.get(), DOut.get(), N); });
  std::vector<float> Out = DOut.download();
  bench::Checker Check("relu", 0.0, 0.0);
  for (size_t I = 0; I < N; ++I)
    Check.check(I, Out[I], In[I] > 0.0f ? In[I] : 0.0);
  return Check.finish();
}
