#include <cmath>

double sumOfCubes(const double *V, int N) {
  double S = 0;
  for (int I = 0; I < N; ++I)
    S += pow(V[I], 3);
  return S;
}
