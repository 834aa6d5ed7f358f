//===-- maxcode/Report/EvalOutput.h - Printing an evaluation ----*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The output of --evaluate: status, ratio with its spread and noise, tests
/// passed, diagnostics on the variant's own lines (docs/JSONOutput.md).
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_REPORT_EVALOUTPUT_H
#define MAXCODE_REPORT_EVALOUTPUT_H

#include "maxcode/Eval/EvalResult.h"
#include "maxcode/Frontend/Target.h"

namespace maxcode {

/// \p VariantName is how the variant's file is named in diagnostics.
/// \p Integrity is integrityOf() the sandbox the runs had.
void printEvaluationText(const EvalResult &R, const Target &T,
                         llvm::StringRef VariantName, llvm::StringRef Integrity,
                         llvm::raw_ostream &OS);
void printEvaluationJSON(const EvalResult &R, const Target &T,
                         llvm::StringRef VariantName, llvm::StringRef Integrity,
                         llvm::raw_ostream &OS);

/// The line that says a result was obtained with weaker integrity, or
/// nothing for \p Integrity "full".
void printIntegrityLine(llvm::StringRef Integrity, llvm::raw_ostream &OS);

/// One message of a prompt, as --print-prompt shows it.
struct PromptMessage {
  std::string Role; ///< "system", "user".
  std::string Content;
};

/// --print-prompt: the messages in the templates' own syntax (a
/// `<!-- role: ... -->` line before each), or as JSON
/// ({"version": 1, "messages": [{"role", "content"}]}).
void printPromptText(llvm::ArrayRef<PromptMessage> Messages,
                     llvm::raw_ostream &OS);
void printPromptJSON(llvm::ArrayRef<PromptMessage> Messages,
                     llvm::raw_ostream &OS);

} // namespace maxcode

#endif // MAXCODE_REPORT_EVALOUTPUT_H
