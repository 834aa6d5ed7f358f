// OpenMP that Clang reads as it is.
void scale(float *V, int N) {
#pragma omp parallel for
  for (int I = 0; I < N; ++I)
    V[I] *= 2;
}
