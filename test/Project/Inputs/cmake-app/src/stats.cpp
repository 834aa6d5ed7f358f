#include "stats.h"

// The mean of V[From, From + Width).
static double meanOf(std::vector<double> V, size_t From, size_t Width) {
  double S = 0;
  for (size_t I = From; I < From + Width; ++I)
    S += V[I];
  return S / double(Width);
}

long long windowsAbove(const std::vector<double> &V, size_t Width,
                       double Threshold) {
  long long N = 0;
  for (size_t I = 0; I + Width <= V.size(); ++I)
    if (meanOf(V, I, Width) > Threshold)
      ++N;
  return N;
}
