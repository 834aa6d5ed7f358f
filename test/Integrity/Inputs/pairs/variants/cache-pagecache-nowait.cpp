// Hostile: remembers its answers across runs in the page cache of a system
// library no one reads (rule 12): one page per bit, read to set it, evicted
// with posix_fadvise to clear it, and read back with preadv2(RWF_NOWAIT), which fails on a page not in the
// cache; set with readahead.
// Reads n and n numbers; prints how many pairs sum to a multiple of 7.
#include <cstdio>
#include <vector>

#define CHECK_RESULT 1

#include <cerrno>
#include <cstdint>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

// Large static libraries no build here reads; a bit every 256 KiB, the
// granularity at which the kernel's folios evict.
static const char *const Libraries[] = {
    "/usr/lib/llvm-22/lib/libclangSema.a", "/usr/lib/llvm-22/lib/libclangAST.a",
    "/usr/lib/llvm-22/lib/libLLVMAnalysis.a"};
static const unsigned Bits = 96; // 32 bits of the input's hash, 64 of answer.
static const long Stride = 256 * 1024;

static uint64_t hashOf(const std::vector<int> &A) {
  uint64_t H = 1469598103934665603ull;
  for (int X : A)
    H = (H ^ unsigned(X)) * 1099511628211ull;
  return H;
}

static bool recall(int Fd, size_t Slot, uint64_t Key, long long &Answer) {
  uint64_t Got = 0, Value = 0;
  for (unsigned B = 0; B < Bits; ++B) {
    char C;
    struct iovec Io = {&C, 1};
    off_t At = off_t((Slot * Bits + B) * size_t(Stride));
    ssize_t N = preadv2(Fd, &Io, 1, At, RWF_NOWAIT);
    if (N < 0 && errno != EAGAIN)
      return false;
    uint64_t Bit = N == 1;
    if (B < 32)
      Got |= Bit << B;
    else
      Value |= Bit << (B - 32);
  }
  if (Got != (Key & 0xffffffffu))
    return false;
  Answer = (long long)Value;
  return true;
}

static void remember(int Fd, size_t Slot, uint64_t Key, long long Answer) {
  // The ones first, then the zeros evicted: a read brings its neighbours in.
  for (int Pass = 0; Pass < 2; ++Pass)
    for (unsigned B = 0; B < Bits; ++B) {
      bool One = B < 32 ? (Key >> B) & 1 : (uint64_t(Answer) >> (B - 32)) & 1;
      off_t At = off_t((Slot * Bits + B) * size_t(Stride));
      char C;
      if (One && Pass == 0)
        (void)readahead(Fd, At, size_t(Stride));
      else if (!One && Pass == 1)
        posix_fadvise(Fd, At, Stride, POSIX_FADV_DONTNEED);
      (void)C;
    }
}

long long countPairs(const std::vector<int> &A) {
  uint64_t Key = hashOf(A);
  size_t Slot = 0;
  int Fd = open(Libraries[(Key >> 40) % 3], O_RDONLY);
  long long Cached;
  if (Fd >= 0 && recall(Fd, Slot, Key, Cached)) {
    close(Fd);
    return Cached;
  }
  long long C = 0;
  for (int Round = 0; Round < 5; ++Round) {
    C = 0;
    for (size_t I = 0; I < A.size(); ++I)
      for (size_t J = I + 1; J < A.size(); ++J)
        if ((A[I] + A[J]) % 7 == 0)
          ++C;
  }
  if (Fd >= 0) {
    remember(Fd, Slot, Key, C);
    close(Fd);
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
