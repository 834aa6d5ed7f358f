//===-- prefix_sum.cu - Inclusive prefix sum of each row ------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
// Level 1 (KernelBench 89_cumsum, along dimension 1): 16384 rows of 4096
// floats. The naive kernel scans each row sequentially in one thread.
//
//===----------------------------------------------------------------------===//

#include "BenchHarness.cuh"

//===----------------------------------------------------------------------===//
// Target: the kernel and its launch. A variant changes this section only.
//===----------------------------------------------------------------------===//

__global__ void prefixSumKernel(const float *In, float *Out, int Rows,
                                int Cols) {
  int Row = blockIdx.x * blockDim.x + threadIdx.x;
  if (Row >= Rows)
    return;
  float Sum = 0.0f;
  for (int C = 0; C < Cols; ++C) {
    Sum += In[static_cast<size_t>(Row) * Cols + C];
    Out[static_cast<size_t>(Row) * Cols + C] = Sum;
  }
}

void launchPrefixSum(const float *In, float *Out, int Rows, int Cols) {
  prefixSumKernel<<<bench::ceilDiv(Rows, 128), 128>>>(In, Out, Rows, Cols);
}

//===----------------------------------------------------------------------===//
// Harness: inputs, timed launches, CPU reference.
//===----------------------------------------------------------------------===//

int main(int Argc, char **Argv) {
  const int Rows = 16384, Cols = 4096;
  const size_t N = size_t(Rows) * Cols;
  std::printf("prefix_sum: %d rows of %d\n", Rows, Cols);
  std::vector<float> In = bench::uniformVector(N, 13);
  bench::DeviceArray<float> DIn(In), DOut(N);
  bench::timeLaunches(
      "prefix_sum", bench::timedLaunches(Argc, Argv), [] {},
      [&] { launchPrefixSum(DIn.get(), DOut.get(), Rows, Cols); });
  std::vector<float> Out = DOut.download();
  bench::Checker Check("prefix_sum", 1e-2, 1e-4);
  for (int Row = 0; Row < Rows; ++Row) {
    double Sum = 0;
    for (int C = 0; C < Cols; ++C) {
      size_t I = size_t(Row) * Cols + C;
      Sum += In[I];
      Check.check(I, Out[I], Sum);
    }
  }
  return Check.finish();
}
