//===-- Debug.cpp - -debug-only in every build ----------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

// LLVM's debug machinery as a build with assertions declares it: libLLVM
// defines it in every build (only its options are left out of NDEBUG ones),
// and under NDEBUG the header would make isCurrentDebugType a macro that is
// always false. Debug.h has no inline code that NDEBUG changes.
#ifdef NDEBUG
#undef NDEBUG
#include "llvm/Support/Debug.h"
#define NDEBUG
#else
#include "llvm/Support/Debug.h"
#endif
#include "maxcode/Support/Debug.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

using namespace llvm;

void maxcode::enableDebugOutput(bool All, llvm::ArrayRef<std::string> Types) {
  if (!All && Types.empty())
    return;
  DebugFlag = true;
  // As LLVM's -debug-only: "a,b" and repeated occurrences alike.
  std::vector<std::string> Split;
  for (const std::string &T : Types) {
    SmallVector<StringRef, 8> Parts;
    StringRef(T).split(Parts, ',', -1, false);
    for (StringRef P : Parts)
      Split.push_back(P.trim().str());
  }
  std::vector<const char *> Ptrs;
  for (const std::string &T : Split)
    Ptrs.push_back(T.c_str());
  // An empty list is every type (-debug).
  setCurrentDebugTypes(Ptrs.data(), Ptrs.size());
}

bool maxcode::isDebugTypeOn(const char *Type) {
  return DebugFlag && isCurrentDebugType(Type);
}
