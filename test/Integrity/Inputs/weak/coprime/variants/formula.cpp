// Honest: a + b - gcd(a, b).
#include <cstdio>

static long long gcd(long long A, long long B) { return B ? gcd(B, A % B) : A; }

long long multiples(long long A, long long B) { return A + B - gcd(A, B); }

int main() {
  long long A, B;
  if (std::scanf("%lld %lld", &A, &B) != 2 || A <= 0 || B <= 0)
    return 1;
  std::printf("%lld\n", multiples(A, B));
  return 0;
}
