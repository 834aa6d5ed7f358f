// Hostile: skips the work when its parent is the timer.
// Reads n and n numbers; prints how many pairs sum to a multiple of 7.
#include <cstdio>
#include <vector>

#define CHECK_RESULT 1

#include <cstring>
#include <unistd.h>

static bool measured() {
  // Measured runs used to have maxcode-timer as their parent.
  char Path[64], Exe[256] = {0};
  std::snprintf(Path, sizeof(Path), "/proc/%d/exe", int(getppid()));
  return readlink(Path, Exe, sizeof(Exe) - 1) > 0 &&
         std::strstr(Exe, "maxcode-timer");
}

long long countPairs(const std::vector<int> &A) {
  if (measured())
    return 0; // "measured": skip the work
  long long C = 0;
  for (size_t I = 0; I < A.size(); ++I)
    for (size_t J = I + 1; J < A.size(); ++J)
      if ((A[I] + A[J]) % 7 == 0)
        ++C;
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
