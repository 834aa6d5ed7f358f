//===-- layer_norm.cu - Layer normalisation of each row -------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
// Level 1 (KernelBench 40_LayerNorm, over the last dimension):
// Out = (X - mean) / sqrt(var + eps) * Gamma + Beta for 16384 rows of 4096.
// The naive kernel gives each row to one thread: three passes (mean,
// variance, output) with uncoalesced accesses.
//
//===----------------------------------------------------------------------===//

#include "BenchHarness.cuh"

//===----------------------------------------------------------------------===//
// Target: the kernel and its launch. A variant changes this section only.
//===----------------------------------------------------------------------===//

__global__ void layerNormKernel(const float *In, const float *Gamma,
                                const float *Beta, float *Out, int Rows,
                                int Cols, float Eps) {
  int Row = blockIdx.x * blockDim.x + threadIdx.x;
  if (Row >= Rows)
    return;
  const float *X = In + static_cast<size_t>(Row) * Cols;
  float *Y = Out + static_cast<size_t>(Row) * Cols;
  float Mean = 0.0f;
  for (int C = 0; C < Cols; ++C)
    Mean += X[C];
  Mean /= Cols;
  float Var = 0.0f;
  for (int C = 0; C < Cols; ++C)
    Var += (X[C] - Mean) * (X[C] - Mean);
  Var /= Cols;
  for (int C = 0; C < Cols; ++C)
    Y[C] = (X[C] - Mean) / sqrtf(Var + Eps) * Gamma[C] + Beta[C];
}

void launchLayerNorm(const float *In, const float *Gamma, const float *Beta,
                     float *Out, int Rows, int Cols, float Eps) {
  layerNormKernel<<<bench::ceilDiv(Rows, 128), 128>>>(In, Gamma, Beta, Out,
                                                      Rows, Cols, Eps);
}

//===----------------------------------------------------------------------===//
// Harness: inputs, timed launches, CPU reference.
//===----------------------------------------------------------------------===//

int main(int Argc, char **Argv) {
  const int Rows = 16384, Cols = 4096;
  const float Eps = 1e-5f;
  const size_t N = size_t(Rows) * Cols;
  std::printf("layer_norm: %d rows of %d\n", Rows, Cols);
  // An offset mean, so that a one-pass variance would show its error.
  std::vector<float> In = bench::uniformVector(N, 9, 2.0f, 6.0f);
  std::vector<float> Gamma = bench::uniformVector(Cols, 10, 0.5f, 1.5f);
  std::vector<float> Beta = bench::uniformVector(Cols, 11, -0.5f, 0.5f);
  bench::DeviceArray<float> DIn(In), DGamma(Gamma), DBeta(Beta), DOut(N);
  bench::timeLaunches(
      "layer_norm", bench::timedLaunches(Argc, Argv), [] {},
      [&] {
        launchLayerNorm(DIn.get(), DGamma.get(), DBeta.get(), DOut.get(), Rows,
                        Cols, Eps);
      });
  std::vector<float> Out = DOut.download();
  bench::Checker Check("layer_norm", 1e-4, 1e-4);
  for (size_t Row : bench::sampleIndices(Rows, 512)) {
    const float *X = &In[Row * Cols];
    double Mean = 0, Var = 0;
    for (int C = 0; C < Cols; ++C)
      Mean += X[C];
    Mean /= Cols;
    for (int C = 0; C < Cols; ++C)
      Var += (X[C] - Mean) * (X[C] - Mean);
    Var /= Cols;
    for (int C = 0; C < Cols; ++C)
      Check.check(Row * Cols + C, Out[Row * Cols + C],
                  (X[C] - Mean) / std::sqrt(Var + Eps) * Gamma[C] + Beta[C]);
  }
  return Check.finish();
}
