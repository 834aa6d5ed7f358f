//===-- maxcode/Support/SQLiteFile.h - One open SQLite file -----*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The store's SQLite file, opened once and shared: the evaluation cache
/// (Eval) and the rollout store (Search) keep their tables in it.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_SUPPORT_SQLITEFILE_H
#define MAXCODE_SUPPORT_SQLITEFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <mutex>
#include <string>

struct sqlite3;

namespace maxcode {

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

} // namespace maxcode

#endif // MAXCODE_SUPPORT_SQLITEFILE_H
