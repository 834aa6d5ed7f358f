// Checks that it was given descriptors 0, 1 and 2 only: with any other open,
// it answers wrong.
// Reads n and n numbers, prints their sum of squares.
#include <cstdio>
#include <vector>

#include <fcntl.h>

long long sumOfSquares(const std::vector<long long> &A) {
  long long S = 0;
  for (int Fd = 3; Fd < 1024; ++Fd)
    if (fcntl(Fd, F_GETFD) != -1)
      S += 1000000 + Fd;
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
