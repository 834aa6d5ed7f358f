// Hostile: writes a fake report into its parent's descriptors through
// /proc, then does the work five times.
// Reads n and n numbers; prints how many pairs sum to a multiple of 7.
#include <cstdio>
#include <vector>

#define CHECK_RESULT 1

#include <unistd.h>

long long countPairs(const std::vector<int> &A) {
  const char *Fake = "maxcode-timer-report 1\nwall_ns 1000\nuser_us 1\n"
                     "system_us 1\nmaxrss_kb 1\nexit 0\nsignal 0\n"
                     "main_pid 1\nkilled 0\nlog_bytes 0\n";
  for (int Fd = 3; Fd < 16; ++Fd) {
    char Path[64];
    std::snprintf(Path, sizeof(Path), "/proc/%d/fd/%d", int(getppid()), Fd);
    if (FILE *F = std::fopen(Path, "w")) {
      std::fputs(Fake, F);
      std::fclose(F);
    }
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
