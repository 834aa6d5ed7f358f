__global__ void shift(float *X, float S) { X[threadIdx.x] += S; }

void launchShift(float *X) { shift<<<1, 32>>>(X, 1.0f); }
