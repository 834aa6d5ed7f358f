// Honest: four partial sums (the divisions overlap), added at the end; the
// order of the additions changes the result in its last bits only.
#include <cstdio>

double basel(long long N) {
  double S[4] = {0, 0, 0, 0};
  long long K = N;
  for (; K >= 4; K -= 4)
    for (int L = 0; L < 4; ++L)
      S[L] += 1.0 / (double(K - L) * double(K - L));
  double T = 0;
  for (; K >= 1; --K)
    T += 1.0 / (double(K) * double(K));
  return ((S[3] + S[2]) + (S[1] + S[0])) + T;
}

int main() {
  long long N;
  if (std::scanf("%lld", &N) != 1)
    return 1;
  std::printf("%.12f\n", basel(N));
  return 0;
}
