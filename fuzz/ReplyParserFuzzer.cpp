//===-- ReplyParserFuzzer.cpp - Fuzzing the reading of a model's reply ----===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A reply comes from an LLM endpoint, so every byte of it is untrusted. The
/// input's first line is the target's name, the rest is the reply. Besides
/// crashes, the fuzzer checks what chooseCodeBlock promises: the block it
/// picks is one extractCodeBlocks found, closed, in a source language, and
/// not empty; the idea read from it is one line of at most 120 characters.
///
//===----------------------------------------------------------------------===//

#include "maxcode/LLM/ReplyParsing.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <cstdlib>

using namespace maxcode;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Input(reinterpret_cast<const char *>(Data), Size);
  auto [TargetName, Reply] = Input.split('\n');

  std::vector<CodeBlock> Blocks = extractCodeBlocks(Reply);
  for (const CodeBlock &B : Blocks)
    if (B.Line == 0 || (!B.Code.empty() && B.Code.back() != '\n'))
      abort();

  std::string Idea = replyIdea(Reply);
  if (Idea.size() > 120 || llvm::StringRef(Idea).contains('\n'))
    abort();

  llvm::Expected<CodeBlock> Chosen = chooseCodeBlock(Reply, TargetName);
  if (!Chosen) {
    llvm::consumeError(Chosen.takeError());
    return 0;
  }
  if (!Chosen->Closed || !isSourceLanguage(Chosen->Language) ||
      llvm::StringRef(Chosen->Code).trim().empty())
    abort();
  bool Found = false;
  for (const CodeBlock &B : Blocks)
    Found |= B.Line == Chosen->Line && B.Code == Chosen->Code;
  if (!Found)
    abort();
  return 0;
}
