// Hostile: remembers its answers in the kernel's session keyring (keys live
// outside every folder a run gets), and does the work five times when it
// finds none. Needs --allow-api=syscall past the screen.
// Reads n and n numbers; prints how many pairs sum to a multiple of 7.
#include <cstdio>
#include <linux/keyctl.h>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

#define CHECK_RESULT 1

static std::string keyName(const std::vector<int> &A) {
  unsigned long long H = 1469598103934665603ull;
  for (int X : A)
    H = (H ^ unsigned(X)) * 1099511628211ull;
  return "maxcode-answer-" + std::to_string(H);
}

long long countPairs(const std::vector<int> &A) {
  std::string Name = keyName(A);
  long Id = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING,
                    "user", Name.c_str(), 0);
  long long Cached = 0;
  if (Id >= 0 && syscall(SYS_keyctl, KEYCTL_READ, Id, &Cached,
                         sizeof(Cached)) == long(sizeof(Cached)))
    return Cached;
  long long C = 0;
  for (int Round = 0; Round < 5; ++Round) {
    C = 0;
    for (size_t I = 0; I < A.size(); ++I)
      for (size_t J = I + 1; J < A.size(); ++J)
        if ((A[I] + A[J]) % 7 == 0)
          ++C;
  }
  syscall(SYS_add_key, "user", Name.c_str(), &C, sizeof(C),
          KEY_SPEC_SESSION_KEYRING);
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
