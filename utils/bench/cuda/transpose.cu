//===-- transpose.cu - Out = In^T -----------------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
// Level 1: transposes an 8192 x 16384 row-major matrix. The naive kernel
// reads rows (coalesced) and writes columns (a stride of 32 KiB between
// neighbouring threads).
//
//===----------------------------------------------------------------------===//

#include "BenchHarness.cuh"

//===----------------------------------------------------------------------===//
// Target: the kernel and its launch. A variant changes this section only.
//===----------------------------------------------------------------------===//

__global__ void transposeKernel(const float *In, float *Out, int Rows,
                                int Cols) {
  size_t I = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (I >= static_cast<size_t>(Rows) * Cols)
    return;
  size_t Row = I / Cols, Col = I % Cols;
  Out[Col * Rows + Row] = In[I];
}

void launchTranspose(const float *In, float *Out, int Rows, int Cols) {
  transposeKernel<<<bench::ceilDiv(size_t(Rows) * Cols, 256), 256>>>(
      In, Out, Rows, Cols);
}

//===----------------------------------------------------------------------===//
// Harness: inputs, timed launches, CPU reference.
//===----------------------------------------------------------------------===//

int main(int Argc, char **Argv) {
  const int Rows = 8192, Cols = 16384;
  const size_t N = size_t(Rows) * Cols;
  std::printf("transpose: %d x %d\n", Rows, Cols);
  std::vector<float> In = bench::uniformVector(N, 21);
  bench::DeviceArray<float> DIn(In), DOut(N);
  bench::timeLaunches(
      "transpose", bench::timedLaunches(Argc, Argv), [] {},
      [&] { launchTranspose(DIn.get(), DOut.get(), Rows, Cols); });
  std::vector<float> Out = DOut.download();
  bench::Checker Check("transpose", 0.0, 0.0);
  for (size_t Row = 0; Row < size_t(Rows); ++Row)
    for (size_t Col = 0; Col < size_t(Cols); ++Col)
      Check.check(Col * Rows + Row, Out[Col * Rows + Row],
                  In[Row * Cols + Col]);
  return Check.finish();
}
