//===-- histogram.cu - 256-bin histogram of bytes -------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
// Level 1: counts 2^28 bytes into 256 bins. The values are skewed (a few
// bins get most of them), so the naive kernel's one global atomic per byte
// contends heavily.
//
//===----------------------------------------------------------------------===//

#include "BenchHarness.cuh"

//===----------------------------------------------------------------------===//
// Target: the kernel and its launch. A variant changes this section only.
//===----------------------------------------------------------------------===//

__global__ void histogramKernel(const unsigned char *In, unsigned *Bins,
                                size_t N) {
  size_t I = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (I < N)
    atomicAdd(&Bins[In[I]], 1u);
}

void launchHistogram(const unsigned char *In, unsigned *Bins, size_t N) {
  histogramKernel<<<bench::ceilDiv(N, 256), 256>>>(In, Bins, N);
}

//===----------------------------------------------------------------------===//
// Harness: inputs, timed launches, CPU reference.
//===----------------------------------------------------------------------===//

int main(int Argc, char **Argv) {
  const size_t N = size_t(1) << 28;
  const int NumBins = 256;
  std::printf("histogram: %zu bytes into %d bins\n", N, NumBins);
  std::vector<unsigned char> In(N);
  for (size_t I = 0; I < N; ++I) {
    // Squaring a uniform value in [0, 1) crowds the low bins.
    double U = double(bench::mix(25, I) >> 11) * (1.0 / 9007199254740992.0);
    In[I] = static_cast<unsigned char>(U * U * NumBins);
  }
  bench::DeviceArray<unsigned char> DIn(In);
  bench::DeviceArray<unsigned> DBins(NumBins);
  // The bins accumulate, so each launch starts from zero.
  bench::timeLaunches(
      "histogram", bench::timedLaunches(Argc, Argv), [&] { DBins.zero(); },
      [&] { launchHistogram(DIn.get(), DBins.get(), N); });
  std::vector<unsigned> Bins = DBins.download();
  std::vector<double> Expected(NumBins, 0.0);
  for (size_t I = 0; I < N; ++I)
    Expected[In[I]] += 1;
  bench::Checker Check("histogram", 0.0, 0.0);
  for (int B = 0; B < NumBins; ++B)
    Check.check(B, Bins[B], Expected[B]);
  return Check.finish();
}
