//===-- EvalCache.cpp - Evaluations cached on disk ------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/EvalCache.h"
#include "maxcode/Support/Debug.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <sqlite3.h>

#define DEBUG_TYPE "maxcode-store"

using namespace maxcode;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

Value maxcode::toJSON(const EvalResult &R) {
  Array Diags, Hot;
  for (const BuildDiagnostic &D : R.Diagnostics)
    Diags.push_back(Object{{"line", D.Line},
                           {"column", D.Column},
                           {"severity", D.Severity},
                           {"message", D.Message}});
  for (const HotLine &H : R.HotLines)
    Hot.push_back(Object{{"line", H.Line}, {"share", H.Share}});
  Array Notes;
  for (const std::string &N : R.Notes)
    Notes.push_back(N);
  Array Jobs;
  for (const std::string &J : R.JobIds)
    Jobs.push_back(J);
  Object Metrics;
  for (const auto &KV : R.Metrics)
    Metrics[KV.first] = KV.second;
  Object O{{"status", evalStatusName(R.Status)},
           {"reason", R.Reason},
           {"diagnostics", std::move(Diags)},
           {"build_seconds", R.BuildSeconds},
           {"tests_passed", R.TestsPassed},
           {"tests_total", R.TestsTotal},
           {"held_out_passed", R.HeldOutPassed},
           {"held_out_total", R.HeldOutTotal},
           {"derived_passed", R.DerivedPassed},
           {"derived_total", R.DerivedTotal},
           {"cost_unit", R.CostUnit},
           {"baseline_cost", R.BaselineCost},
           {"variant_cost", R.VariantCost},
           {"ratio", R.Ratio},
           {"raw_ratio", R.RawRatio},
           {"ratio_spread", R.RatioSpread},
           {"noise", R.Noise},
           {"repetitions", R.Repetitions},
           {"user_seconds", R.UserSeconds},
           {"system_seconds", R.SystemSeconds},
           {"peak_memory_bytes", int64_t(R.PeakMemoryBytes)},
           {"hot_lines", std::move(Hot)},
           {"metrics", std::move(Metrics)},
           {"notes", std::move(Notes)}};
  if (!Jobs.empty())
    O["slurm_jobs"] = std::move(Jobs);
  if (R.TimedOn)
    O["timed_on"] = timingSetName(*R.TimedOn);
  if (R.FeedbackRatio)
    O["feedback_ratio"] = R.FeedbackRatio;
  if (R.ShownInputsOnly)
    O["shown_inputs_only"] = true;
  if (R.HintsOnly)
    O["hints_only"] = true;
  if (R.CodeRatio)
    O["code_ratio"] = R.CodeRatio;
  if (llvm::StringRef V = R.verdict(); !V.empty())
    O["verdict"] = V;
  if (R.CrossRatio)
    O["cross_check"] = Object{{"measure", R.CrossMeasure},
                              {"ratio", R.CrossRatio},
                              {"suspect", R.Suspect}};
  if (R.FirstFailure)
    O["first_failure"] = Object{{"test", R.FirstFailure->Test},
                                {"line", R.FirstFailure->Line},
                                {"expected", R.FirstFailure->Expected},
                                {"actual", R.FirstFailure->Actual},
                                {"detail", R.FirstFailure->Detail}};
  return O;
}

bool maxcode::fromJSON(const Value &V, EvalResult &R, llvm::json::Path P) {
  const Object *O = V.getAsObject();
  if (!O) {
    P.report("expected an object");
    return false;
  }
  std::optional<llvm::StringRef> Status = O->getString("status");
  std::optional<EvalStatus> S =
      Status ? parseEvalStatus(*Status) : std::nullopt;
  if (!S) {
    P.field("status").report("unknown status");
    return false;
  }
  R.Status = *S;
  auto Str = [&](llvm::StringRef K) {
    return O->getString(K).value_or("").str();
  };
  auto Num = [&](llvm::StringRef K) { return O->getNumber(K).value_or(0); };
  R.Reason = Str("reason");
  R.BuildSeconds = Num("build_seconds");
  R.TestsPassed = unsigned(Num("tests_passed"));
  R.TestsTotal = unsigned(Num("tests_total"));
  R.HeldOutPassed = unsigned(Num("held_out_passed"));
  R.HeldOutTotal = unsigned(Num("held_out_total"));
  R.DerivedPassed = unsigned(Num("derived_passed"));
  R.DerivedTotal = unsigned(Num("derived_total"));
  R.CostUnit = Str("cost_unit");
  R.BaselineCost = Num("baseline_cost");
  R.VariantCost = Num("variant_cost");
  R.Ratio = Num("ratio");
  R.RawRatio = Num("raw_ratio");
  R.RatioSpread = Num("ratio_spread");
  R.Noise = Num("noise");
  R.Repetitions = unsigned(Num("repetitions"));
  R.UserSeconds = Num("user_seconds");
  R.SystemSeconds = Num("system_seconds");
  R.PeakMemoryBytes = uint64_t(Num("peak_memory_bytes"));
  if (const Array *A = O->getArray("diagnostics"))
    for (const Value &D : *A)
      if (const Object *DO = D.getAsObject())
        R.Diagnostics.push_back({unsigned(DO->getNumber("line").value_or(0)),
                                 unsigned(DO->getNumber("column").value_or(0)),
                                 DO->getString("severity").value_or("").str(),
                                 DO->getString("message").value_or("").str()});
  if (const Array *A = O->getArray("hot_lines"))
    for (const Value &H : *A)
      if (const Object *HO = H.getAsObject())
        R.HotLines.push_back({unsigned(HO->getNumber("line").value_or(0)),
                              HO->getNumber("share").value_or(0)});
  if (const Object *M = O->getObject("metrics"))
    for (const auto &KV : *M)
      if (auto N = KV.second.getAsNumber())
        R.Metrics[KV.first.str()] = *N;
  if (const Array *A = O->getArray("notes"))
    for (const Value &N : *A)
      if (auto S = N.getAsString())
        R.Notes.push_back(S->str());
  if (const Array *A = O->getArray("slurm_jobs"))
    for (const Value &J : *A)
      if (auto S = J.getAsString())
        R.JobIds.push_back(S->str());
  R.TimedOn = parseTimingSet(Str("timed_on"));
  R.FeedbackRatio = Num("feedback_ratio");
  R.ShownInputsOnly = O->getBoolean("shown_inputs_only").value_or(false);
  R.HintsOnly = O->getBoolean("hints_only").value_or(false);
  R.CodeRatio = Num("code_ratio");
  llvm::StringRef Verdict = O->getString("verdict").value_or("");
  R.Unconfirmed = Verdict == "unconfirmed";
  R.Unverified = Verdict == "unverified";
  if (const Object *X = O->getObject("cross_check")) {
    R.CrossMeasure = X->getString("measure").value_or("").str();
    R.CrossRatio = X->getNumber("ratio").value_or(0);
    R.Suspect = X->getBoolean("suspect").value_or(false);
  }
  if (const Object *F = O->getObject("first_failure")) {
    TestFailure T;
    T.Test = F->getString("test").value_or("").str();
    T.Line = unsigned(F->getNumber("line").value_or(0));
    T.Expected = F->getString("expected").value_or("").str();
    T.Actual = F->getString("actual").value_or("").str();
    T.Detail = F->getString("detail").value_or("").str();
    R.FirstFailure = T;
  }
  return true;
}

llvm::Expected<std::unique_ptr<EvalCache>>
EvalCache::open(std::shared_ptr<SQLiteFile> File) {
  if (llvm::Error E = File->exec(
          "CREATE TABLE IF NOT EXISTS eval_cache ("
          " key TEXT PRIMARY KEY, status TEXT NOT NULL, result TEXT NOT NULL,"
          " created_at REAL NOT NULL DEFAULT (julianday('now')));"))
    return E;
  return std::unique_ptr<EvalCache>(new EvalCache(std::move(File)));
}

std::optional<EvalResult> EvalCache::lookup(llvm::StringRef Key) {
  std::lock_guard<std::recursive_mutex> L(File->mutex());
  sqlite3_stmt *St = nullptr;
  if (sqlite3_prepare_v2(File->handle(),
                         "SELECT result FROM eval_cache WHERE key = ?1", -1,
                         &St, nullptr) != SQLITE_OK)
    return std::nullopt;
  sqlite3_bind_text(St, 1, Key.data(), Key.size(), SQLITE_TRANSIENT);
  std::optional<EvalResult> Out;
  if (sqlite3_step(St) == SQLITE_ROW) {
    const char *Text =
        reinterpret_cast<const char *>(sqlite3_column_text(St, 0));
    auto V = llvm::json::parse(Text ? Text : "");
    EvalResult R;
    if (V) {
      llvm::json::Path::Root Root;
      if (fromJSON(*V, R, Root)) {
        Out = std::move(R);
        ++Hits;
      } else {
        MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": cached result " << Key
                                   << " is not an evaluation: "
                                   << llvm::toString(Root.getError()) << "\n");
      }
    } else {
      llvm::Error E = V.takeError();
      MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": cached result " << Key
                                 << " is not JSON: "
                                 << llvm::toString(std::move(E)) << "\n");
      llvm::consumeError(std::move(E));
    }
  }
  sqlite3_finalize(St);
  return Out;
}

llvm::Error EvalCache::store(llvm::StringRef Key, const EvalResult &R) {
  std::lock_guard<std::recursive_mutex> L(File->mutex());
  std::string Json;
  llvm::raw_string_ostream OS(Json);
  OS << toJSON(R);
  OS.flush();
  sqlite3_stmt *St = nullptr;
  if (sqlite3_prepare_v2(File->handle(),
                         "INSERT OR REPLACE INTO eval_cache(key, status, "
                         "result) VALUES (?1, ?2, ?3)",
                         -1, &St, nullptr) != SQLITE_OK)
    return llvm::createStringError("store '" + File->path() +
                                   "': " + sqlite3_errmsg(File->handle()));
  llvm::StringRef Status = evalStatusName(R.Status);
  sqlite3_bind_text(St, 1, Key.data(), Key.size(), SQLITE_TRANSIENT);
  sqlite3_bind_text(St, 2, Status.data(), Status.size(), SQLITE_TRANSIENT);
  sqlite3_bind_text(St, 3, Json.data(), Json.size(), SQLITE_TRANSIENT);
  int RC = sqlite3_step(St);
  sqlite3_finalize(St);
  if (RC != SQLITE_DONE)
    return llvm::createStringError("store '" + File->path() +
                                   "': " + sqlite3_errmsg(File->handle()));
  return llvm::Error::success();
}
