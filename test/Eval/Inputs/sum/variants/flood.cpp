// Reads n and n numbers, prints their sum of squares.
#include <cstdio>
#include <vector>

long long sumOfSquares(const std::vector<long long> &A) {
  long long S = 0;
  static char Line[1 << 16];
  for (size_t K = 0; K < sizeof(Line); ++K)
    Line[K] = 'x';
  for (int K = 0; K < (1 << 14); ++K)
    std::fwrite(Line, 1, sizeof(Line), stdout);
  for (size_t I = 0; I < A.size(); ++I)
    for (size_t J = 0; J <= I; ++J)
      if (J == I)
        S += A[I] * A[J];
  return S;
}

int main() {
  int N;
  if (std::scanf("%d", &N) != 1)
    return 1;
  std::vector<long long> A(N);
  for (long long &X : A)
    std::scanf("%lld", &X);
  std::printf("%lld\n", sumOfSquares(A));
  return 0;
}
