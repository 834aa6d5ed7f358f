//===-- BenchHarness.cuh - Harness of the CUDA suite -----------*- CUDA -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What every problem of utils/bench/cuda needs around its kernel:
/// deterministic inputs, a warm-up launch followed by timed launches, and a
/// check against a CPU reference with tolerances.
///
/// Output contract (the search compares runs, so stdout must not change
/// between correct runs): stdout gets the problem, its size and "PASS"
/// (exit status 0), or "FAIL" and the first mismatch (exit status 1), or
/// "ERROR" and the CUDA call that failed (exit status 2); the median launch
/// time from CUDA events goes to stderr. Kernel time proper is measured from
/// outside by libmaxcode-cupti.
///
/// Inputs are generated on the host and copied, never by a kernel, so the
/// only kernels a run launches are the problem's own.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_BENCH_CUDA_BENCHHARNESS_CUH
#define MAXCODE_BENCH_CUDA_BENCHHARNESS_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define BENCH_CHECK(Call)                                                      \
  do {                                                                         \
    cudaError_t Err_ = (Call);                                                 \
    if (Err_ != cudaSuccess) {                                                 \
      std::printf("ERROR: %s: %s (%s:%d)\n", #Call, cudaGetErrorString(Err_),  \
                  __FILE__, __LINE__);                                         \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

namespace bench {

/// SplitMix64: a well-mixed 64-bit value for element \p Index of input
/// \p Seed, the same on every machine.
inline uint64_t mix(uint64_t Seed, uint64_t Index) {
  uint64_t Z = Seed * 0x9E3779B97F4A7C15ull + Index + 0x632BE59BD9B4E019ull;
  Z = (Z ^ (Z >> 30)) * 0xBF58476D1CE4E5B9ull;
  Z = (Z ^ (Z >> 27)) * 0x94D049BB133111EBull;
  return Z ^ (Z >> 31);
}

/// Uniform in [Lo, Hi), exactly representable (24 random bits).
inline float uniform(uint64_t Seed, uint64_t Index, float Lo, float Hi) {
  float Unit =
      static_cast<float>(mix(Seed, Index) >> 40) * (1.0f / 16777216.0f);
  return Lo + (Hi - Lo) * Unit;
}

inline std::vector<float> uniformVector(size_t N, uint64_t Seed,
                                        float Lo = -1.0f, float Hi = 1.0f) {
  std::vector<float> V(N);
  for (size_t I = 0; I < N; ++I)
    V[I] = uniform(Seed, I, Lo, Hi);
  return V;
}

/// A device allocation of N elements, freed at scope exit.
template <typename T> class DeviceArray {
public:
  explicit DeviceArray(size_t N) : Size(N) {
    BENCH_CHECK(cudaMalloc(&Ptr, N * sizeof(T)));
  }
  explicit DeviceArray(const std::vector<T> &Host) : DeviceArray(Host.size()) {
    BENCH_CHECK(
        cudaMemcpy(Ptr, Host.data(), Size * sizeof(T), cudaMemcpyHostToDevice));
  }
  DeviceArray(const DeviceArray &) = delete;
  DeviceArray &operator=(const DeviceArray &) = delete;
  ~DeviceArray() { cudaFree(Ptr); }

  T *get() const { return Ptr; }
  size_t size() const { return Size; }
  void zero() { BENCH_CHECK(cudaMemset(Ptr, 0, Size * sizeof(T))); }
  std::vector<T> download() const {
    std::vector<T> Host(Size);
    BENCH_CHECK(
        cudaMemcpy(Host.data(), Ptr, Size * sizeof(T), cudaMemcpyDeviceToHost));
    return Host;
  }

private:
  T *Ptr = nullptr;
  size_t Size = 0;
};

/// Timed launches after the warm-up: argv[1] when given, else 5.
inline int timedLaunches(int Argc, char **Argv) {
  int N = Argc > 1 ? std::atoi(Argv[1]) : 5;
  return N > 0 ? N : 5;
}

/// One warm-up launch, then \p Reps timed ones, each preceded by \p Reset
/// (memsets only: a kernel there would count as the problem's time). Every
/// launch is checked; all streams are synchronised before the clock stops.
/// Returns the median milliseconds per launch and prints it to stderr.
template <typename ResetFn, typename LaunchFn>
double timeLaunches(const char *Problem, int Reps, ResetFn Reset,
                    LaunchFn Launch) {
  Reset();
  Launch();
  BENCH_CHECK(cudaGetLastError());
  BENCH_CHECK(cudaDeviceSynchronize());

  cudaEvent_t Begin, End;
  BENCH_CHECK(cudaEventCreate(&Begin));
  BENCH_CHECK(cudaEventCreate(&End));
  std::vector<float> Ms(Reps);
  for (int I = 0; I < Reps; ++I) {
    Reset();
    BENCH_CHECK(cudaEventRecord(Begin));
    Launch();
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cudaEventRecord(End));
    BENCH_CHECK(cudaDeviceSynchronize());
    BENCH_CHECK(cudaEventElapsedTime(&Ms[I], Begin, End));
  }
  BENCH_CHECK(cudaEventDestroy(Begin));
  BENCH_CHECK(cudaEventDestroy(End));
  std::sort(Ms.begin(), Ms.end());
  double Median =
      Reps % 2 ? Ms[Reps / 2] : 0.5 * (Ms[Reps / 2 - 1] + Ms[Reps / 2]);
  std::fprintf(stderr, "%s: median %.4f ms over %d launches (min %.4f)\n",
               Problem, Median, Reps, Ms.front());
  return Median;
}

/// The outputs a CPU reference can afford to check on GPU-sized problems:
/// the first and the last of [0, N) and \p Count - 2 pseudo-random ones in
/// between (not a regular stride, which a wrong kernel could match).
inline std::vector<size_t> sampleIndices(size_t N, size_t Count,
                                         uint64_t Seed = 7) {
  std::vector<size_t> Indices;
  if (N == 0)
    return Indices;
  if (Count >= N) {
    for (size_t I = 0; I < N; ++I)
      Indices.push_back(I);
    return Indices;
  }
  Indices.push_back(0);
  Indices.push_back(N - 1);
  for (size_t I = 2; I < Count; ++I)
    Indices.push_back(static_cast<size_t>(mix(Seed, I) % N));
  std::sort(Indices.begin(), Indices.end());
  Indices.erase(std::unique(Indices.begin(), Indices.end()), Indices.end());
  return Indices;
}

/// Counts outputs outside |got - expected| <= Atol + Rtol * |expected| and
/// remembers the first.
class Checker {
public:
  Checker(const char *Problem, double Atol, double Rtol)
      : Problem(Problem), Atol(Atol), Rtol(Rtol) {}

  void check(size_t Index, double Got, double Expected) {
    ++Checked;
    bool Ok = std::isfinite(Got) &&
              std::fabs(Got - Expected) <= Atol + Rtol * std::fabs(Expected);
    if (Ok)
      return;
    if (Failed++ == 0) {
      FirstIndex = Index;
      FirstGot = Got;
      FirstExpected = Expected;
    }
  }

  /// Prints PASS or FAIL to stdout; the process's exit status.
  int finish() const {
    if (Checked == 0) {
      std::printf("FAIL %s: nothing was checked\n", Problem);
      return 1;
    }
    if (Failed) {
      std::printf("FAIL %s: output %zu is %.9g, expected %.9g (atol %g, rtol "
                  "%g); %zu of %zu checked outputs differ\n",
                  Problem, FirstIndex, FirstGot, FirstExpected, Atol, Rtol,
                  Failed, Checked);
      return 1;
    }
    std::printf("PASS %s: %zu outputs checked (atol %g, rtol %g)\n", Problem,
                Checked, Atol, Rtol);
    return 0;
  }

private:
  const char *Problem;
  double Atol, Rtol;
  size_t Checked = 0, Failed = 0;
  size_t FirstIndex = 0;
  double FirstGot = 0, FirstExpected = 0;
};

inline unsigned ceilDiv(size_t N, unsigned D) {
  return static_cast<unsigned>((N + D - 1) / D);
}

} // namespace bench

#endif // MAXCODE_BENCH_CUDA_BENCHHARNESS_CUH
