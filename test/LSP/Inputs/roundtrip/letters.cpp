// A small program with a target the rules policy can speed up:
// countLetters() calls strlen() in its loop condition, so it is quadratic in
// the length of the word (the compiler cannot hoist it: the loop writes
// memory that, for all it knows, could be the word's).
#include <cstdio>
#include <cstring>

static char Word[1 << 20];
static long long Counts[256];

void countLetters(const char *S) {
  for (size_t I = 0; I < strlen(S); ++I)
    ++Counts[(unsigned char)S[I]];
}

int main() {
  while (scanf("%1048575s", Word) == 1)
    countLetters(Word);
  long long Checksum = 0;
  for (int C = 0; C < 256; ++C)
    Checksum = (Checksum * 31 + Counts[C]) % 1000000007;
  printf("%lld\n", Checksum);
  return 0;
}
