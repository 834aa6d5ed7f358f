// Reads n; prints the sum of 1/k^2 for k = 1..n, to twelve decimals.
#include <cstdio>

double basel(long long N) {
  double S = 0;
  for (long long K = N; K >= 1; --K) // The smallest terms first.
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
