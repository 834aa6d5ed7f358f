// Parses with no error: one kernel, launched here, and its launcher.
__global__ void scale(float *X, float A, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    X[I] *= A;
}

void launchScale(float *X, float A, int N) {
  scale<<<(N + 255) / 256, 256>>>(X, A, N);
}
