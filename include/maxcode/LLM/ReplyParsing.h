//===-- maxcode/LLM/ReplyParsing.h - Code in a model's reply ----*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Text-level reading of a model's reply: the fenced code blocks it holds
/// and which of them is the new code. Whether that code parses is for the
/// Rewrite layer to say; a reply with no usable block is an error whose
/// message is the reason, meant to be fed back to the model.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_LLM_REPLYPARSING_H
#define MAXCODE_LLM_REPLYPARSING_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace maxcode {

struct CodeBlock {
  /// The info string's first word, lower-cased ("cpp", "cuda", "" ...).
  std::string Language;
  /// The lines between the fences, ending with a newline.
  std::string Code;
  /// Line of the opening fence, from 1.
  unsigned Line = 0;
  /// False when the reply ended before the closing fence (a reply cut off
  /// at max_tokens).
  bool Closed = true;
};

/// Every fenced block (``` or ~~~, CommonMark rules: up to three spaces of
/// indentation, a closing fence of the same character at least as long),
/// in order.
std::vector<CodeBlock> extractCodeBlocks(llvm::StringRef Reply);

/// Whether a block's language tag may hold C++ or CUDA: "cpp", "c++",
/// "cxx", "cc", "c", "cuda", "cu", "h", "hpp", "cuh", or no tag.
bool isSourceLanguage(llvm::StringRef Language);

/// The block holding the new code of \p TargetName: among the closed blocks
/// in a source language (isSourceLanguage), those that mention \p
/// TargetName as an identifier (any block when TargetName is empty); the
/// last of them, since models show old code before new. A reply with no
/// such block is an error saying why: no code block at all, only blocks in
/// another language, an unterminated block (cut off), or no block that
/// mentions the target.
llvm::Expected<CodeBlock> chooseCodeBlock(llvm::StringRef Reply,
                                          llvm::StringRef TargetName);

/// The one line a reply says its idea in, outside its code blocks
/// ("Idea: read each packet with one call"), without the label and
/// markdown, at most 120 characters; empty when there is none.
std::string replyIdea(llvm::StringRef Reply);

} // namespace maxcode

#endif // MAXCODE_LLM_REPLYPARSING_H
