__global__ void scale(float *X, float S) { X[threadIdx.x] *= S; }

int checked() {
#if PRELUDE_VERSION != 2
  return undeclaredUnlessVersion2;
#endif
  return PRELUDE_VERSION;
}

void launchScale(float *X) { scale<<<1, 32>>>(X, 2.0f); }
