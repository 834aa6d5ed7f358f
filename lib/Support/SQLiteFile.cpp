//===-- SQLiteFile.cpp - One open SQLite file -----------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/SQLiteFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <sqlite3.h>

using namespace maxcode;

llvm::Expected<std::shared_ptr<SQLiteFile>>
SQLiteFile::open(llvm::StringRef Path) {
  llvm::StringRef Dir = llvm::sys::path::parent_path(Path);
  if (!Dir.empty())
    if (std::error_code EC = llvm::sys::fs::create_directories(Dir))
      return llvm::createStringError("cannot create folder for store '" +
                                     Path.str() + "': " + EC.message());
  std::shared_ptr<SQLiteFile> F(new SQLiteFile());
  F->Path = Path.str();
  if (sqlite3_open_v2(F->Path.c_str(), &F->DB,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                          SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK)
    return llvm::createStringError(
        "cannot open store '" + Path.str() +
        "': " + (F->DB ? sqlite3_errmsg(F->DB) : "out of memory"));
  sqlite3_busy_timeout(F->DB, 10000);
  // WAL: a killed run loses at most the transaction in flight.
  if (llvm::Error E = F->exec("PRAGMA journal_mode=WAL; "
                              "PRAGMA synchronous=NORMAL;"))
    return E;
  return F;
}

SQLiteFile::~SQLiteFile() {
  if (DB)
    sqlite3_close_v2(DB);
}

llvm::Error SQLiteFile::exec(llvm::StringRef SQL) {
  std::lock_guard<std::recursive_mutex> L(Mutex);
  char *Msg = nullptr;
  std::string S = SQL.str();
  if (sqlite3_exec(DB, S.c_str(), nullptr, nullptr, &Msg) != SQLITE_OK) {
    std::string Text = Msg ? Msg : "unknown error";
    sqlite3_free(Msg);
    return llvm::createStringError("store '" + Path + "': " + Text);
  }
  return llvm::Error::success();
}
