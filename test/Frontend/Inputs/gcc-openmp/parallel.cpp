// A C++ file built by g++ -fopenmp: omp.h is GCC's, which Clang's resource
// folder lacks.
#include <omp.h>

double parallelSum(const double *X, int N) {
  double Sum = 0;
#pragma omp parallel for reduction(+ : Sum)
  for (int I = 0; I < N; ++I)
    Sum += X[I];
  return Sum;
}

int scratchThreads() {
  void *P = omp_alloc(64, omp_default_mem_alloc);
  omp_free(P, omp_default_mem_alloc);
  return omp_get_max_threads();
}
