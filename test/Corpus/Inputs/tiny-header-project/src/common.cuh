#pragma once
__device__ inline float scaled(float A, float X) { return A * X; }
