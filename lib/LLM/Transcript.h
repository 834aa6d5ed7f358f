//===-- Transcript.h - Recorded LLM exchanges on disk -----------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Record/replay of LLM exchanges. A directory holds one file per distinct
/// request, <sha256 of the canonical request>.json:
///
///   {"version": 1, "hash": "...", "request": {...},
///    "exchanges": [{"response": {...}} | {"error": "..."}, ...]}
///
/// in the order the calls were made, so that the k-th call of a request in
/// a replay gets the k-th recorded answer (calls beyond those recorded get
/// the last one). A failed call is recorded with its error message, so that
/// a replay fails where the recorded run failed. Private to lib/LLM.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_LLM_TRANSCRIPT_H
#define MAXCODE_LLM_TRANSCRIPT_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <mutex>
#include <string>

namespace maxcode {

/// One recorded answer: a reply body (JSON text) or an error message.
struct RecordedExchange {
  bool IsError = false;
  std::string Text;
};

class Transcript {
public:
  /// A directory to write to (created) or to read from (must exist).
  static llvm::Expected<std::unique_ptr<Transcript>> open(llvm::StringRef Dir,
                                                          bool ForReplay);

  /// Appends an exchange to the file of \p Hash. \p CanonicalRequest and
  /// \p ResponseJSON must already be free of secrets.
  llvm::Error record(llvm::StringRef Hash, llvm::StringRef CanonicalRequest,
                     const RecordedExchange &E);

  /// The next recorded exchange for \p Hash.
  llvm::Expected<RecordedExchange> replay(llvm::StringRef Hash);

  const std::string &directory() const { return Dir; }

private:
  explicit Transcript(std::string Dir) : Dir(std::move(Dir)) {}
  std::string pathFor(llvm::StringRef Hash) const;

  std::string Dir;
  std::mutex Mutex;
  /// Replay: calls answered so far, per hash.
  llvm::StringMap<unsigned> Served;
};

} // namespace maxcode

#endif // MAXCODE_LLM_TRANSCRIPT_H
