// Device code only the device pass sees: what nvcc compiles for the GPU
// under __CUDA_ARCH__, which a host-only parse skips.
#include <cuda_runtime.h>

#if defined(__CUDA_ARCH__)
__device__ float warpSum(float V) {
  for (int Off = 16; Off > 0; Off /= 2)
    V += __shfl_down_sync(0xffffffffu, V, Off);
  return V;
}
#endif

#if __CUDA_ARCH__ >= 700
__device__ int brokenOnDevice(int X) { return X + undeclaredOnDevice; }
#endif

__global__ void reduce(const float *In, float *Out, int N) {
  float V = threadIdx.x < N ? In[threadIdx.x] : 0.0f;
#ifdef __CUDA_ARCH__
  V = warpSum(V);
#endif
  if (threadIdx.x == 0)
    *Out = V;
}

void launch(const float *In, float *Out, int N) { reduce<<<1, 32>>>(In, Out, N); }
