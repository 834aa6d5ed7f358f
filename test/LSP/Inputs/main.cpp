static long square(long X) { return X * X; }

long sumSquares(const long *V, int N) {
  long S = 0;
  for (int I = 0; I < N; ++I)
    S += square(V[I]);
  return S;
}
