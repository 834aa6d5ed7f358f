// The library's qualifiers, as CUDA libraries spell them once.
#pragma once
#define OPS_DEVICE __device__ __forceinline__
#define OPS_KERNEL __global__
