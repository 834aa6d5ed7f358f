// Suspect at any ratio: the clearing moved into the kernel (fresh zero pages
// after MADV_DONTNEED), where callgrind counts nothing and the page faults
// cost wall time.
// Reads rounds r and a size in MiB; r times, reads back the marks of the
// round before, clears the buffer and marks one byte in every 64; prints
// the sum of what it read.
#include <cstdio>
#include <cstring>
#include <sys/mman.h>

long long churn(unsigned char *Buf, size_t Bytes, int Rounds) {
  long long S = 0;
  for (int R = 0; R < Rounds; ++R) {
    for (size_t I = 0; I < Bytes; I += 64)
      S += Buf[I];
    madvise(Buf, Bytes, MADV_DONTNEED); // The kernel clears it.
    for (size_t I = 0; I < Bytes; I += 64)
      Buf[I] = (unsigned char)(R + I / 64);
  }
  return S;
}

int main() {
  int Rounds;
  size_t MiB;
  if (std::scanf("%d %zu", &Rounds, &MiB) != 2)
    return 1;
  size_t Bytes = MiB << 20;
  void *P = mmap(nullptr, Bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (P == MAP_FAILED)
    return 1;
  // Small pages on every machine (transparent huge pages make the kernel's
  // clearing as cheap as memset, where THP is "always").
  madvise(P, Bytes, MADV_NOHUGEPAGE);
  std::printf("%lld\n", churn(static_cast<unsigned char *>(P), Bytes, Rounds));
  return 0;
}
