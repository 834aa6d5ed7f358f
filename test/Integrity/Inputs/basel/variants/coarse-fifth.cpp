// Approximate, hidden by printing less: a fifth of the terms and an
// estimate of the tail (1/M - 1/N), good to a few units in the twelfth
// decimal, printed to nine decimals.
#include <cstdio>

double basel(long long N) {
  long long M = N / 5;
  double S = 0;
  for (long long K = M; K >= 1; --K)
    S += 1.0 / (double(K) * double(K));
  return S + 1.0 / double(M) - 1.0 / double(N);
}

int main() {
  long long N;
  if (std::scanf("%lld", &N) != 1)
    return 1;
  std::printf("%.9f\n", basel(N));
  return 0;
}
