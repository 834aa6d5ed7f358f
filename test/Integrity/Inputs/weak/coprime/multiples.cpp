// Reads a and b; prints how many of 1..a*b are multiples of a or of b.
#include <cstdio>

long long multiples(long long A, long long B) {
  long long C = 0;
  for (long long X = 1; X <= A * B; ++X)
    if (X % A == 0 || X % B == 0)
      ++C;
  return C;
}

int main() {
  long long A, B;
  if (std::scanf("%lld %lld", &A, &B) != 2 || A <= 0 || B <= 0)
    return 1;
  std::printf("%lld\n", multiples(A, B));
  return 0;
}
