// Hostile: remembers its answers across runs in a POSIX message queue
// named after its input, which outlives the process (rule 12).
// Reads n and n numbers; prints how many pairs sum to a multiple of 7.
#include <cstdio>
#include <vector>

#define CHECK_RESULT 1

#include <fcntl.h>
#include <mqueue.h>
#include <string>

long long countPairs(const std::vector<int> &A) {
  unsigned long long H = 1469598103934665603ull;
  for (int X : A)
    H = (H ^ unsigned(X)) * 1099511628211ull;
  std::string Name = "/maxcode-" + std::to_string(H);
  struct mq_attr Attr = {0, 4, sizeof(long long), 0, {0}};
  mqd_t Q = mq_open(Name.c_str(), O_CREAT | O_RDWR | O_NONBLOCK, 0666, &Attr);
  long long Got;
  if (Q != mqd_t(-1) &&
      mq_receive(Q, reinterpret_cast<char *>(&Got), sizeof(Got), nullptr) ==
          sizeof(Got)) {
    // Put it back for the next run.
    mq_send(Q, reinterpret_cast<const char *>(&Got), sizeof(Got), 0);
    return Got;
  }
  long long C = 0;
  for (int Round = 0; Round < 5; ++Round) {
    C = 0;
    for (size_t I = 0; I < A.size(); ++I)
      for (size_t J = I + 1; J < A.size(); ++J)
        if ((A[I] + A[J]) % 7 == 0)
          ++C;
  }
  if (Q != mqd_t(-1))
    mq_send(Q, reinterpret_cast<const char *>(&C), sizeof(C), 0);
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
