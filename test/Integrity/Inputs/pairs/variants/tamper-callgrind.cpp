// Hostile: writes fake, read-only callgrind profiles (by the names callgrind
// uses) before doing the work five times.
// Reads n and n numbers; prints how many pairs sum to a multiple of 7.
#include <cstdio>
#include <vector>

#define CHECK_RESULT 1

#include <sys/stat.h>
#include <unistd.h>

long long countPairs(const std::vector<int> &A) {
  const char *Fake = "version: 1\ncreator: callgrind-3.19.0\npid: 1\n"
                     "cmd: ./prog\npart: 1\n\npositions: line\n"
                     "events: Ir\nsummary: 100\n\nfl=prog.cpp\nfn=main\n"
                     "1 100\n\ntotals: 100\n";
  char Name[64];
  std::snprintf(Name, sizeof(Name), "callgrind.out.%d", int(getpid()));
  for (const char *N : {"callgrind.out", static_cast<const char *>(Name)}) {
    if (FILE *F = std::fopen(N, "w")) {
      std::fputs(Fake, F);
      std::fclose(F);
      chmod(N, 0444);
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
