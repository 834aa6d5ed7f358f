// Approximate, hidden by printing less: single-precision terms and sum,
// printed in scientific notation to seven significant digits.
#include <cstdio>

float basel(long long N) {
  float S = 0;
  for (long long K = N; K >= 1; --K) {
    float F = float(K);
    S += 1.0f / (F * F);
  }
  return S;
}

int main() {
  long long N;
  if (std::scanf("%lld", &N) != 1)
    return 1;
  std::printf("%.6e\n", double(basel(N)));
  return 0;
}
