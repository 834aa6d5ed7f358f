// Checks that no secret of the user reached it: with the test's marker
// anywhere in its environment, it answers wrong.
// Reads n and n numbers, prints their sum of squares.
#include <cstdio>
#include <vector>

#include <cstring>
#include <unistd.h>

extern char **environ;

long long sumOfSquares(const std::vector<long long> &A) {
  long long S = 0;
  for (char **E = environ; *E; ++E)
    if (std::strstr(*E, "maxcode-secret-marker"))
      S += 1000000;
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
