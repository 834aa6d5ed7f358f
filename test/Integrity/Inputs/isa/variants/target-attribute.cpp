// Ties the target to AVX2 with a function attribute.
// Reads n and n numbers; prints their sum.
#include <cstdio>
#include <vector>

__attribute__((target("avx2"))) long long total(const std::vector<int> &A) {
  long long S = 0;
  for (int X : A)
    S += X;
  return S;
}

int main() {
  int N;
  if (std::scanf("%d", &N) != 1)
    return 1;
  std::vector<int> A(N);
  for (int &X : A)
    if (std::scanf("%d", &X) != 1)
      return 1;
  std::printf("%lld\n", total(A));
  return 0;
}
