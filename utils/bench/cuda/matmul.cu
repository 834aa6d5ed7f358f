//===-- matmul.cu - C = A * B, square fp32 matrices -----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
// Level 1 (KernelBench 1_Square_matrix_multiplication_): 4096 x 4096
// row-major matrices. The naive kernel computes one element of C per thread
// straight from global memory, with no tiling.
//
//===----------------------------------------------------------------------===//

#include "BenchHarness.cuh"

//===----------------------------------------------------------------------===//
// Target: the kernel and its launch. A variant changes this section only.
//===----------------------------------------------------------------------===//

__global__ void matmulKernel(const float *A, const float *B, float *C, int N) {
  int Row = blockIdx.y * blockDim.y + threadIdx.y;
  int Col = blockIdx.x * blockDim.x + threadIdx.x;
  if (Row >= N || Col >= N)
    return;
  float Sum = 0.0f;
  for (int K = 0; K < N; ++K)
    Sum += A[static_cast<size_t>(Row) * N + K] *
           B[static_cast<size_t>(K) * N + Col];
  C[static_cast<size_t>(Row) * N + Col] = Sum;
}

void launchMatmul(const float *A, const float *B, float *C, int N) {
  dim3 Block(16, 16);
  dim3 Grid(bench::ceilDiv(N, Block.x), bench::ceilDiv(N, Block.y));
  matmulKernel<<<Grid, Block>>>(A, B, C, N);
}

//===----------------------------------------------------------------------===//
// Harness: inputs, timed launches, CPU reference.
//===----------------------------------------------------------------------===//

int main(int Argc, char **Argv) {
  const int N = 4096;
  const size_t Elements = size_t(N) * N;
  std::printf("matmul: %d x %d\n", N, N);
  std::vector<float> A = bench::uniformVector(Elements, 16);
  std::vector<float> B = bench::uniformVector(Elements, 17);
  bench::DeviceArray<float> DA(A), DB(B), DC(Elements);
  bench::timeLaunches(
      "matmul", bench::timedLaunches(Argc, Argv), [] {},
      [&] { launchMatmul(DA.get(), DB.get(), DC.get(), N); });
  std::vector<float> C = DC.download();
  bench::Checker Check("matmul", 1e-2, 1e-3);
  for (size_t I : bench::sampleIndices(Elements, 4096)) {
    size_t Row = I / N, Col = I % N;
    double Sum = 0;
    for (int K = 0; K < N; ++K)
      Sum += double(A[Row * N + K]) * B[size_t(K) * N + Col];
    Check.check(I, C[I], Sum);
  }
  return Check.finish();
}
