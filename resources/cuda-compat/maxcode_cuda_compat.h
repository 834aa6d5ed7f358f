//===-- maxcode_cuda_compat.h - What nvcc accepts, for Clang --*- CUDA -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// clang-maxcode force-includes this header (-include, after Clang's own CUDA
/// runtime wrapper) into the host pass of every CUDA source it parses. It
/// closes the gaps between what nvcc's host pass accepts and what Clang's
/// host pass accepts with the CUDA 12.x and 13.x headers, so that real CUDA
/// code parses as it compiles with nvcc. It is never part of a build:
/// variants are built by the project's own compiler (nvcc), which does not see
/// this file.
///
/// One entry per construct, each documented in docs/CUDA.md ("The CUDA
/// compatibility header") and tested by test/CUDA/compat-*.cu. Entries mirror
/// nvcc's declarations (CUDA 13.0's crt/ and sm_32_intrinsics.h); where an
/// entry only declares, the declaration is all the host pass needs, and the
/// comment says so.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_CUDA_COMPAT_H
#define MAXCODE_CUDA_COMPAT_H

#if defined(__CUDA__) && defined(__cplusplus)

//===----------------------------------------------------------------------===//
// Entry "implicit-headers": the C headers nvcc's host pass includes.
//
// On the host pass nvcc's crt/common_functions.h and crt/math_functions.h
// include <string.h>, <time.h>, <math.h>, <stdlib.h>, <cmath> and <cstdlib>
// into every CUDA translation unit; Clang's CUDA wrapper includes all but
// <time.h> and <math.h>. Host code that calls isfinite(), isnan() or clock()
// without including their header compiles with nvcc. <math.h> is libstdc++'s,
// which brings std::isfinite and the other classification functions into the
// global namespace, as nvcc's host compiler sees them. (nvcc adds <stdio.h>
// and <assert.h> on the device pass only, so they are not here.)
//===----------------------------------------------------------------------===//
#include <math.h>
#include <time.h>

//===----------------------------------------------------------------------===//
// Entry "compiler-version": __CUDACC_VER_MAJOR__ and __CUDACC_VER_MINOR__.
//
// nvcc defines its version as these macros; Clang defines neither (CCCL reads
// CUDA_VERSION instead when the compiler is Clang), so code that tests them in
// an expression (CUTLASS's examples print which features the toolkit has)
// names undeclared identifiers, and #if tests take the "old toolkit" branch.
// CUDA_VERSION comes from cuda.h, which Clang's CUDA wrapper includes: 13000
// is 13.0, as nvcc's macros would say. nvcc's __CUDACC_VER_BUILD__ (its build
// number) is in no header, so it is defined as 0. CUDA's own headers read
// these macros only under __CUDACC_RTC__, which is not defined here.
//===----------------------------------------------------------------------===//
#if defined(CUDA_VERSION) && !defined(__CUDACC_VER_MAJOR__)
#define __CUDACC_VER_MAJOR__ (CUDA_VERSION / 1000)
#define __CUDACC_VER_MINOR__ (CUDA_VERSION % 1000 / 10)
#define __CUDACC_VER_BUILD__ 0
#endif

//===----------------------------------------------------------------------===//
// Entry "cache-hint": __ldcg __ldca __ldcs __ldlu __ldcv __stwb __stcg __stcs
// __stwt on every scalar and vector type.
//
// nvcc declares each of them for the 30 types below (sm_32_intrinsics.h).
// Clang replaces that header with its own __clang_cuda_intrinsics.h, which in
// Clang 19 defines none of them and in Clang 22 only __ldcg, __ldcs, __ldcv
// and __stwt (not for every type); the CUDA headers add only the __half and
// __nv_bfloat16 overloads. These are declarations only: the host pass needs a
// __device__ function to exist to check a kernel that calls it, and never
// emits device code. Where Clang defines one, this is a harmless
// redeclaration.
//===----------------------------------------------------------------------===//
#define MAXCODE_CACHE_HINT_LOADS_STORES(T)                                     \
  __device__ T __ldcg(const T *Ptr);                                           \
  __device__ T __ldca(const T *Ptr);                                           \
  __device__ T __ldcs(const T *Ptr);                                           \
  __device__ T __ldlu(const T *Ptr);                                           \
  __device__ T __ldcv(const T *Ptr);                                           \
  __device__ void __stwb(T *Ptr, T Value);                                     \
  __device__ void __stcg(T *Ptr, T Value);                                     \
  __device__ void __stcs(T *Ptr, T Value);                                     \
  __device__ void __stwt(T *Ptr, T Value);

MAXCODE_CACHE_HINT_LOADS_STORES(long)
MAXCODE_CACHE_HINT_LOADS_STORES(unsigned long)
MAXCODE_CACHE_HINT_LOADS_STORES(char)
MAXCODE_CACHE_HINT_LOADS_STORES(signed char)
MAXCODE_CACHE_HINT_LOADS_STORES(short)
MAXCODE_CACHE_HINT_LOADS_STORES(int)
MAXCODE_CACHE_HINT_LOADS_STORES(long long)
MAXCODE_CACHE_HINT_LOADS_STORES(char2)
MAXCODE_CACHE_HINT_LOADS_STORES(char4)
MAXCODE_CACHE_HINT_LOADS_STORES(short2)
MAXCODE_CACHE_HINT_LOADS_STORES(short4)
MAXCODE_CACHE_HINT_LOADS_STORES(int2)
MAXCODE_CACHE_HINT_LOADS_STORES(int4)
MAXCODE_CACHE_HINT_LOADS_STORES(longlong2)
MAXCODE_CACHE_HINT_LOADS_STORES(unsigned char)
MAXCODE_CACHE_HINT_LOADS_STORES(unsigned short)
MAXCODE_CACHE_HINT_LOADS_STORES(unsigned int)
MAXCODE_CACHE_HINT_LOADS_STORES(unsigned long long)
MAXCODE_CACHE_HINT_LOADS_STORES(uchar2)
MAXCODE_CACHE_HINT_LOADS_STORES(uchar4)
MAXCODE_CACHE_HINT_LOADS_STORES(ushort2)
MAXCODE_CACHE_HINT_LOADS_STORES(ushort4)
MAXCODE_CACHE_HINT_LOADS_STORES(uint2)
MAXCODE_CACHE_HINT_LOADS_STORES(uint4)
MAXCODE_CACHE_HINT_LOADS_STORES(ulonglong2)
MAXCODE_CACHE_HINT_LOADS_STORES(float)
MAXCODE_CACHE_HINT_LOADS_STORES(double)
MAXCODE_CACHE_HINT_LOADS_STORES(float2)
MAXCODE_CACHE_HINT_LOADS_STORES(float4)
MAXCODE_CACHE_HINT_LOADS_STORES(double2)

#undef MAXCODE_CACHE_HINT_LOADS_STORES

//===----------------------------------------------------------------------===//
// Entry "host-min-max": min, max, umin, umax, llmin, llmax, ullmin, ullmax
// callable from host code.
//
// nvcc's crt/math_functions.hpp defines these overloads __host__ __device__;
// Clang includes that header with the functions made __device__ only, so a
// host function calling max(a, b) finds no viable candidate. The __host__
// overloads below have the same signatures (Clang overloads on the target
// attribute, so the device ones stay as they are), and real definitions with
// nvcc's results, although only the host pass ever sees them.
//===----------------------------------------------------------------------===//
#define MAXCODE_HOST_MIN_MAX(R, A, B)                                          \
  static inline __host__ R min(A X, B Y) {                                     \
    return static_cast<R>(X) < static_cast<R>(Y) ? static_cast<R>(X)           \
                                                 : static_cast<R>(Y);          \
  }                                                                            \
  static inline __host__ R max(A X, B Y) {                                     \
    return static_cast<R>(X) > static_cast<R>(Y) ? static_cast<R>(X)           \
                                                 : static_cast<R>(Y);          \
  }

MAXCODE_HOST_MIN_MAX(int, int, int)
MAXCODE_HOST_MIN_MAX(unsigned int, unsigned int, unsigned int)
MAXCODE_HOST_MIN_MAX(unsigned int, int, unsigned int)
MAXCODE_HOST_MIN_MAX(unsigned int, unsigned int, int)
MAXCODE_HOST_MIN_MAX(long, long, long)
MAXCODE_HOST_MIN_MAX(unsigned long, unsigned long, unsigned long)
MAXCODE_HOST_MIN_MAX(unsigned long, long, unsigned long)
MAXCODE_HOST_MIN_MAX(unsigned long, unsigned long, long)
MAXCODE_HOST_MIN_MAX(long long, long long, long long)
MAXCODE_HOST_MIN_MAX(unsigned long long, unsigned long long,
                     unsigned long long)
MAXCODE_HOST_MIN_MAX(unsigned long long, long long, unsigned long long)
MAXCODE_HOST_MIN_MAX(unsigned long long, unsigned long long, long long)
#undef MAXCODE_HOST_MIN_MAX

// nvcc's floating-point min and max are fmin and fmax (NaN operands lose).
static inline __host__ float min(float X, float Y) { return fminf(X, Y); }
static inline __host__ float max(float X, float Y) { return fmaxf(X, Y); }
static inline __host__ double min(double X, double Y) { return fmin(X, Y); }
static inline __host__ double max(double X, double Y) { return fmax(X, Y); }
static inline __host__ double min(float X, double Y) { return fmin(X, Y); }
static inline __host__ double max(float X, double Y) { return fmax(X, Y); }
static inline __host__ double min(double X, float Y) { return fmin(X, Y); }
static inline __host__ double max(double X, float Y) { return fmax(X, Y); }

static inline __host__ unsigned int umin(unsigned int X, unsigned int Y) {
  return X < Y ? X : Y;
}
static inline __host__ unsigned int umax(unsigned int X, unsigned int Y) {
  return X > Y ? X : Y;
}
static inline __host__ long long llmin(long long X, long long Y) {
  return X < Y ? X : Y;
}
static inline __host__ long long llmax(long long X, long long Y) {
  return X > Y ? X : Y;
}
static inline __host__ unsigned long long ullmin(unsigned long long X,
                                                 unsigned long long Y) {
  return X < Y ? X : Y;
}
static inline __host__ unsigned long long ullmax(unsigned long long X,
                                                 unsigned long long Y) {
  return X > Y ? X : Y;
}

#endif // defined(__CUDA__) && defined(__cplusplus)

#endif // MAXCODE_CUDA_COMPAT_H
