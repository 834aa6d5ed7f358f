// Reads n; prints how many pairs 1 <= i < j <= n have i + j divisible by 7.
#include <cstdio>

long long countPairs(long long N) {
  long long C = 0;
  for (long long I = 1; I <= N; ++I)
    for (long long J = I + 1; J <= N; ++J)
      if ((I + J) % 7 == 0)
        ++C;
  return C;
}

int main() {
  long long N;
  if (std::scanf("%lld", &N) != 1)
    return 1;
  std::printf("%lld\n", countPairs(N));
  return 0;
}
