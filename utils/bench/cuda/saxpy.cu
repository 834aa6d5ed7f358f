//===-- saxpy.cu - Out = Alpha * X + Y ------------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
// Level 1, element-wise (BLAS SAXPY, written out of place so that every
// launch computes the same result). 2^27 floats per operand.
//
//===----------------------------------------------------------------------===//

#include "BenchHarness.cuh"

//===----------------------------------------------------------------------===//
// Target: the kernel and its launch. A variant changes this section only.
//===----------------------------------------------------------------------===//

__global__ void saxpyKernel(float Alpha, const float *X, const float *Y,
                            float *Out, size_t N) {
  size_t I = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (I < N)
    Out[I] = Alpha * X[I] + Y[I];
}

void launchSaxpy(float Alpha, const float *X, const float *Y, float *Out,
                 size_t N) {
  saxpyKernel<<<bench::ceilDiv(N, 128), 128>>>(Alpha, X, Y, Out, N);
}

//===----------------------------------------------------------------------===//
// Harness: inputs, timed launches, CPU reference.
//===----------------------------------------------------------------------===//

int main(int Argc, char **Argv) {
  const size_t N = size_t(1) << 27;
  const float Alpha = 2.5f;
  std::printf("saxpy: %zu elements\n", N);
  std::vector<float> X = bench::uniformVector(N, 3),
                     Y = bench::uniformVector(N, 4);
  bench::DeviceArray<float> DX(X), DY(Y), DOut(N);
  bench::timeLaunches(
      "saxpy", bench::timedLaunches(Argc, Argv), [] {},
      [&] { launchSaxpy(Alpha, DX.get(), DY.get(), DOut.get(), N); });
  std::vector<float> Out = DOut.download();
  bench::Checker Check("saxpy", 1e-6, 1e-6);
  for (size_t I = 0; I < N; ++I)
    Check.check(I, Out[I], double(Alpha) * X[I] + Y[I]);
  return Check.finish();
}
