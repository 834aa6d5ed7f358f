//===-- Transport.cpp - Splitting the input into messages -----------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/LSP/Transport.h"
#include "maxcode/Support/Process.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/LSP/Logging.h"
#include "llvm/Support/raw_ostream.h"
#include <cerrno>
#include <poll.h>
#include <unistd.h>

using namespace maxcode;
using namespace maxcode::lsp;

MessageParser::~MessageParser() = default;

void MessageParser::unread(llvm::StringRef Bytes) {
  Buffer = Bytes.str() + Buffer.substr(Pos);
  Pos = 0;
}

void MessageParser::consume(size_t N) {
  Pos += N;
  // Compact now and then rather than on every message.
  if (Pos >= (64u << 10) && Pos * 2 >= Buffer.size()) {
    Buffer.erase(0, Pos);
    Pos = 0;
  }
}

/// \p Bytes for a log line: escaped, and cut short.
static std::string quoted(llvm::StringRef Bytes) {
  constexpr size_t Max = 60;
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << '\'';
  llvm::printEscapedString(Bytes.take_front(Max), OS);
  OS << (Bytes.size() > Max ? "...'" : "'");
  return Out;
}

std::optional<InputEvent> FramedParser::next() {
  while (true) {
    llvm::StringRef Rest = unreadBytes();
    if (PendingLength) {
      if (Rest.size() < *PendingLength)
        return std::nullopt;
      InputEvent E{InputEvent::Message, Rest.take_front(*PendingLength).str()};
      consume(*PendingLength);
      PendingLength.reset();
      return E;
    }

    // The header block ends at the first empty line.
    std::optional<size_t> BlockEnd;
    for (size_t LineStart = 0;;) {
      size_t NL = Rest.find('\n', LineStart);
      if (NL == llvm::StringRef::npos)
        break;
      if (Rest.slice(LineStart, NL).rtrim('\r').empty()) {
        BlockEnd = NL + 1;
        break;
      }
      LineStart = NL + 1;
    }
    if (!BlockEnd) {
      if (Rest.size() <= MaxHeaderBytes)
        return std::nullopt; // Wait for the rest of the header.
      // Keep an unfinished last line: it may be the start of a header.
      size_t LastNL = Rest.rfind('\n');
      size_t Drop = LastNL == llvm::StringRef::npos ? Rest.size() : LastNL + 1;
      InputEvent E{InputEvent::Skipped,
                   std::to_string(Drop) +
                       " bytes without a message header: " + quoted(Rest)};
      consume(Drop);
      return E;
    }

    llvm::StringRef Block = Rest.take_front(*BlockEnd);
    std::string BlockText = Block.str();
    consume(*BlockEnd);
    if (llvm::StringRef(BlockText).trim().empty())
      continue; // Stray line ends between frames.

    // Unknown header lines are ignored, as LSP allows; text glued before the
    // header name (garbage without a line end) is tolerated. The last
    // usable Content-Length wins.
    std::optional<uint64_t> Length;
    std::optional<std::string> Invalid;
    llvm::SmallVector<llvm::StringRef, 4> Lines;
    llvm::StringRef(BlockText).split(Lines, '\n');
    for (llvm::StringRef Line : Lines) {
      constexpr llvm::StringLiteral Name = "content-length:";
      size_t At = Line.find_insensitive(Name);
      if (At == llvm::StringRef::npos)
        continue;
      llvm::StringRef Value = Line.drop_front(At + Name.size()).trim();
      uint64_t N;
      if (Value.getAsInteger(10, N)) {
        Invalid = Value.str();
        continue;
      }
      Length = N;
    }
    if (!Length)
      return InputEvent{InputEvent::Skipped,
                        Invalid ? "invalid Content-Length " + quoted(*Invalid)
                                : "header without Content-Length: " +
                                      quoted(BlockText)};
    if (*Length > MaxContentLength)
      return InputEvent{InputEvent::Skipped,
                        "Content-Length " + std::to_string(*Length) +
                            " is over the limit of " +
                            std::to_string(MaxContentLength) + " bytes"};
    PendingLength = *Length;
  }
}

std::optional<InputEvent> FramedParser::finish() {
  llvm::StringRef Rest = unreadBytes();
  std::optional<InputEvent> E;
  if (PendingLength)
    E = InputEvent{
        InputEvent::Skipped,
        "input ended inside a message: " + std::to_string(Rest.size()) +
            " of " + std::to_string(*PendingLength) + " bytes"};
  else if (!Rest.trim().empty())
    E = InputEvent{InputEvent::Skipped,
                   "input ended inside a message header: " + quoted(Rest)};
  consume(Rest.size());
  PendingLength.reset();
  return E;
}

std::optional<InputEvent> DelimitedParser::next() {
  while (true) {
    llvm::StringRef Rest = unreadBytes();
    size_t NL = Rest.find('\n');
    if (NL == llvm::StringRef::npos)
      return std::nullopt;
    llvm::StringRef Line = Rest.take_front(NL).rtrim('\r');
    std::string LineText = Line.str();
    consume(NL + 1);
    Line = LineText;
    if (Line.trim() == "---") {
      if (llvm::StringRef(Current).trim().empty()) {
        Current.clear();
        continue;
      }
      InputEvent E{InputEvent::Message, std::move(Current)};
      Current.clear();
      return E;
    }
    if (Line.ltrim().starts_with("#"))
      continue;
    Current += Line;
    Current += '\n';
  }
}

std::optional<InputEvent> DelimitedParser::finish() {
  llvm::StringRef Rest = unreadBytes();
  if (!Rest.empty() && !Rest.ltrim().starts_with("#") && Rest.trim() != "---")
    Current += Rest.str();
  consume(Rest.size());
  if (llvm::StringRef(Current).trim().empty()) {
    Current.clear();
    return std::nullopt;
  }
  InputEvent E{InputEvent::Message, std::move(Current)};
  Current.clear();
  return E;
}

llvm::LogicalResult ClientInput::read(std::string &Json) {
  char Buf[65536];
  while (!Ended) {
    std::optional<InputEvent> E = Parser->next();
    if (!E && AtEnd) {
      E = Parser->finish();
      if (!E) {
        Ended = true;
        break;
      }
    }
    if (!E) {
      // An interrupt ends the input as its end would: the server then stops
      // its searches (their children and scratch with them) and exits.
      if (interrupted()) {
        Ended = true;
        break;
      }
      // Waiting in poll, not read: a signal may come on another thread, and
      // the interrupt's own timer restarts a read.
      struct pollfd P = {FD, POLLIN, 0};
      int Ready = ::poll(&P, 1, /*Timeout=*/100);
      if (Ready == 0 || (Ready < 0 && errno == EINTR))
        continue;
      ssize_t N = ::read(FD, Buf, sizeof(Buf));
      if (N < 0 && errno == EINTR)
        continue;
      if (N <= 0) {
        if (N < 0)
          llvm::lsp::Logger::error("cannot read the input: {0}",
                                   llvm::sys::StrError(errno));
        AtEnd = true;
        continue;
      }
      Parser->feed(llvm::StringRef(Buf, N));
      continue;
    }
    if (E->Kind == InputEvent::Skipped) {
      llvm::lsp::Logger::error("skipped input that is not a message: {0}",
                               E->Text);
      continue;
    }
    if (std::optional<std::string> Message = Vet(std::move(E->Text), *Parser)) {
      Json = std::move(*Message);
      return llvm::success();
    }
  }
  return llvm::failure();
}
