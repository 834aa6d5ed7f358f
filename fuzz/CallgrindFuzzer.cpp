//===-- CallgrindFuzzer.cpp - Fuzzing the callgrind profile reader --------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Callgrind's output is written by the profiled program's process, which
/// runs the user's (or a variant's) code. The input is one output file; a
/// profile that parses is also merged and attributed to targets named after
/// its functions, as --profile-cmd does.
///
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/Profile.h"
#include <cstdint>
#include <cstdlib>

using namespace maxcode;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<CallgrindProfile> P = parseCallgrind(Text);
  if (!P) {
    llvm::consumeError(P.takeError());
    return 0;
  }

  // Every second function is a target, and the first is a target twice.
  std::vector<Target> Targets;
  unsigned I = 0;
  for (const auto &KV : P->Functions) {
    if (I++ % 2)
      continue;
    Target T;
    T.Name = callgrindBaseName(KV.getKey()).str();
    T.MangledNames.push_back(KV.getKey().str());
    Targets.push_back(std::move(T));
  }
  if (!Targets.empty())
    Targets.push_back(Targets.front());
  attributeProfile(*P, Targets);
  for (const Target &T : Targets)
    if (!T.Share || !(*T.Share >= 0 && *T.Share <= 1))
      abort();

  CallgrindProfile Twice = *P;
  Twice.merge(*P);
  if (Twice.Functions.size() != P->Functions.size())
    abort();
  return 0;
}
