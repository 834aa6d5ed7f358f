//===-- sigmoid.cu - Out = 1 / (1 + exp(-In)) -----------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
// Level 1, element-wise activation (KernelBench 21_Sigmoid). 2^27 floats
// in [-8, 8).
//
//===----------------------------------------------------------------------===//

#include "BenchHarness.cuh"

//===----------------------------------------------------------------------===//
// Target: the kernel and its launch. A variant changes this section only.
//===----------------------------------------------------------------------===//

__global__ void sigmoidKernel(const float *In, float *Out, size_t N) {
  size_t I = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (I < N)
    Out[I] = 1.0f / (1.0f + expf(-In[I]));
}

void launchSigmoid(const float *In, float *Out, size_t N) {
  sigmoidKernel<<<bench::ceilDiv(N, 128), 128>>>(In, Out, N);
}

//===----------------------------------------------------------------------===//
// Harness: inputs, timed launches, CPU reference.
//===----------------------------------------------------------------------===//

int main(int Argc, char **Argv) {
  const size_t N = size_t(1) << 27;
  std::printf("sigmoid: %zu elements\n", N);
  std::vector<float> In = bench::uniformVector(N, 7, -8.0f, 8.0f);
  bench::DeviceArray<float> DIn(In), DOut(N);
  bench::timeLaunches(
      "sigmoid", bench::timedLaunches(Argc, Argv), [] {},
      [&] { launchSigmoid(DIn.get(), DOut.get(), N); });
  std::vector<float> Out = DOut.download();
  bench::Checker Check("sigmoid", 1e-6, 1e-5);
  for (size_t I = 0; I < N; ++I)
    Check.check(I, Out[I], 1.0 / (1.0 + std::exp(-double(In[I]))));
  return Check.finish();
}
