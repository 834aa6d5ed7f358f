// The target: the sum of i*i mod 7 for i below N.
long long work(long long N) {
  long long S = 0;
  for (long long I = 0; I < N; ++I)
    S += (I * I) % 7;
  return S;
}
