//===-- Logger.cpp - The server's log on stderr ---------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/LSP/Logger.h"
#include "llvm/Support/raw_ostream.h"

using namespace maxcode::lsp;

void Logger::log(LogLevel L, const llvm::Twine &Message) {
  if (!enabled(L))
    return;
  static const char *const Prefix[] = {"E: ", "I: ", "V: "};
  std::lock_guard<std::mutex> Lock(Mu);
  OS << Prefix[static_cast<int>(L)] << Message << '\n';
  OS.flush();
}
