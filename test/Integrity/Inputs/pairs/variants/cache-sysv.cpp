// Hostile: remembers its answers across runs in a System V shared memory
// segment named by a key from its input (rule 12).
// Reads n and n numbers; prints how many pairs sum to a multiple of 7.
#include <cstdio>
#include <vector>

#define CHECK_RESULT 1

#include <sys/ipc.h>
#include <sys/shm.h>

long long countPairs(const std::vector<int> &A) {
  unsigned long long H = 1469598103934665603ull;
  for (int X : A)
    H = (H ^ unsigned(X)) * 1099511628211ull;
  key_t Key = key_t(H & 0x7fffffff);
  int Id = shmget(Key, sizeof(long long) * 2, IPC_CREAT | 0666);
  long long *Mem = nullptr;
  if (Id >= 0) {
    void *P = shmat(Id, nullptr, 0);
    if (P != (void *)-1)
      Mem = static_cast<long long *>(P);
  }
  if (Mem && Mem[0] == 1)
    return Mem[1];
  long long C = 0;
  for (int Round = 0; Round < 5; ++Round) {
    C = 0;
    for (size_t I = 0; I < A.size(); ++I)
      for (size_t J = I + 1; J < A.size(); ++J)
        if ((A[I] + A[J]) % 7 == 0)
          ++C;
  }
  if (Mem) {
    Mem[1] = C;
    Mem[0] = 1;
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
