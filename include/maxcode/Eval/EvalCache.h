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
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <memory>
#include <mutex>
#include <optional>

struct sqlite3;

namespace maxcode {

llvm::json::Value toJSON(const EvalResult &R);
bool fromJSON(const llvm::json::Value &V, EvalResult &R, llvm::json::Path P);

/// An open SQLite file (WAL, busy timeout), shared by the evaluation cache
/// and the rollout store.
class SQLiteFile {
public:
  static llvm::Expected<std::shared_ptr<SQLiteFile>> open(llvm::StringRef Path);
  ~SQLiteFile();
  sqlite3 *handle() { return DB; }
  const std::string &path() const { return Path; }
  /// Runs statements without results; errors name the file.
  llvm::Error exec(llvm::StringRef SQL);
  std::recursive_mutex &mutex() { return Mutex; }

private:
  SQLiteFile() = default;
  sqlite3 *DB = nullptr;
  std::string Path;
  std::recursive_mutex Mutex;
};

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
