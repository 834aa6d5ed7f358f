// The compatibility header's "compiler-version" entry (docs/CUDA.md): code
// that reads nvcc's __CUDACC_VER_MAJOR__ and __CUDACC_VER_MINOR__ in an
// expression and in #if, as nvcc defines them. Without the entry the host
// function names undeclared identifiers and is blocked, and the #if takes
// the branch with the #error.
// REQUIRES: nvcc
// nvcc's front end accepts the reproduction as it is:
// RUN: %cuda_path/bin/nvcc -cuda -std=c++17 %s -o %t.ii
// RUN: %clang-maxcode --list-targets --format=json %s -- -std=c++17 > %t.json
// RUN: FileCheck %s < %t.json

// CHECK:      "name": "fill",
// CHECK-NEXT: "kind": "cuda-kernel",
// CHECK:      "name": "toolkitAtLeast12",
// CHECK-NEXT: "kind": "cpu-function",
// CHECK:      "parse_errors": 0,
// CHECK-NEXT: "blocked": []

#if !defined(__CUDACC_VER_MAJOR__) || __CUDACC_VER_MAJOR__ < 12
#error "the compiler's CUDA version is unknown or older than 12"
#endif

__global__ void fill(int *X) { X[threadIdx.x] = __CUDACC_VER_MINOR__; }

bool toolkitAtLeast12() {
  return __CUDACC_VER_MAJOR__ > 12 ||
         (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 0);
}

void launchFill(int *X) { fill<<<1, 32>>>(X); }
