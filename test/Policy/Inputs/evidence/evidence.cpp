// Reads n and n bytes, then hashes them through a large table in an order
// the bytes decide: a byte read per call, a gather that misses the cache,
// a branch on the data, and one that stores where it is taken.
#include <cstdio>
#include <vector>

// Out of line, as a function of another file would be.
__attribute__((noinline)) unsigned mixOf(unsigned X) {
  return (X * 2654435761u) ^ (X >> 3);
}

unsigned long long work(unsigned N) {
  std::vector<unsigned char> Bytes(N);
  for (unsigned I = 0; I < N; ++I)
    Bytes[I] = (unsigned char)std::fgetc(stdin);
  std::vector<unsigned> Table(1u << 20);
  for (unsigned I = 0; I < Table.size(); ++I)
    Table[I] = I * 2654435761u;
  unsigned long long H = 0, Odd = 0;
  unsigned At = 1;
  for (unsigned Round = 0; Round < 2; ++Round)
    for (unsigned I = 0; I < N; ++I) {
      At = (At * 1103515245u + Bytes[I]) & ((1u << 20) - 1);
      H += Table[At];
      if (Table[At] & 1)
        Odd += H >> 3;
      else
        Odd ^= H;
    }
  // Where the small bytes are: a branch as random as the input.
  std::vector<unsigned> Small(N);
  unsigned Count = 0;
  for (unsigned Round = 0; Round < 4; ++Round)
    for (unsigned I = 0; I < N; ++I)
      if (Bytes[I] < 128)
        Small[Count++ % N] = I;
  unsigned Mixed = 0;
  for (unsigned Round = 0; Round < 4; ++Round)
    for (unsigned I = 0; I < N; ++I)
      Mixed += mixOf(Bytes[I] + Round);
  return H ^ Odd ^ Count ^ Mixed;
}

int main() {
  unsigned N;
  if (std::scanf("%u\n", &N) != 1)
    return 1;
  std::printf("%llu\n", work(N));
  return 0;
}
