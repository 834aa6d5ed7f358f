// Approximate: every term in single precision, summed in double.
#include <cstdio>

double basel(long long N) {
  double S = 0;
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
  std::printf("%.12f\n", basel(N));
  return 0;
}
