//===-- maxcode/LSP/Logger.h - The server's log on stderr -------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// stdout belongs to the protocol, so everything else goes to stderr, where
/// editors show it as the server's log. Safe to use from any thread.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_LSP_LOGGER_H
#define MAXCODE_LSP_LOGGER_H

#include "llvm/ADT/Twine.h"
#include <mutex>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace maxcode {
namespace lsp {

enum class LogLevel { Error, Info, Verbose };

class Logger {
public:
  Logger(llvm::raw_ostream &OS, LogLevel Max) : OS(OS), Max(Max) {}
  bool enabled(LogLevel L) const { return L <= Max; }
  /// Writes one line, prefixed by "E: ", "I: " or "V: ".
  void log(LogLevel L, const llvm::Twine &Message);
  void error(const llvm::Twine &M) { log(LogLevel::Error, M); }
  void info(const llvm::Twine &M) { log(LogLevel::Info, M); }
  void verbose(const llvm::Twine &M) { log(LogLevel::Verbose, M); }

private:
  std::mutex Mu;
  llvm::raw_ostream &OS;
  LogLevel Max;
};

} // namespace lsp
} // namespace maxcode

#endif // MAXCODE_LSP_LOGGER_H
