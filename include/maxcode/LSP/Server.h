//===-- maxcode/LSP/Server.h - The maxcode-lsp language server --*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A small language server that runs beside clangd and offers one code
/// action, "MaxCode: optimise `NAME`", on the functions and kernels of a file
/// (the targets the command line lists). Executing it runs a search in the
/// background, reports `$/progress`, can be cancelled, and sends the verified
/// winner back as a `workspace/applyEdit`. docs/Editors.md describes the
/// protocol it speaks and how editors start it.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_LSP_SERVER_H
#define MAXCODE_LSP_SERVER_H

#include "maxcode/Frontend/NvccAdjuster.h"
#include <memory>
#include <optional>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace maxcode {
namespace lsp {

class MessageParser;
class OptimizeRunner;

struct ServerOptions {
  /// Indent the JSON written (for people and lit transcripts).
  bool Pretty = false;
  /// Handle each message only once every search started before it is done
  /// or waiting for the client, so transcripts are deterministic.
  /// Cancellations are still handled as soon as they are read.
  bool Sync = false;
  /// Where `test:///` URIs point; unset, they are rejected.
  std::optional<std::string> TestRoot;
  /// How Clang finds its headers when the server lists targets.
  ParseSettings Parse;
};

class Server {
public:
  /// Replies and notifications are written, framed, to \p Out; the log is
  /// LLVM's (llvm::lsp::Logger, on stderr).
  Server(ServerOptions Opts, OptimizeRunner &Runner, llvm::raw_ostream &Out);
  ~Server();

  /// Reads messages from file descriptor \p InputFD through \p Parser until
  /// `exit` or the end of the input. Returns the exit code of the process:
  /// 0 when `exit` followed `shutdown`, 1 otherwise (as LSP says).
  int run(std::unique_ptr<MessageParser> Parser, int InputFD);

private:
  class Impl;
  std::unique_ptr<Impl> I;
};

} // namespace lsp
} // namespace maxcode

#endif // MAXCODE_LSP_SERVER_H
