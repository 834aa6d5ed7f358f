//===-- maxcode/Search/LLMRoles.h - The LLM side of a run -------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What a search needs when --policy, --critic or --rtg is `llm`: the client
/// (from --llm-endpoint or --llm-replay), the prompt templates, and a ledger
/// of every call that writes it to the rollout store (llm_calls), counts the
/// tokens the budget stops on, and says on stderr when a call failed.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_SEARCH_LLMROLES_H
#define MAXCODE_SEARCH_LLMROLES_H

#include "maxcode/Policy/LLMPolicy.h"
#include "llvm/Support/JSON.h"
#include <memory>
#include <mutex>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace maxcode {

class RolloutStore;
struct RunOptions;

/// Whether any of the three roles is `llm`.
bool usesLLM(const RunOptions &Opts);

/// The calls of a run and their tokens.
class LLMLedger {
public:
  LLMLedger(RolloutStore *Store, llvm::raw_ostream &Err)
      : Store(Store), Err(Err) {}
  /// Counts \p E, writes it to the store and warns when it failed.
  void add(const LLMCallEvent &E);
  LLMCallSink sink() {
    return [this](const LLMCallEvent &E) { add(E); };
  }
  uint64_t totalTokens() const;
  /// {"calls", "failed_calls", "prompt_tokens", "completion_tokens",
  /// "total_tokens", "by_role": {...}, "errors": [...]}.
  llvm::json::Object toJSON() const;
  uint64_t calls() const;
  TokenUsage usage() const;
  /// The first store write error, if any.
  llvm::Error takeStoreError();

private:
  struct Counts {
    uint64_t Calls = 0, Failed = 0;
    TokenUsage Usage;
  };
  RolloutStore *Store;
  llvm::raw_ostream &Err;
  mutable std::mutex Mutex;
  Counts Total;
  std::map<std::string, Counts> ByRole;
  std::vector<std::string> Errors;
  std::optional<std::string> StoreError;
};

/// The client, templates and roles of one run.
struct LLMRoles {
  std::unique_ptr<LLMClient> Client;
  std::unique_ptr<PromptLibrary> Prompts;
  std::unique_ptr<LLMLedger> Ledger;
  std::unique_ptr<LLMProposer> Proposer; ///< With --policy=llm.
  std::unique_ptr<LLMCritic> Critic;     ///< With --critic=llm.
  std::unique_ptr<LLMRTG> RTG;           ///< With --rtg=llm.
};

/// What a proposer needs to parse variants of the target's file.
struct LLMProposerContext {
  clang::tooling::CompileCommand Command;
  std::string File;
  std::string TargetName;
  EditScope Scope = EditScope::Target;
  /// Gives tags (and the text when a call fails) to the LLM critic.
  Critic *FallbackCritic = nullptr;
  /// What every prompt of the run says about the build, the measure and
  /// the workload.
  PromptFacts Facts;
};

/// Checks the LLM options of \p Opts before anything is built: an error
/// naming what is missing ("--policy=llm needs --llm-endpoint=<url> or
/// --llm-replay=<dir>").
llvm::Error checkLLMOptions(const RunOptions &Opts);

/// The prompt templates: --prompts-dir, else the installed ones beside the
/// binary, else the source tree's.
llvm::Expected<std::unique_ptr<PromptLibrary>>
openPromptLibrary(const RunOptions &Opts);

/// Makes the client and the roles \p Opts asks for; \p Store (may be null)
/// receives every call and gives the RTG its few-shot examples.
llvm::Expected<LLMRoles> createLLMRoles(const RunOptions &Opts,
                                        const LLMProposerContext &Ctx,
                                        RolloutStore *Store,
                                        llvm::raw_ostream &Err);

} // namespace maxcode

#endif // MAXCODE_SEARCH_LLMROLES_H
