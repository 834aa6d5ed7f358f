// Honest: the product.
#include <cstdio>

long long area(long long A, long long B) { return A * B % 1000000000000000003LL; }

int main() {
  long long A, B;
  if (std::scanf("%lld %lld", &A, &B) != 2)
    return 1;
  std::printf("%lld\n", area(A, B));
  return 0;
}
