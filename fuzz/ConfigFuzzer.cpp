//===-- ConfigFuzzer.cpp - Fuzzing the .clang-maxcode reader --------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A `.clang-maxcode` file comes with the repository, so it is untrusted
/// (DESIGN section 10). The input is the file's text, read as a
/// repository's file and as the user's own; what it parses to is also
/// turned into clang-maxcode flags and merged, as the editor does. A
/// repository's file must never set a trusted key.
///
//===----------------------------------------------------------------------===//

#include "maxcode/Support/Config.h"
#include <cstdint>
#include <cstdlib>

using namespace maxcode;

static void check(llvm::StringRef Text, ConfigTrust Trust) {
  std::vector<std::string> Warnings;
  llvm::Expected<SearchOptions> O = parseConfig(
      Text, "/project", "/project/.clang-maxcode", Trust, &Warnings);
  if (!O) {
    llvm::consumeError(O.takeError());
    return;
  }
  if (Trust == ConfigTrust::Repository &&
      (O->LLMEndpoint || O->LLMApiKeyEnv || O->Sandbox || O->LLMRecord ||
       O->LLMReplay))
    abort();
  std::vector<std::string> Args = O->toArguments();
  for (const std::string &A : Args)
    if (!llvm::StringRef(A).starts_with("--"))
      abort();
  if (O->Tests && !O->Tests->empty() &&
      !llvm::StringRef(*O->Tests).starts_with("/"))
    abort();

  SearchOptions Merged;
  Merged.overrideWith(*O);
  if (Merged.toArguments() != Args)
    abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  check(Text, ConfigTrust::Repository);
  check(Text, ConfigTrust::User);
  return 0;
}
