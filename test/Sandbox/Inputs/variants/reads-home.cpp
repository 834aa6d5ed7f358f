// Hostile: reads a file from the user's home folder (its path is given
// by the test); when it can, it answers wrong.
// Reads n and n numbers, prints their sum of squares.
#include <cstdio>
#include <vector>

#include <cstdio>

long long sumOfSquares(const std::vector<long long> &A) {
  long long S = 0;
  if (std::FILE *F = std::fopen("@SECRET@", "r")) {
    S += 1000000;
    std::fclose(F);
  }
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
