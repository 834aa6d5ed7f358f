//===-- maxcode/Search/RolloutStore.h - Runs, nodes, evaluations -*- C++
//-*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The rollout store (DESIGN section 3): one SQLite file holding runs,
/// nodes (with their critiques and reward-to-go features), the evaluation
/// cache, LLM calls and trained reward-to-go models. Written as the search
/// goes, each node in its own transaction (WAL), so `kill -9` loses at most
/// the evaluation in flight. The schema is documented in
/// docs/RolloutStore.md.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_SEARCH_ROLLOUTSTORE_H
#define MAXCODE_SEARCH_ROLLOUTSTORE_H

#include "maxcode/Eval/EvalCache.h"
#include "maxcode/Policy/LLMPolicy.h"
#include "maxcode/Policy/LearnedRTG.h"
#include "maxcode/Search/Engine.h"
#include <memory>
#include <optional>

namespace maxcode {

constexpr int RolloutStoreSchemaVersion = 1;

struct RunInfo {
  std::string File;
  std::string Target;
  std::string OriginalText;
  std::string ConfigJSON; ///< What decides the search (strategy, seed, ...).
};

/// One row of the llm_calls table (docs/RolloutStore.md). Never holds the
/// API key: the client keeps it out of everything it returns.
struct LLMCallRow {
  std::string Role; ///< "proposer", "critic" or "rtg".
  std::string Model;
  std::string RequestHash; ///< Empty for a failed call.
  uint64_t PromptTokens = 0;
  uint64_t CompletionTokens = 0;
  unsigned Attempts = 0;
  bool Replayed = false;
  std::string Error;     ///< Why the call failed; empty on success.
  std::string NotesJSON; ///< JSON array: "used" or why a reply was not.
};

class RolloutStore : public SearchObserver {
public:
  static llvm::Expected<std::unique_ptr<RolloutStore>>
  open(std::shared_ptr<SQLiteFile> File);

  /// Starts a run; with \p Resume, continues the newest unfinished run with
  /// the same file, text, target and configuration instead (its nodes are
  /// written again as the search replays them from the evaluation cache).
  /// Returns the run id; \p Resumed says which happened.
  llvm::Expected<int64_t> beginRun(const RunInfo &Info, bool Resume,
                                   bool &Resumed);
  /// The configuration of the newest unfinished run with Info's file, text
  /// and target under another configuration, if any: what --resume names
  /// when it cannot continue.
  std::optional<std::string> otherUnfinishedConfig(const RunInfo &Info);
  llvm::Error finishRun(const SearchResult &R);

  /// SearchObserver: every node is written as soon as it is evaluated.
  void nodeAdded(const Node &N) override;
  /// The first write error, if any (the search goes on without the store).
  llvm::Error takeError();

  /// Every stored node with its realised max future reward: the learned
  /// reward-to-go model's training data.
  llvm::Expected<std::vector<RTGExample>> rtgExamples();
  llvm::Error saveRTGModel(const LearnedRTG &M, double Spearman,
                           unsigned Examples);
  /// The newest trained model; an error if none was trained.
  llvm::Expected<std::unique_ptr<LearnedRTG>> latestRTGModel();
  /// One JSON line per stored node: (observation, candidate, realised max
  /// future reward), for fine-tuning a generative reward-to-go model.
  llvm::Error exportRTGDataset(llvm::raw_ostream &OS);
  /// Records an LLM call: its role, tokens, and what became of it.
  llvm::Error recordLLMCall(const LLMCallRow &Row);
  /// Nodes of finished runs on a target of this name, newest first: the
  /// few-shot examples of the LLM reward-to-go model.
  llvm::Expected<std::vector<RTGShot>> rtgShots(llvm::StringRef Target,
                                                unsigned Limit);

  int64_t runId() const { return Run; }

private:
  explicit RolloutStore(std::shared_ptr<SQLiteFile> F) : File(std::move(F)) {}
  std::shared_ptr<SQLiteFile> File;
  int64_t Run = -1;
  std::optional<std::string> FirstError;
};

} // namespace maxcode

#endif // MAXCODE_SEARCH_ROLLOUTSTORE_H
