// An error in one host function: the kernel is still listed.
__global__ void negate(float *X, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    X[I] = -X[I];
}

int report() { return notDeclaredHere(); }
