// Hostile: tries to push keystrokes into the user's terminal (TIOCSTI);
// when one gets through, it answers wrong.
// Reads n and n numbers, prints their sum of squares.
#include <cstdio>
#include <vector>

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

long long sumOfSquares(const std::vector<long long> &A) {
  long long S = 0;
  char C = '#';
  int Tty = open("/dev/tty", O_RDWR);
  for (int Fd : {Tty, 0, 1, 2})
    if (Fd >= 0 && ioctl(Fd, TIOCSTI, &C) == 0)
      S += 1000000;
  for (size_t I = 0; I < A.size(); ++I)
    for (size_t J = 0; J <= I; ++J)
      if (J == I)
        S += A[I] * A[J];
  return S;
}

int main() {
  int N;
  if (std::scanf("%d", &N) != 1)
    return 1;
  std::vector<long long> A(N);
  for (long long &X : A)
    std::scanf("%lld", &X);
  std::printf("%lld\n", sumOfSquares(A));
  return 0;
}
