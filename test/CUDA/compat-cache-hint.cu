// The compatibility header's "cache-hint" entry (docs/CUDA.md): nvcc offers
// __ldcg __ldca __ldcs __ldlu __ldcv __stwb __stcg __stcs __stwt for every
// scalar and vector type; Clang 22's own headers have four, not for every
// type, so without the entry the kernel holds errors and is blocked.
// REQUIRES: nvcc
// nvcc's front end accepts the reproduction as it is:
// RUN: %cuda_path/bin/nvcc -cuda -std=c++17 %s -o %t.ii
// RUN: %clang-maxcode --list-targets --format=json %s -- -std=c++17 > %t.json
// RUN: FileCheck %s < %t.json

// CHECK:      "name": "streamAll",
// CHECK-NEXT: "kind": "cuda-kernel",
// CHECK:      "launch_sites": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "line": 44,
// CHECK:      "parse_errors": 0,
// CHECK-NEXT: "blocked": []

#define LOADS_AND_STORES(T)                                                    \
  {                                                                            \
    T *P = reinterpret_cast<T *>(Raw);                                         \
    __stwb(P, __ldcg(P));                                                      \
    __stcg(P, __ldca(P));                                                      \
    __stcs(P, __ldcs(P));                                                      \
    __stwt(P, __ldlu(P));                                                      \
    __stcs(P + 1, __ldcv(static_cast<const T *>(P)));                          \
  }

__global__ void streamAll(char *Raw) {
  LOADS_AND_STORES(long) LOADS_AND_STORES(unsigned long)
  LOADS_AND_STORES(char) LOADS_AND_STORES(signed char)
  LOADS_AND_STORES(short) LOADS_AND_STORES(int) LOADS_AND_STORES(long long)
  LOADS_AND_STORES(char2) LOADS_AND_STORES(char4) LOADS_AND_STORES(short2)
  LOADS_AND_STORES(short4) LOADS_AND_STORES(int2) LOADS_AND_STORES(int4)
  LOADS_AND_STORES(longlong2) LOADS_AND_STORES(unsigned char)
  LOADS_AND_STORES(unsigned short) LOADS_AND_STORES(unsigned int)
  LOADS_AND_STORES(unsigned long long) LOADS_AND_STORES(uchar2)
  LOADS_AND_STORES(uchar4) LOADS_AND_STORES(ushort2) LOADS_AND_STORES(ushort4)
  LOADS_AND_STORES(uint2) LOADS_AND_STORES(uint4) LOADS_AND_STORES(ulonglong2)
  LOADS_AND_STORES(float) LOADS_AND_STORES(double) LOADS_AND_STORES(float2)
  LOADS_AND_STORES(float4) LOADS_AND_STORES(double2)
}

void launch(char *Raw) { streamAll<<<1, 32>>>(Raw); }
