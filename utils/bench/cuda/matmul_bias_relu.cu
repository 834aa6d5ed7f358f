//===-- matmul_bias_relu.cu - Out = relu(X * W + Bias) --------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
// Level 2, a fused chain (KernelBench 76_Gemm_Add_ReLU): a linear layer
// with bias followed by ReLU. X is 2048 x 4096, W is 4096 x 4096 (in x
// out), Bias has 4096 entries. The naive kernel computes one output per
// thread straight from global memory.
//
//===----------------------------------------------------------------------===//

#include "BenchHarness.cuh"

//===----------------------------------------------------------------------===//
// Target: the kernel and its launch. A variant changes this section only.
//===----------------------------------------------------------------------===//

__global__ void matmulBiasReluKernel(const float *X, const float *W,
                                     const float *Bias, float *Out, int M,
                                     int N, int K) {
  int Row = blockIdx.y * blockDim.y + threadIdx.y;
  int Col = blockIdx.x * blockDim.x + threadIdx.x;
  if (Row >= M || Col >= N)
    return;
  float Sum = 0.0f;
  for (int I = 0; I < K; ++I)
    Sum += X[static_cast<size_t>(Row) * K + I] *
           W[static_cast<size_t>(I) * N + Col];
  Sum += Bias[Col];
  Out[static_cast<size_t>(Row) * N + Col] = Sum > 0.0f ? Sum : 0.0f;
}

void launchMatmulBiasRelu(const float *X, const float *W, const float *Bias,
                          float *Out, int M, int N, int K) {
  dim3 Block(16, 16);
  dim3 Grid(bench::ceilDiv(N, Block.x), bench::ceilDiv(M, Block.y));
  matmulBiasReluKernel<<<Grid, Block>>>(X, W, Bias, Out, M, N, K);
}

//===----------------------------------------------------------------------===//
// Harness: inputs, timed launches, CPU reference.
//===----------------------------------------------------------------------===//

int main(int Argc, char **Argv) {
  const int M = 2048, N = 4096, K = 4096;
  std::printf("matmul_bias_relu: %d x %d times %d x %d\n", M, K, K, N);
  std::vector<float> X = bench::uniformVector(size_t(M) * K, 18);
  std::vector<float> W = bench::uniformVector(size_t(K) * N, 19);
  std::vector<float> Bias = bench::uniformVector(N, 20);
  bench::DeviceArray<float> DX(X), DW(W), DBias(Bias), DOut(size_t(M) * N);
  bench::timeLaunches(
      "matmul_bias_relu", bench::timedLaunches(Argc, Argv), [] {},
      [&] {
        launchMatmulBiasRelu(DX.get(), DW.get(), DBias.get(), DOut.get(), M, N,
                             K);
      });
  std::vector<float> Out = DOut.download();
  bench::Checker Check("matmul_bias_relu", 1e-2, 1e-3);
  for (size_t I : bench::sampleIndices(size_t(M) * N, 4096)) {
    size_t Row = I / N, Col = I % N;
    double Sum = Bias[Col];
    for (int J = 0; J < K; ++J)
      Sum += double(X[Row * K + J]) * W[size_t(J) * N + Col];
    Check.check(I, Out[I], Sum > 0 ? Sum : 0.0);
  }
  return Check.finish();
}
