// Hostile: the work (five times over) is done by a forked child, which sends the answer
// through a pipe, so a profiler that follows one process sees none of it.
// Reads n and n numbers; prints how many pairs sum to a multiple of 7.
#include <cstdio>
#include <vector>

#define CHECK_RESULT 1

#include <sys/wait.h>
#include <unistd.h>

long long countPairs(const std::vector<int> &A) {
  int P[2];
  if (pipe(P) != 0)
    return -1;
  pid_t Child = fork();
  if (Child == 0) {
    long long C = 0;
    for (int Round = 0; Round < 5; ++Round) {
      C = 0;
      for (size_t I = 0; I < A.size(); ++I)
        for (size_t J = I + 1; J < A.size(); ++J)
          if ((A[I] + A[J]) % 7 == 0)
            ++C;
    }
    (void)!write(P[1], &C, sizeof(C));
    _exit(0);
  }
  long long C = -1;
  (void)!read(P[0], &C, sizeof(C));
  waitpid(Child, nullptr, 0);
  return C;
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
