// Hostile: a grandchild in a session of its own that never ends (a sleep
// with a marker argument, so the test can look for it).
// Reads n and n numbers, prints their sum of squares.
#include <cstdio>
#include <vector>

#include <unistd.h>

long long sumOfSquares(const std::vector<long long> &A) {
  long long S = 0;
  if (fork() == 0) {
    setsid();
    if (fork() == 0) {
      execl("/bin/sleep", "sleep", "@MARKER@", static_cast<char *>(nullptr));
      _exit(1);
    }
    _exit(0);
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
