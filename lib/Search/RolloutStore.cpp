//===-- RolloutStore.cpp - Runs, nodes, evaluations -----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Search/RolloutStore.h"
#include "maxcode/Support/Debug.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <sqlite3.h>

#define DEBUG_TYPE "maxcode-store"

using namespace maxcode;

namespace {
/// A prepared statement that finalises itself.
class Statement {
public:
  Statement(SQLiteFile &F, const char *SQL) : F(F) {
    if (sqlite3_prepare_v2(F.handle(), SQL, -1, &S, nullptr) != SQLITE_OK)
      S = nullptr;
  }
  ~Statement() { sqlite3_finalize(S); }
  explicit operator bool() const { return S; }
  Statement &bind(int I, llvm::StringRef V) {
    sqlite3_bind_text(S, I, V.data(), V.size(), SQLITE_TRANSIENT);
    return *this;
  }
  Statement &bind(int I, int64_t V) {
    sqlite3_bind_int64(S, I, V);
    return *this;
  }
  Statement &bindDouble(int I, double V) {
    sqlite3_bind_double(S, I, V);
    return *this;
  }
  Statement &bindNull(int I) {
    sqlite3_bind_null(S, I);
    return *this;
  }
  int step() { return sqlite3_step(S); }
  std::string text(int C) {
    const unsigned char *T = sqlite3_column_text(S, C);
    return T ? reinterpret_cast<const char *>(T) : "";
  }
  int64_t integer(int C) { return sqlite3_column_int64(S, C); }
  double real(int C) { return sqlite3_column_double(S, C); }
  llvm::Error error() {
    return llvm::createStringError("store '" + F.path() +
                                   "': " + sqlite3_errmsg(F.handle()));
  }

private:
  SQLiteFile &F;
  sqlite3_stmt *S = nullptr;
};

std::string jsonText(const llvm::json::Value &V) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << V;
  return OS.str();
}
} // namespace

static const char *Schema = R"sql(
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  file TEXT NOT NULL,
  target TEXT NOT NULL,
  original_sha256 TEXT NOT NULL,
  original_text TEXT NOT NULL,
  config TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'running',
  winner_node INTEGER,
  verified INTEGER,
  verified_ratio REAL,
  evaluations INTEGER,
  from_cache INTEGER,
  stop_reason TEXT,
  started_at REAL NOT NULL DEFAULT (julianday('now')),
  finished_at REAL);
CREATE TABLE IF NOT EXISTS nodes (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  id INTEGER NOT NULL,
  parent INTEGER,
  depth INTEGER NOT NULL,
  variant_sha256 TEXT NOT NULL,
  variant_text TEXT NOT NULL,
  description TEXT NOT NULL,
  rules TEXT NOT NULL,
  status TEXT NOT NULL,
  reward REAL NOT NULL,
  value REAL NOT NULL,
  evaluation TEXT NOT NULL,
  critique TEXT NOT NULL,
  critique_tags TEXT NOT NULL,
  rtg_features TEXT NOT NULL,
  rtg_score REAL NOT NULL,
  from_cache INTEGER NOT NULL,
  created_at REAL NOT NULL DEFAULT (julianday('now')),
  PRIMARY KEY (run_id, id));
CREATE TABLE IF NOT EXISTS llm_calls (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id INTEGER,
  model TEXT NOT NULL,
  request_sha256 TEXT NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  created_at REAL NOT NULL DEFAULT (julianday('now')),
  role TEXT NOT NULL DEFAULT '',
  attempts INTEGER NOT NULL DEFAULT 0,
  replayed INTEGER NOT NULL DEFAULT 0,
  error TEXT NOT NULL DEFAULT '',
  notes TEXT NOT NULL DEFAULT '[]');
CREATE TABLE IF NOT EXISTS rtg_models (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  model TEXT NOT NULL,
  spearman REAL NOT NULL,
  examples INTEGER NOT NULL,
  created_at REAL NOT NULL DEFAULT (julianday('now')));
)sql";

llvm::Expected<std::unique_ptr<RolloutStore>>
RolloutStore::open(std::shared_ptr<SQLiteFile> F) {
  // The evaluation cache's table lives in the same file.
  auto Cache = EvalCache::open(F);
  if (!Cache)
    return Cache.takeError();
  if (llvm::Error E = F->exec(Schema))
    return E;
  {
    Statement S(*F, "SELECT value FROM meta WHERE key = 'schema_version'");
    if (S && S.step() == SQLITE_ROW) {
      std::string V = S.text(0);
      if (V != std::to_string(RolloutStoreSchemaVersion))
        return llvm::createStringError(
            "store '" + F->path() + "' has schema version " + V +
            "; this clang-maxcode reads version " +
            std::to_string(RolloutStoreSchemaVersion));
    }
  }
  // Stores written before llm_calls said what became of each call get the
  // columns added (empty for their old rows).
  {
    llvm::StringSet<> Columns;
    Statement S(*F, "PRAGMA table_info(llm_calls)");
    while (S && S.step() == SQLITE_ROW)
      Columns.insert(S.text(1));
    for (const char *Add :
         {"role TEXT NOT NULL DEFAULT ''",
          "attempts INTEGER NOT NULL DEFAULT 0",
          "replayed INTEGER NOT NULL DEFAULT 0",
          "error TEXT NOT NULL DEFAULT ''", "notes TEXT NOT NULL DEFAULT '[]'"})
      if (!Columns.count(llvm::StringRef(Add).split(' ').first))
        if (llvm::Error E =
                F->exec(std::string("ALTER TABLE llm_calls ADD COLUMN ") + Add))
          return E;
  }
  if (llvm::Error E = F->exec(
          "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', '" +
          std::to_string(RolloutStoreSchemaVersion) + "')"))
    return E;
  return std::unique_ptr<RolloutStore>(new RolloutStore(std::move(F)));
}

llvm::Expected<int64_t> RolloutStore::beginRun(const RunInfo &Info, bool Resume,
                                               bool &Resumed) {
  std::lock_guard<std::recursive_mutex> L(File->mutex());
  Resumed = false;
  std::string Sha = variantHash(Info.OriginalText);
  if (Resume) {
    Statement S(*File, "SELECT id FROM runs WHERE file = ?1 AND target = ?2 "
                       "AND original_sha256 = ?3 AND config = ?4 AND "
                       "status = 'running' ORDER BY id DESC LIMIT 1");
    S.bind(1, Info.File)
        .bind(2, Info.Target)
        .bind(3, Sha)
        .bind(4, Info.ConfigJSON);
    if (S && S.step() == SQLITE_ROW) {
      Run = S.integer(0);
      Resumed = true;
      return Run;
    }
  }
  Statement S(*File, "INSERT INTO runs(file, target, original_sha256, "
                     "original_text, config) VALUES (?1, ?2, ?3, ?4, ?5)");
  if (!S)
    return S.error();
  S.bind(1, Info.File)
      .bind(2, Info.Target)
      .bind(3, Sha)
      .bind(4, Info.OriginalText)
      .bind(5, Info.ConfigJSON);
  if (S.step() != SQLITE_DONE)
    return S.error();
  Run = sqlite3_last_insert_rowid(File->handle());
  return Run;
}

std::optional<std::string>
RolloutStore::otherUnfinishedConfig(const RunInfo &Info) {
  std::lock_guard<std::recursive_mutex> L(File->mutex());
  Statement S(*File, "SELECT config FROM runs WHERE file = ?1 AND target = ?2 "
                     "AND original_sha256 = ?3 AND config != ?4 AND "
                     "status = 'running' ORDER BY id DESC LIMIT 1");
  S.bind(1, Info.File)
      .bind(2, Info.Target)
      .bind(3, variantHash(Info.OriginalText))
      .bind(4, Info.ConfigJSON);
  if (S && S.step() == SQLITE_ROW)
    return S.text(0);
  return std::nullopt;
}

void RolloutStore::nodeAdded(const Node &N) {
  std::lock_guard<std::recursive_mutex> L(File->mutex());
  Statement S(*File,
              "INSERT OR REPLACE INTO nodes(run_id, id, parent, depth, "
              "variant_sha256, variant_text, description, rules, status, "
              "reward, value, evaluation, critique, critique_tags, "
              "rtg_features, rtg_score, from_cache) VALUES (?1, ?2, ?3, ?4, "
              "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)");
  if (!S) {
    if (!FirstError)
      FirstError = llvm::toString(S.error());
    return;
  }
  llvm::json::Array Tags;
  for (CritiqueTag T : N.Crit.Tags)
    Tags.push_back(critiqueTagName(T));
  S.bind(1, Run).bind(2, int64_t(N.Id));
  if (N.Parent >= 0)
    S.bind(3, int64_t(N.Parent));
  else
    S.bindNull(3);
  S.bind(4, int64_t(N.Depth))
      .bind(5, N.Hash)
      .bind(6, N.V.Text)
      .bind(7, N.V.Description)
      .bind(8, jsonText(llvm::json::Value(N.V.Rules)))
      .bind(9, evalStatusName(N.Result.Status))
      .bindDouble(10, N.Reward)
      .bindDouble(11, N.Value)
      .bind(12, jsonText(toJSON(N.Result)))
      .bind(13, N.Crit.Text)
      .bind(14, jsonText(std::move(Tags)))
      .bind(15, jsonText(toJSON(N.Features)))
      .bindDouble(16, N.RTGScore)
      .bind(17, int64_t(N.Result.FromCache));
  if (S.step() != SQLITE_DONE && !FirstError)
    FirstError = llvm::toString(S.error());
}

llvm::Error RolloutStore::takeError() {
  if (!FirstError)
    return llvm::Error::success();
  std::string E = *FirstError;
  FirstError.reset();
  return llvm::createStringError(E);
}

/// Ends \p F's transaction after a failed statement, whose error is the one
/// returned; a rollback that fails too is only said.
static void rollBack(SQLiteFile &F) {
  if (llvm::Error E = F.exec("ROLLBACK")) {
    MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": rollback failed: "
                               << llvm::toString(std::move(E)) << "\n");
    llvm::consumeError(std::move(E));
  }
}

llvm::Error RolloutStore::finishRun(const SearchResult &R) {
  std::lock_guard<std::recursive_mutex> L(File->mutex());
  // Final values (the max backup) of every node.
  if (llvm::Error E = File->exec("BEGIN"))
    return E;
  for (const Node &N : R.Nodes) {
    Statement S(*File,
                "UPDATE nodes SET value = ?1 WHERE run_id = ?2 AND id = ?3");
    S.bindDouble(1, N.Value).bind(2, Run).bind(3, int64_t(N.Id));
    if (S.step() != SQLITE_DONE) {
      rollBack(*File);
      return S.error();
    }
  }
  Statement S(*File, "UPDATE runs SET status = 'finished', winner_node = ?1, "
                     "verified = ?2, verified_ratio = ?3, evaluations = ?4, "
                     "from_cache = ?5, stop_reason = ?6, "
                     "finished_at = julianday('now') WHERE id = ?7");
  if (R.Winner >= 0)
    S.bind(1, int64_t(R.Winner));
  else
    S.bindNull(1);
  S.bind(2, int64_t(R.Verified));
  if (R.Verification)
    S.bindDouble(3, R.Verification->Ratio);
  else
    S.bindNull(3);
  S.bind(4, int64_t(R.Evaluations))
      .bind(5, int64_t(R.FromCache))
      .bind(6, R.StopReason)
      .bind(7, Run);
  if (S.step() != SQLITE_DONE) {
    rollBack(*File);
    return S.error();
  }
  return File->exec("COMMIT");
}

llvm::Expected<std::vector<RTGExample>> RolloutStore::rtgExamples() {
  std::lock_guard<std::recursive_mutex> L(File->mutex());
  // Finished runs only: their values are final.
  Statement S(*File, "SELECT n.run_id, n.id, n.rtg_features, n.value FROM "
                     "nodes n JOIN runs r ON r.id = n.run_id WHERE "
                     "n.parent IS NOT NULL AND r.status = 'finished' "
                     "ORDER BY n.run_id, n.id");
  if (!S)
    return S.error();
  std::vector<RTGExample> Out;
  while (S.step() == SQLITE_ROW) {
    RTGExample E;
    E.Id = uint64_t(S.integer(0)) << 32 | uint64_t(S.integer(1));
    auto V = llvm::json::parse(S.text(2));
    if (!V) {
      llvm::Error Err = V.takeError();
      MAXCODE_DEBUG(llvm::dbgs()
                    << DEBUG_TYPE << ": run " << S.integer(0) << " node "
                    << S.integer(1) << ": features are not JSON: "
                    << llvm::toString(std::move(Err)) << "\n");
      llvm::consumeError(std::move(Err));
      continue;
    }
    llvm::json::Path::Root Root;
    if (!fromJSON(*V, E.Features, Root)) {
      MAXCODE_DEBUG(llvm::dbgs()
                    << DEBUG_TYPE << ": run " << S.integer(0) << " node "
                    << S.integer(1) << ": features not read: "
                    << llvm::toString(Root.getError()) << "\n");
      continue;
    }
    E.Target = S.real(3);
    Out.push_back(std::move(E));
  }
  return Out;
}

llvm::Error RolloutStore::saveRTGModel(const LearnedRTG &M, double Spearman,
                                       unsigned Examples) {
  std::lock_guard<std::recursive_mutex> L(File->mutex());
  Statement S(*File, "INSERT INTO rtg_models(model, spearman, examples) "
                     "VALUES (?1, ?2, ?3)");
  S.bind(1, jsonText(M.toJSON()))
      .bindDouble(2, Spearman)
      .bind(3, int64_t(Examples));
  if (S.step() != SQLITE_DONE)
    return S.error();
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<LearnedRTG>> RolloutStore::latestRTGModel() {
  std::lock_guard<std::recursive_mutex> L(File->mutex());
  Statement S(*File, "SELECT model FROM rtg_models ORDER BY id DESC LIMIT 1");
  if (!S || S.step() != SQLITE_ROW)
    return llvm::createStringError("no reward-to-go model in store '" +
                                   File->path() +
                                   "': train one with --train-rtg first");
  auto V = llvm::json::parse(S.text(0));
  if (!V)
    return V.takeError();
  return LearnedRTG::fromJSON(*V);
}

llvm::Error RolloutStore::exportRTGDataset(llvm::raw_ostream &OS) {
  std::lock_guard<std::recursive_mutex> L(File->mutex());
  Statement S(*File,
              "SELECT n.run_id, n.id, r.target, p.variant_text, p.critique, "
              "n.variant_text, n.description, n.rules, n.status, n.reward, "
              "n.value, n.rtg_features FROM nodes n JOIN nodes p ON "
              "p.run_id = n.run_id AND p.id = n.parent JOIN runs r ON "
              "r.id = n.run_id ORDER BY n.run_id, n.id");
  if (!S)
    return S.error();
  while (S.step() == SQLITE_ROW) {
    auto Rules = llvm::json::parse(S.text(7));
    auto Features = llvm::json::parse(S.text(11));
    llvm::json::Object Row{
        {"run", S.integer(0)},
        {"node", S.integer(1)},
        {"observation", llvm::json::Object{{"target", S.text(2)},
                                           {"current_code", S.text(3)},
                                           {"critique", S.text(4)}}},
        {"candidate",
         llvm::json::Object{{"code", S.text(5)},
                            {"description", S.text(6)},
                            {"rules", Rules ? std::move(*Rules)
                                            : llvm::json::Value(nullptr)}}},
        {"status", S.text(8)},
        {"reward", S.real(9)},
        {"max_future_reward", S.real(10)},
        {"features",
         Features ? std::move(*Features) : llvm::json::Value(nullptr)}};
    // Exported as null; the rest of the row is still worth having.
    auto Drop = [&](llvm::Expected<llvm::json::Value> &V, const char *What) {
      if (V)
        return;
      llvm::Error E = V.takeError();
      MAXCODE_DEBUG(llvm::dbgs()
                    << DEBUG_TYPE << ": run " << S.integer(0) << " node "
                    << S.integer(1) << ": " << What << " are not JSON: "
                    << llvm::toString(std::move(E)) << "\n");
      llvm::consumeError(std::move(E));
    };
    Drop(Rules, "rules");
    Drop(Features, "features");
    OS << llvm::json::Value(std::move(Row)) << "\n";
  }
  return llvm::Error::success();
}

llvm::Error RolloutStore::recordLLMCall(const LLMCallRow &Row) {
  std::lock_guard<std::recursive_mutex> L(File->mutex());
  Statement S(*File, "INSERT INTO llm_calls(run_id, model, request_sha256, "
                     "prompt_tokens, completion_tokens, role, attempts, "
                     "replayed, error, notes) VALUES (?1, ?2, ?3, ?4, ?5, "
                     "?6, ?7, ?8, ?9, ?10)");
  if (!S)
    return S.error();
  S.bind(1, Run)
      .bind(2, Row.Model)
      .bind(3, Row.RequestHash)
      .bind(4, int64_t(Row.PromptTokens))
      .bind(5, int64_t(Row.CompletionTokens))
      .bind(6, Row.Role)
      .bind(7, int64_t(Row.Attempts))
      .bind(8, int64_t(Row.Replayed))
      .bind(9, Row.Error)
      .bind(10, Row.NotesJSON.empty() ? llvm::StringRef("[]")
                                      : llvm::StringRef(Row.NotesJSON));
  if (S.step() != SQLITE_DONE)
    return S.error();
  return llvm::Error::success();
}

llvm::Expected<std::vector<RTGShot>>
RolloutStore::rtgShots(llvm::StringRef Target, unsigned Limit) {
  std::lock_guard<std::recursive_mutex> L(File->mutex());
  Statement S(*File, "SELECT n.description, n.status, n.reward FROM nodes n "
                     "JOIN runs r ON r.id = n.run_id WHERE r.target = ?1 AND "
                     "r.status = 'finished' AND n.parent IS NOT NULL ORDER "
                     "BY n.run_id DESC, n.id DESC LIMIT ?2");
  if (!S)
    return S.error();
  S.bind(1, Target).bind(2, int64_t(Limit));
  std::vector<RTGShot> Out;
  while (S.step() == SQLITE_ROW)
    Out.push_back({S.text(0), S.text(1), S.real(2)});
  // Oldest first, as the prompt reads them.
  std::reverse(Out.begin(), Out.end());
  return Out;
}
