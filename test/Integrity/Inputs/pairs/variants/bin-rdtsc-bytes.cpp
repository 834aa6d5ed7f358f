// Hostile: the time-stamp counter read by machine code kept as bytes in a
// code section (no name, no asm statement for the screen to see); a run
// that takes many cycles (valgrind's) skips the work.
// Reads n and n numbers; prints how many pairs sum to a multiple of 7.
#include <cstdio>
#include <vector>

#define CHECK_RESULT 1

// rdtsc; shl $32, %rdx; or %rdx, %rax; ret
__attribute__((section(".text.stamp"), used)) static const unsigned char
    Stamp[] = {0x0f, 0x31, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0xc3};

long long countPairs(const std::vector<int> &A) {
  auto Cycles = reinterpret_cast<unsigned long long (*)()>(
      reinterpret_cast<const void *>(Stamp));
  unsigned long long T0 = Cycles();
  long long C = 0;
  for (size_t I = 0; I < A.size() && (I < 64 || Cycles() - T0 < 50000000);
       ++I)
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
