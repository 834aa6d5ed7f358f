// Wrong but passing: a + b - 1, right only when a and b are coprime, as
// every test's are.
#include <cstdio>

long long multiples(long long A, long long B) { return A + B - 1; }

int main() {
  long long A, B;
  if (std::scanf("%lld %lld", &A, &B) != 2 || A <= 0 || B <= 0)
    return 1;
  std::printf("%lld\n", multiples(A, B));
  return 0;
}
