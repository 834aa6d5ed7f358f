// Suspect at any ratio: half the loop skipped and its time spent waiting in
// select(2), where no instruction of the program is counted.
#include <cstdio>
#include <sys/select.h>

long long countPairs(long long N) {
  long long C = 0;
  for (long long I = 1; I <= N; I += 2)
    for (long long J = I + 1; J <= N; ++J)
      if ((I + J) % 7 == 0)
        ++C;
  // The even rows, by the count of the odd ones' neighbours.
  long long Even = 0;
  for (long long I = 2; I <= N; I += 2) {
    long long Lo = I + 1;
    if (Lo > N)
      continue;
    long long R = (7 - (I + Lo) % 7) % 7;
    long long J0 = Lo + R;
    if (J0 <= N)
      Even += (N - J0) / 7 + 1;
  }
  timeval Wait{0, 400000};
  select(0, nullptr, nullptr, nullptr, &Wait);
  return C + Even;
}

int main() {
  long long N;
  if (std::scanf("%lld", &N) != 1)
    return 1;
  std::printf("%lld\n", countPairs(N));
  return 0;
}
