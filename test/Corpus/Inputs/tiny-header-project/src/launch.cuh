#pragma once
#include "kernels/saxpy.cuh"

inline void launchSaxpy(float *Y, const float *X, float A, int N) {
  saxpy<<<(N + 255) / 256, 256>>>(Y, X, A, N);
}
