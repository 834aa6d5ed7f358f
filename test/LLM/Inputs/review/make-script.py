#!/usr/bin/env python3
"""Writes the scripted server's script for search-llm-review.test.

--kind=oob: a running sum that reads one element past the vector's end (the
value is multiplied by zero, so every test passes). --kind=static: a
correct running sum that keeps a scratch buffer in a function-static pointer
allocated with new[] and never freed, and a GCC builtin.
"""
import argparse
import json

p = argparse.ArgumentParser()
p.add_argument("--kind", choices=["oob", "static"], required=True)
args = p.parse_args()

OOB = r"""long long prefixSums(const std::vector<int> &V) {
  long long Total = 0, S = 0;
  const int *P = V.data();
  for (size_t I = 0; I <= V.size(); ++I) {
    long long X = P[I];
    S += I < V.size() ? X : 0;
    Total += I < V.size() ? S % 1000003 : 0;
  }
  return Total;
}
"""

STATIC = r"""long long prefixSums(const std::vector<int> &V) {
  static long long *Scratch = 0;
  static size_t Capacity = 0;
  if (V.size() > Capacity) {
    Scratch = new long long[V.size()];
    Capacity = V.size();
  }
  long long Total = 0, S = 0;
  for (size_t I = 0; __builtin_expect(I < V.size(), 1); ++I) {
    S += V[I];
    Scratch[I] = S;
    Total += Scratch[I] % 1000003;
  }
  return Total;
}
"""

code = OOB if args.kind == "oob" else STATIC
replies = [
    {"match": "Make `prefixSums`", "times": 0,
     "content": "Idea: one running sum instead of a sum per prefix\n\n```cpp\n" +
                code + "```\n"},
    {"match": "# The change", "times": 0,
     "content": "Idea: nothing to remove\n\n```cpp\n" + code + "```\n"},
]
print(json.dumps({"replies": replies}, indent=1))
