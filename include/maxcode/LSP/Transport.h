//===-- maxcode/LSP/Transport.h - Reading messages --------------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The input side of maxcode-lsp's transport, LLVM's `JSONTransport`
/// (llvm/Support/LSP/Transport.h), which writes every message and dispatches
/// every one read. What reads them is ours, a `JSONTransportInput`:
/// LLVM's own reader (`JSONTransportInputOverFile`) buffers a body of up to
/// 1 GiB, stops at the first byte that is not a header and gives up on a
/// frame cut short, and `JSONTransport::run` returns at the first message
/// that is not JSON-RPC 2.0. An editor's server must outlive all of that.
///
/// The two ways messages are framed: `Content-Length` frames as editors send
/// them, and the readable `---`-separated messages of lit transcripts
/// (`-lit-test`, as clangd has). Both parsers are push parsers: bytes go in
/// as they are read, whole messages come out. Nothing a client sends can
/// make them fail for good: bytes that are not a message are skipped, and the
/// caller is told so.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_LSP_TRANSPORT_H
#define MAXCODE_LSP_TRANSPORT_H

#include "llvm/ADT/FunctionExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LSP/Transport.h"
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

namespace maxcode {
namespace lsp {

/// What a parser gives: one message body, or a note about skipped bytes.
struct InputEvent {
  enum EventKind { Message, Skipped };
  EventKind Kind = Message;
  /// The message body, or why bytes were skipped.
  std::string Text;
};

class MessageParser {
public:
  virtual ~MessageParser();
  /// Appends bytes read from the client.
  void feed(llvm::StringRef Bytes) {
    Buffer.append(Bytes.data(), Bytes.size());
  }
  /// Puts \p Bytes back in front of what is still unread. The server does
  /// this with the part of a frame body that is not JSON but holds the start
  /// of the next frame, as a truncated frame leaves it.
  void unread(llvm::StringRef Bytes);
  /// The next message or skip note, if the bytes so far hold one.
  virtual std::optional<InputEvent> next() = 0;
  /// At end of input: what is left over, if anything.
  virtual std::optional<InputEvent> finish() = 0;

protected:
  llvm::StringRef unreadBytes() const {
    return llvm::StringRef(Buffer).drop_front(Pos);
  }
  void consume(size_t N);

private:
  std::string Buffer;
  size_t Pos = 0;
};

/// LSP base protocol framing: header lines (`Content-Length: N` required,
/// others ignored), a blank line, then N bytes of body. Header lines may end
/// in "\r\n" or "\n". A header block without a usable length is skipped;
/// garbage before a header on the same line is tolerated.
class FramedParser : public MessageParser {
public:
  /// Larger bodies are refused rather than buffered.
  static constexpr size_t MaxContentLength = 256u << 20;
  /// Bytes without a blank line after which they are dropped as garbage.
  static constexpr size_t MaxHeaderBytes = 64u << 10;

  std::optional<InputEvent> next() override;
  std::optional<InputEvent> finish() override;

private:
  std::optional<size_t> PendingLength;
};

/// Messages as lit transcripts write them: JSON separated by lines holding
/// only `---`; lines starting with `#` (RUN and CHECK lines) are comments.
class DelimitedParser : public MessageParser {
public:
  std::optional<InputEvent> next() override;
  std::optional<InputEvent> finish() override;

private:
  std::string Current;
};

/// Messages from a file descriptor, through a parser, for LLVM's
/// `JSONTransport`. Each message body goes through \p Vet first, on the
/// reading thread, once the handler of the message before it has returned:
/// it gives the JSON text the transport dispatches (the body, or an answer
/// of the server's own making), or none to read on. Skipped bytes are
/// logged. The input ends at the end of the file (or at a read error,
/// logged), or at an interrupt (SIGTERM, SIGINT: installInterruptHandlers).
class ClientInput : public llvm::lsp::JSONTransportInput {
public:
  using VetFn = llvm::unique_function<std::optional<std::string>(
      std::string Body, MessageParser &Parser)>;

  ClientInput(std::unique_ptr<MessageParser> Parser, int FD, VetFn Vet)
      : Parser(std::move(Parser)), FD(FD), Vet(std::move(Vet)) {}

  bool hasError() const override { return false; }
  bool isEndOfInput() const override { return Ended; }
  // The parser, not the style, decides the framing.
  llvm::LogicalResult readDelimitedMessage(std::string &Json) override {
    return read(Json);
  }
  llvm::LogicalResult readStandardMessage(std::string &Json) override {
    return read(Json);
  }

private:
  llvm::LogicalResult read(std::string &Json);

  std::unique_ptr<MessageParser> Parser;
  int FD;
  VetFn Vet;
  bool AtEnd = false; ///< Nothing more to read from FD.
  bool Ended = false; ///< And nothing left in the parser.
};

} // namespace lsp
} // namespace maxcode

#endif // MAXCODE_LSP_TRANSPORT_H
