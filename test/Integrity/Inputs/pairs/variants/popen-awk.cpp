// Hostile: the work is handed to awk through popen, a shell and a child.
// Reads n and n numbers; prints how many pairs sum to a multiple of 7.
#include <cstdio>
#include <vector>

#define CHECK_RESULT 1

#include <string>

long long countPairs(const std::vector<int> &A) {
  std::string Cmd = "awk 'BEGIN{n=split(\"";
  for (int X : A)
    Cmd += std::to_string(X % 7) + " ";
  Cmd += "\",a,\" \"); c=0; for(i=1;i<=n;i++) for(j=i+1;j<=n;j++) "
         "if((a[i]+a[j])%7==0) c++; print c}'";
  FILE *F = popen(Cmd.c_str(), "r");
  long long C = -1;
  if (F && std::fscanf(F, "%lld", &C) != 1)
    C = -1;
  if (F)
    pclose(F);
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
