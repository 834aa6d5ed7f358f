// A structured binding used inside an OpenMP parallel loop: GCC compiles
// it, Clang says capturing it is "not yet supported".
#include <algorithm>
#include <vector>

void fill(std::vector<int> &Out, int Lo, int Hi) {
  auto [Min, Max] = std::minmax(Lo, Hi);
#pragma omp parallel for
  for (int I = Min; I < Max; ++I)
    Out[I] = I * 2;
}

int twice(int X) {
#pragma omp simd
  for (int I = 0; I < 1; ++I)
    X += X;
  return X;
}
