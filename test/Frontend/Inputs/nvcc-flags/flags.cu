// What the nvcc flag tests parse: each macro below asks for the effect of
// one translated flag, and an error (which blocks the kernel) when the flag
// was not translated.
#ifdef NEED_OPENMP
#include <omp.h>
#ifndef _OPENMP
#error "-fopenmp did not reach Clang"
#endif
// omp_alloc is declared with GCC's __malloc__(omp_free), which Clang 22
// reads as it is.
int threads() {
  void *P = omp_alloc(64, omp_default_mem_alloc);
  omp_free(P, omp_default_mem_alloc);
  return omp_get_max_threads();
}
#endif

#ifdef NEED_RDC
#ifndef __CLANG_RDC__
#error "-fgpu-rdc did not reach Clang"
#endif
#endif

#ifdef NEED_MACRO
#if NEED_MACRO != 42
#error "the macro's value was lost"
#endif
#endif

#ifdef NEED_INCLUDE
#include "flags-extra.h"
#endif

#ifdef NEED_PRE_INCLUDE
#ifndef PRE_INCLUDED
#error "--pre-include did not reach Clang"
#endif
#endif

// Clang's CUDA default is C++17: C++20 shows that the flag was read.
#ifdef NEED_CXX20
#if __cplusplus < 202002L
#error "-std c++20 did not reach Clang"
#endif
#endif

#ifdef NEED_FAST_MATH
#ifndef __FAST_MATH__
#error "--use_fast_math did not reach Clang"
#endif
#endif

#ifdef NEED_PER_THREAD_STREAM
#if CUDA_API_PER_THREAD_DEFAULT_STREAM != 1
#error "--default-stream per-thread did not reach Clang"
#endif
#endif

__global__ void axpy(float A, const float *X, float *Y, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Y[I] = A * X[I] + Y[I];
}

void launchAxpy(float A, const float *X, float *Y, int N) {
  axpy<<<(N + 255) / 256, 256>>>(A, X, Y, N);
}

#ifdef NEED_NO_EXCEPTIONS
#ifdef __EXCEPTIONS
#error "-noeh did not reach Clang as -fno-exceptions"
#endif
#endif

#ifdef NEED_OPTIMIZE
#ifndef __OPTIMIZE__
#error "--optimize did not reach Clang as -O"
#endif
#endif
