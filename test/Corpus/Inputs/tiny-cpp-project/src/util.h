#ifndef TINY_UTIL_H
#define TINY_UTIL_H
#include <vector>

// Found through the file's folder: the variants are checked on stdin.
inline int first(const std::vector<int> &V) { return V.empty() ? 0 : V[0]; }

#endif
