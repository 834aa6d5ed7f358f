//===-- row_sum.cu - Sum reduction over each row --------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
// Level 1 (KernelBench 47_Sum_reduction_over_a_dimension): Out[r] is the
// sum of row r of a 32768 x 4096 matrix. The naive kernel gives each row to
// one thread, so neighbouring threads read addresses 16 KiB apart.
//
//===----------------------------------------------------------------------===//

#include "BenchHarness.cuh"

//===----------------------------------------------------------------------===//
// Target: the kernel and its launch. A variant changes this section only.
//===----------------------------------------------------------------------===//

__global__ void rowSumKernel(const float *In, float *Out, int Rows, int Cols) {
  int Row = blockIdx.x * blockDim.x + threadIdx.x;
  if (Row >= Rows)
    return;
  float Sum = 0.0f;
  for (int C = 0; C < Cols; ++C)
    Sum += In[static_cast<size_t>(Row) * Cols + C];
  Out[Row] = Sum;
}

void launchRowSum(const float *In, float *Out, int Rows, int Cols) {
  rowSumKernel<<<bench::ceilDiv(Rows, 128), 128>>>(In, Out, Rows, Cols);
}

//===----------------------------------------------------------------------===//
// Harness: inputs, timed launches, CPU reference.
//===----------------------------------------------------------------------===//

int main(int Argc, char **Argv) {
  const int Rows = 32768, Cols = 4096;
  const size_t N = size_t(Rows) * Cols;
  std::printf("row_sum: %d rows of %d\n", Rows, Cols);
  std::vector<float> In = bench::uniformVector(N, 12);
  bench::DeviceArray<float> DIn(In), DOut(Rows);
  bench::timeLaunches(
      "row_sum", bench::timedLaunches(Argc, Argv), [] {},
      [&] { launchRowSum(DIn.get(), DOut.get(), Rows, Cols); });
  std::vector<float> Out = DOut.download();
  bench::Checker Check("row_sum", 1e-2, 1e-4);
  for (int Row = 0; Row < Rows; ++Row) {
    double Sum = 0;
    for (int C = 0; C < Cols; ++C)
      Sum += In[size_t(Row) * Cols + C];
    Check.check(Row, Out[Row], Sum);
  }
  return Check.finish();
}
