long long triangle(long long N);
