// Honest: the largest terms first; the sum differs in its last bits only.
#include <cstdio>

double basel(long long N) {
  double S = 0;
  for (long long K = 1; K <= N; ++K)
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
