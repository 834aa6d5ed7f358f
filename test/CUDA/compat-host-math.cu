// The compatibility header's "host-min-max" and "implicit-headers" entries
// (docs/CUDA.md): host code calls min and max on every pair of types nvcc
// overloads, and isfinite, isnan and clock() without including <math.h> or
// <time.h>, which nvcc's host pass includes itself. Without the entries the
// host function holds errors and is blocked; the kernel is not.
// REQUIRES: nvcc
// nvcc's front end accepts the reproduction as it is:
// RUN: %cuda_path/bin/nvcc -cuda -std=c++17 %s -o %t.ii
// RUN: %clang-maxcode --list-targets --format=json %s -- -std=c++17 > %t.json
// RUN: FileCheck %s < %t.json

// CHECK:      "name": "scale",
// CHECK-NEXT: "kind": "cuda-kernel",
// CHECK:      "name": "hostChecks",
// CHECK-NEXT: "kind": "cpu-function",
// CHECK:      "parse_errors": 0,
// CHECK-NEXT: "blocked": []

__global__ void scale(float *X, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < min(N, 1 << 20))
    X[I] = max(X[I], 0.0f);
}

long long hostChecks(int I, unsigned U, long L, unsigned long UL, long long LL,
                     unsigned long long ULL, float F, double D) {
  long long Sum = max(I, 1) + min(I, 2) + max(U, U) + min(I, U) + max(U, I) +
                  max(L, L) + min(UL, UL) + max(L, UL) + min(UL, L) +
                  max(LL, LL) + min(ULL, ULL) + max(LL, ULL) + min(ULL, LL);
  double Real = max(F, F) + min(D, D) + max(F, D) + min(D, F);
  Sum += umin(U, U) + umax(U, U) + llmin(LL, LL) + llmax(LL, LL) +
         ullmin(ULL, ULL) + ullmax(ULL, ULL);
  if (!isfinite(Real) || isnan(F) || isinf(D) || signbit(D))
    return -1;
  clock_t Start = clock();
  scale<<<(I + 255) / 256, 256>>>(nullptr, I);
  return Sum + static_cast<long long>(Real) + (clock() - Start);
}
