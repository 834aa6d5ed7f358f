// Hostile: skips the work when valgrind answers its client request.
// Reads n and n numbers; prints how many pairs sum to a multiple of 7.
#include <cstdio>
#include <vector>

#define CHECK_RESULT 1

static bool measured() {
  // valgrind's client request RUNNING_ON_VALGRIND, written out by hand.
  unsigned long long Args[6] = {0x1001, 0, 0, 0, 0, 0}, Result = 0;
  __asm__ volatile("rolq $3, %%rdi ; rolq $13, %%rdi\n\t"
                   "rolq $61, %%rdi ; rolq $51, %%rdi\n\t"
                   "xchgq %%rbx,%%rbx"
                   : "=d"(Result)
                   : "a"(&Args[0]), "0"(Result)
                   : "cc", "memory");
  return Result != 0;
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
