// Hostile: valgrind's client request (the preamble valgrind.h emits, then
// xchg %rbx,%rbx) kept as bytes in a code section: under callgrind it
// toggles the instruction count off around the work.
// Reads n and n numbers; prints how many pairs sum to a multiple of 7.
#include <cstdio>
#include <vector>

#define CHECK_RESULT 1

// mov %rdi, %rax (the request's arguments); the preamble; xchg; ret
__attribute__((section(".text.request"), used)) static const unsigned char
    Request[] = {0x48, 0x89, 0xf8, 0x48, 0xc1, 0xc7, 0x03, 0x48, 0xc1,
                 0xc7, 0x0d, 0x48, 0xc1, 0xc7, 0x3d, 0x48, 0xc1, 0xc7,
                 0x33, 0x48, 0x87, 0xdb, 0xc3};

long long countPairs(const std::vector<int> &A) {
  // CALLGRIND_TOGGLE_COLLECT is request 0x43540000 + 2.
  unsigned long Args[6] = {0x43540002, 0, 0, 0, 0, 0};
  auto Send = reinterpret_cast<void (*)(unsigned long *)>(
      reinterpret_cast<const void *>(Request));
  Send(Args);
  long long C = 0;
  for (size_t I = 0; I < A.size(); ++I)
    for (size_t J = I + 1; J < A.size(); ++J)
      if ((A[I] + A[J]) % 7 == 0)
        ++C;
  Send(Args);
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
