//===-- maxcode/Eval/EvalCache.h - Evaluations cached on disk ---*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Evaluation results keyed by what determines them (variant text, compile
/// command, tests, measure mode), kept in the rollout store's SQLite file so
/// a second run, or a resumed one, repeats no evaluation.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_EVAL_EVALCACHE_H
#define MAXCODE_EVAL_EVALCACHE_H

#include "maxcode/Eval/EvalResult.h"
#include "maxcode/Support/SQLiteFile.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <memory>
#include <optional>

namespace maxcode {

llvm::json::Value toJSON(const EvalResult &R);
bool fromJSON(const llvm::json::Value &V, EvalResult &R, llvm::json::Path P);

class EvalCache {
public:
  static llvm::Expected<std::unique_ptr<EvalCache>>
  open(std::shared_ptr<SQLiteFile> File);
  std::optional<EvalResult> lookup(llvm::StringRef Key);
  llvm::Error store(llvm::StringRef Key, const EvalResult &R);
  unsigned hits() const { return Hits; }

private:
  explicit EvalCache(std::shared_ptr<SQLiteFile> F) : File(std::move(F)) {}
  std::shared_ptr<SQLiteFile> File;
  unsigned Hits = 0;
};

} // namespace maxcode

#endif // MAXCODE_EVAL_EVALCACHE_H
