//===-- softmax.cu - Softmax over each row --------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
// Level 1 (KernelBench 23_Softmax, dim 1): 16384 rows of 4096 floats. The
// naive kernel gives each row to one thread, which reads it three times
// (max, sum of exponentials, output) with uncoalesced accesses.
//
//===----------------------------------------------------------------------===//

#include "BenchHarness.cuh"

//===----------------------------------------------------------------------===//
// Target: the kernel and its launch. A variant changes this section only.
//===----------------------------------------------------------------------===//

__global__ void softmaxKernel(const float *In, float *Out, int Rows, int Cols) {
  int Row = blockIdx.x * blockDim.x + threadIdx.x;
  if (Row >= Rows)
    return;
  const float *X = In + static_cast<size_t>(Row) * Cols;
  float *Y = Out + static_cast<size_t>(Row) * Cols;
  float Max = X[0];
  for (int C = 1; C < Cols; ++C)
    Max = fmaxf(Max, X[C]);
  float Sum = 0.0f;
  for (int C = 0; C < Cols; ++C)
    Sum += expf(X[C] - Max);
  for (int C = 0; C < Cols; ++C)
    Y[C] = expf(X[C] - Max) / Sum;
}

void launchSoftmax(const float *In, float *Out, int Rows, int Cols) {
  softmaxKernel<<<bench::ceilDiv(Rows, 128), 128>>>(In, Out, Rows, Cols);
}

//===----------------------------------------------------------------------===//
// Harness: inputs, timed launches, CPU reference.
//===----------------------------------------------------------------------===//

int main(int Argc, char **Argv) {
  const int Rows = 16384, Cols = 4096;
  const size_t N = size_t(Rows) * Cols;
  std::printf("softmax: %d rows of %d\n", Rows, Cols);
  std::vector<float> In = bench::uniformVector(N, 8, -5.0f, 5.0f);
  bench::DeviceArray<float> DIn(In), DOut(N);
  bench::timeLaunches(
      "softmax", bench::timedLaunches(Argc, Argv), [] {},
      [&] { launchSoftmax(DIn.get(), DOut.get(), Rows, Cols); });
  std::vector<float> Out = DOut.download();
  bench::Checker Check("softmax", 1e-7, 1e-4);
  for (size_t Row : bench::sampleIndices(Rows, 512)) {
    const float *X = &In[Row * Cols];
    double Max = X[0], Sum = 0;
    for (int C = 1; C < Cols; ++C)
      Max = std::max(Max, double(X[C]));
    for (int C = 0; C < Cols; ++C)
      Sum += std::exp(X[C] - Max);
    for (int C = 0; C < Cols; ++C)
      Check.check(Row * Cols + C, Out[Row * Cols + C],
                  std::exp(X[C] - Max) / Sum);
  }
  return Check.finish();
}
