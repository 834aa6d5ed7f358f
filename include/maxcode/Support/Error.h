//===-- maxcode/Support/Error.h - User errors, tool errors -----*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// DESIGN section 11's exit codes tell a mistake in the user's input (1)
/// from a failure of the tool itself or of the machine under it (2). The
/// libraries say which one an error is by its type: an InternalError is the
/// tool's (an output it cannot write, a broken installation, a store it
/// cannot update); every other error is about the input, and its message
/// names that input.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_SUPPORT_ERROR_H
#define MAXCODE_SUPPORT_ERROR_H

#include "llvm/Support/Error.h"
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace maxcode {

/// A failure that is not the user's: the tools exit 2 on it.
class InternalError : public llvm::ErrorInfo<InternalError> {
public:
  static char ID;
  explicit InternalError(std::string Message) : Message(std::move(Message)) {}
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;

private:
  std::string Message;
};

llvm::Error createInternalError(const llvm::Twine &Message);

/// \p E with every one of its parts made internal, messages kept.
llvm::Error makeInternal(llvm::Error E);

/// Prints \p E as `<Tool>: error: <message>` on \p OS, one line per part,
/// and returns the exit code DESIGN section 11 gives it: 2 when any part is
/// an InternalError, else 1.
int reportError(llvm::Error E, llvm::StringRef Tool, llvm::raw_ostream &OS);

} // namespace maxcode

#endif // MAXCODE_SUPPORT_ERROR_H
