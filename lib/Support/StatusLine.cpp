//===-- StatusLine.cpp - A terminal's status line -------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/StatusLine.h"

using namespace maxcode;

StatusLine::StatusLine(llvm::raw_ostream &Out, bool Terminal)
    : Out(Out), Terminal(Terminal) {
  SetUnbuffered();
  // Colours as the stream beneath has them (WithColor's notes, warnings).
  enable_colors(Out.colors_enabled());
}

StatusLine::~StatusLine() {
  flush();
  keep();
}

void StatusLine::erase() {
  if (!Drawn)
    return;
  // Back to the line's start and clear it (VT100, as every terminal
  // emulator in use and ninja's status line).
  Out << "\r\x1b[K";
  Drawn = false;
}

void StatusLine::show(llvm::StringRef Text) {
  if (!Terminal)
    return;
  flush();
  erase();
  Status = Text.str();
  // Other output that left a line unfinished keeps it: the status goes on
  // the next line.
  if (MidLine) {
    Out << "\n";
    MidLine = false;
  }
  Out << Status;
  Drawn = true;
  Out.flush();
}

void StatusLine::keep() {
  if (Drawn)
    Out << "\n";
  Drawn = false;
  Status.clear();
  Out.flush();
}

void StatusLine::write_impl(const char *Ptr, size_t Size) {
  Written += Size;
  if (!Size)
    return;
  erase();
  Out.write(Ptr, Size);
  MidLine = Ptr[Size - 1] != '\n';
  if (!MidLine && !Status.empty()) {
    Out << Status;
    Drawn = true;
  }
  Out.flush();
}
