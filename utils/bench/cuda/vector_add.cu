//===-- vector_add.cu - C = A + B -----------------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
// Level 1, element-wise. 2^27 floats per operand (512 MiB each), so the
// kernel is bound by HBM bandwidth.
//
//===----------------------------------------------------------------------===//

#include "BenchHarness.cuh"

//===----------------------------------------------------------------------===//
// Target: the kernel and its launch. A variant changes this section only.
//===----------------------------------------------------------------------===//

__global__ void vectorAddKernel(const float *A, const float *B, float *C,
                                size_t N) {
  size_t I = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (I < N)
    C[I] = A[I] + B[I];
}

void launchVectorAdd(const float *A, const float *B, float *C, size_t N) {
  vectorAddKernel<<<bench::ceilDiv(N, 128), 128>>>(A, B, C, N);
}

//===----------------------------------------------------------------------===//
// Harness: inputs, timed launches, CPU reference.
//===----------------------------------------------------------------------===//

int main(int Argc, char **Argv) {
  const size_t N = size_t(1) << 27;
  std::printf("vector_add: %zu elements\n", N);
  std::vector<float> A = bench::uniformVector(N, 1),
                     B = bench::uniformVector(N, 2);
  bench::DeviceArray<float> DA(A), DB(B), DC(N);
  bench::timeLaunches(
      "vector_add", bench::timedLaunches(Argc, Argv), [] {},
      [&] { launchVectorAdd(DA.get(), DB.get(), DC.get(), N); });
  std::vector<float> C = DC.download();
  bench::Checker Check("vector_add", 1e-6, 1e-6);
  for (size_t I = 0; I < N; ++I)
    Check.check(I, C[I], double(A[I]) + double(B[I]));
  return Check.finish();
}
