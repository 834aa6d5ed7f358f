// Hostile: leaves a read-only fake timer report where the timer used to
// write it (the working folder), then does the work five times.
// Reads n and n numbers; prints how many pairs sum to a multiple of 7.
#include <cstdio>
#include <vector>

#define CHECK_RESULT 1

#include <sys/stat.h>

long long countPairs(const std::vector<int> &A) {
  if (FILE *F = std::fopen("timing.txt", "w")) {
    std::fputs("1000 1 1 100 0 0\n", F);
    std::fclose(F);
    chmod("timing.txt", 0444);
  }
  long long C = 0;
  for (int Round = 0; Round < 5; ++Round) {
    C = 0;
    for (size_t I = 0; I < A.size(); ++I)
      for (size_t J = I + 1; J < A.size(); ++J)
        if ((A[I] + A[J]) % 7 == 0)
          ++C;
  }
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
