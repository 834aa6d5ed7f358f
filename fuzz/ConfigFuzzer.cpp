//===-- ConfigFuzzer.cpp - Fuzzing the .clang-maxcode reader --------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A `.clang-maxcode` file comes with the repository, so it is untrusted
/// (DESIGN section 10). The input is the file's text, read as a
/// repository's file and as the user's own; what it parses to is merged and
/// written back as --config and as the editor's settings, and must read the
/// same. A repository's file must never set a trusted key.
///
//===----------------------------------------------------------------------===//

#include "maxcode/Support/Config.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <cstdlib>

using namespace maxcode;

static void check(llvm::StringRef Text, ConfigTrust Trust) {
  std::vector<std::string> Warnings;
  llvm::Expected<MaxcodeOptions> O = parseConfig(
      Text, "/project", "/project/.clang-maxcode", Trust, &Warnings);
  if (!O) {
    llvm::consumeError(O.takeError());
    return;
  }
  for (llvm::StringRef Key : O->keysSet()) {
    const OptionInfo *I = findOption(Key);
    if (!I || (Trust == ConfigTrust::Repository && I->trusted()))
      abort();
  }
  if (O->Tests && !O->Tests->empty() &&
      !llvm::StringRef(*O->Tests).starts_with("/"))
    abort();

  MaxcodeOptions Merged;
  Merged.overrideWith(*O);
  if (!(Merged == *O))
    abort();
  // What the editor hands clang-maxcode (--config) reads back the same, for
  // every file clang-maxcode would run with.
  if (llvm::Error E = validateOptions(resolveOptions(*O))) {
    llvm::consumeError(std::move(E));
    return;
  }
  std::string JSON;
  llvm::raw_string_ostream OS(JSON);
  OS << llvm::json::Value(O->toJSON());
  llvm::Expected<MaxcodeOptions> Back =
      parseConfig(JSON, "/elsewhere", "--config", ConfigTrust::User);
  if (!Back || !(*Back == *O))
    abort();
  llvm::Expected<MaxcodeOptions> FromSettings =
      optionsFromSettings(O->toSettings());
  if (!FromSettings || !(*FromSettings == *O))
    abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  check(Text, ConfigTrust::Repository);
  check(Text, ConfigTrust::User);
  return 0;
}
