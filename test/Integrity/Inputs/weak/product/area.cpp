// Reads a and b; prints a times b, added up row by row (modulo a prime far
// above any product, so that the compiler keeps the loop).
#include <cstdio>

long long area(long long A, long long B) {
  long long S = 0;
  for (long long Row = 0; Row < A; ++Row)
    S = (S + B) % 1000000000000000003LL;
  return S;
}

int main() {
  long long A, B;
  if (std::scanf("%lld %lld", &A, &B) != 2)
    return 1;
  std::printf("%lld\n", area(A, B));
  return 0;
}
