// Hostile: fork through a raw system call, where no function named fork
// appears.
// Reads n and n numbers; prints how many pairs sum to a multiple of 7.
#include <cstdio>
#include <vector>

#define CHECK_RESULT 1

#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

long long countPairs(const std::vector<int> &A) {
  long Child = syscall(SYS_fork);
  if (Child == 0) {
    long long C = 0;
    for (size_t I = 0; I < A.size(); ++I)
      for (size_t J = I + 1; J < A.size(); ++J)
        if ((A[I] + A[J]) % 7 == 0)
          ++C;
    std::printf("%lld\n", C);
    std::fflush(stdout);
    _exit(0);
  }
  waitpid(pid_t(Child), nullptr, 0);
  std::fflush(stdout);
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
