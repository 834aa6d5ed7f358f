// CUDA code through another header's macros only: no CUDA word here. It is
// read as CUDA because what it includes is.
#pragma once
#include "ops_macros.hxx"

OPS_DEVICE float clampUnit(float X) { return X < 0 ? 0 : X > 1 ? 1 : X; }

template <typename T> OPS_KERNEL void clampAll(T *P, int N) {
  for (int I = 0; I < N; ++I)
    P[I] = clampUnit(P[I]);
}
