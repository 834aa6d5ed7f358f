// Hostile: the answer (worked out five times over) is printed by a
// grandchild in a session of its own,
// after the measured process has already exited.
// Reads n and n numbers; prints how many pairs sum to a multiple of 7.
#include <cstdio>
#include <vector>

#define CHECK_RESULT 1

#include <unistd.h>

long long countPairs(const std::vector<int> &A) {
  if (fork() == 0) {
    setsid();
    if (fork() == 0) {
      long long C = 0;
      for (int Round = 0; Round < 5; ++Round) {
        C = 0;
        for (size_t I = 0; I < A.size(); ++I)
          for (size_t J = I + 1; J < A.size(); ++J)
            if ((A[I] + A[J]) % 7 == 0)
              ++C;
      }
      std::printf("%lld\n", C);
      std::fflush(stdout);
      _exit(0);
    }
    _exit(0);
  }
  _exit(0);
}

int main() {
  int N;
  if (std::scanf("%d", &N) != 1)
    return 1;
  std::vector<int> A(N);
  for (int &X : A)
    if (std::scanf("%d", &X) != 1)
      return 1;
  long long R = countPairs(A);
#if CHECK_RESULT
  if (R < 0)
    return 2;
#endif
  std::printf("%lld\n", R);
  return 0;
}
