// The bundled example for clang-maxcode's quick start: a small program written
// the way contest code often is, with the usual performance mistakes (stream
// I/O flushed on every line, pow for squares, a by-value vector, an ordered
// map whose order is never used).
//
// Input: n k, then n integers. Output: for each of the first n/50 prefixes of
// the numbers, a checksum of squared residues modulo k, then the number of
// pairs whose sum is divisible by k.
#include <cmath>
#include <iostream>
#include <map>
#include <vector>

using namespace std;

long long squaredResidues(vector<long long> Values, int K, int Count) {
  long long Sum = 0;
  for (int I = 0; I < Count; ++I)
    Sum += (long long)pow(Values[I] % K, 2);
  return Sum;
}

int main() {
  int N, K;
  cin >> N >> K;
  vector<long long> A;
  for (int I = 0; I < N; ++I) {
    long long X;
    cin >> X;
    A.push_back(X);
  }
  for (int P = 1; P <= N / 50; ++P)
    cout << squaredResidues(A, K, P * 50) % 1000003 << endl;
  map<long long, long long> Count;
  for (int I = 0; I < N; ++I)
    Count[A[I] % K]++;
  long long Pairs = 0;
  for (int R = 0; R < K; ++R) {
    int S = (K - R) % K;
    if (R < S)
      Pairs += Count[R] * Count[S];
    else if (R == S)
      Pairs += Count[R] * (Count[R] - 1) / 2;
  }
  cout << Pairs << endl;
  return 0;
}
