// Counts the letter 'a' in a word, Reps times over: the strlen in the loop
// condition runs on every iteration of the inner loop.
#include <cstdio>
#include <cstring>

unsigned long long countA(const char *S, unsigned Reps) {
  unsigned long long N = 0;
  for (unsigned R = 0; R < Reps; ++R)
    for (size_t I = 0; I < std::strlen(S); ++I)
      N += S[I] == 'a';
  return N;
}

int main() {
  char Buf[128];
  unsigned Reps;
  if (std::scanf("%127s %u", Buf, &Reps) != 2)
    return 1;
  std::printf("%llu\n", countA(Buf, Reps));
  return 0;
}
