//===-- batched_dot.cu - One dot product per batch entry ------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
// Level 1: Out[b] = dot(X[b], Y[b]) for 65536 pairs of 1024-float vectors.
// The naive kernel gives each pair to one thread.
//
//===----------------------------------------------------------------------===//

#include "BenchHarness.cuh"

//===----------------------------------------------------------------------===//
// Target: the kernel and its launch. A variant changes this section only.
//===----------------------------------------------------------------------===//

__global__ void batchedDotKernel(const float *X, const float *Y, float *Out,
                                 int Batch, int Dim) {
  int B = blockIdx.x * blockDim.x + threadIdx.x;
  if (B >= Batch)
    return;
  float Sum = 0.0f;
  for (int D = 0; D < Dim; ++D)
    Sum += X[static_cast<size_t>(B) * Dim + D] *
           Y[static_cast<size_t>(B) * Dim + D];
  Out[B] = Sum;
}

void launchBatchedDot(const float *X, const float *Y, float *Out, int Batch,
                      int Dim) {
  batchedDotKernel<<<bench::ceilDiv(Batch, 128), 128>>>(X, Y, Out, Batch, Dim);
}

//===----------------------------------------------------------------------===//
// Harness: inputs, timed launches, CPU reference.
//===----------------------------------------------------------------------===//

int main(int Argc, char **Argv) {
  const int Batch = 65536, Dim = 1024;
  const size_t N = size_t(Batch) * Dim;
  std::printf("batched_dot: %d pairs of %d\n", Batch, Dim);
  std::vector<float> X = bench::uniformVector(N, 14),
                     Y = bench::uniformVector(N, 15);
  bench::DeviceArray<float> DX(X), DY(Y), DOut(Batch);
  bench::timeLaunches(
      "batched_dot", bench::timedLaunches(Argc, Argv), [] {},
      [&] { launchBatchedDot(DX.get(), DY.get(), DOut.get(), Batch, Dim); });
  std::vector<float> Out = DOut.download();
  bench::Checker Check("batched_dot", 1e-3, 1e-4);
  for (int B = 0; B < Batch; ++B) {
    double Sum = 0;
    for (int D = 0; D < Dim; ++D)
      Sum += double(X[size_t(B) * Dim + D]) * Y[size_t(B) * Dim + D];
    Check.check(B, Out[B], Sum);
  }
  return Check.finish();
}
