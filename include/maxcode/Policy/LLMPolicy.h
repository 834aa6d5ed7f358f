//===-- maxcode/Policy/LLMPolicy.h - LLM roles ------------------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The `llm` implementations of the three roles of Policy.h, on top of the
/// OpenAI-compatible client of lib/LLM and the prompt templates in prompts/:
///
///  - LLMProposer asks for k samples per expansion (parallel requests, each
///    with its own seed, so that record/replay is deterministic), reads the
///    fenced code block of each reply, splices it into the current text (or
///    takes it as the whole program under --scope=file) and parses the result
///    with Clang before anything is built. A reply that cannot be used is
///    reported with its reason and shown to the model in the next prompt.
///  - LLMCritic turns an evaluation into diagnostic text (prompts/critic.md).
///  - LLMRTG predicts a speedup bin for each candidate (prompts/rtg.md), with
///    few-shot examples from the rollout store and the current run.
///
/// Every call, used or failed, goes to an LLMCallSink: the driver writes it
/// to the rollout store and counts tokens. Nothing here sees the API key.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_POLICY_LLMPOLICY_H
#define MAXCODE_POLICY_LLMPOLICY_H

#include "maxcode/Frontend/Target.h"
#include "maxcode/LLM/LLMClient.h"
#include "maxcode/LLM/PromptLibrary.h"
#include "maxcode/Policy/Policy.h"
#include "maxcode/Rewrite/Scope.h"
#include "llvm/ADT/StringSet.h"
#include <functional>
#include <mutex>

namespace maxcode {

/// One LLM call as the search accounts for it.
struct LLMCallEvent {
  std::string Role; ///< "proposer", "critic" or "rtg".
  std::string Model;
  std::string RequestHash; ///< Empty when the call failed.
  TokenUsage Usage;
  unsigned Attempts = 0;
  bool Replayed = false;
  /// Why the call failed (the client's message); empty on success.
  std::string Error;
  /// What became of the reply: "used", or the reasons it could not be used.
  std::vector<std::string> Notes;
};

/// Called once per LLM call, from any thread; must be thread-safe.
using LLMCallSink = std::function<void(const LLMCallEvent &)>;

/// How a reply's code becomes a variant.
struct ReplySplice {
  /// The text of the node the reply improves.
  llvm::StringRef CurrentText;
  /// The target, with offsets into CurrentText; none when the node no
  /// longer has it (a whole-program rewrite replaced it).
  std::optional<Target> T;
  std::string TargetName;
  EditScope Scope = EditScope::Target;
};

/// The whole file text a reply proposes, before any parsing: the chosen
/// fenced block (ReplyParsing.h) replaces the target's definition, so that
/// new helpers it declares come right before the target; its #include lines
/// not in the file yet go after the file's last #include. Under
/// EditScope::File a block that defines main() is the whole new program. The
/// error says why the reply cannot be used.
llvm::Expected<std::string> spliceReply(llvm::StringRef Reply,
                                        const ReplySplice &S);

/// The declarations of the main file that the target's definition uses
/// (types, type aliases, globals, other functions' signatures, macros), in
/// source order, as source text for the proposer prompt.
std::string declarationsUsedBy(ParsedFile &Parsed, const Target &T);

/// The observation's last evaluation, in words, for a prompt.
std::string describeFeedback(const std::optional<EvalResult> &R);

class LLMProposer : public Proposer {
public:
  LLMProposer(LLMClient &Client, PromptLibrary &Prompts,
              clang::tooling::CompileCommand Command, std::string File,
              ParseSettings Settings, EditScope Scope, uint64_t Seed,
              LLMCallSink Sink);
  llvm::StringRef name() const override { return "llm"; }
  /// An error only when every request failed (its message says why).
  llvm::Expected<std::vector<Variant>> propose(const Observation &Obs,
                                               unsigned K) override;

private:
  struct Sample {
    std::optional<ChatResponse> Response;
    std::string Error;
  };
  llvm::Expected<std::map<std::string, std::string>>
  promptValues(const Observation &Obs, std::optional<Target> &Current);
  /// Sends the \p K requests of one round at once, each with its own seed
  /// counted from \p Base.
  std::vector<Sample> requestSamples(const std::vector<ChatMessage> &Messages,
                                     unsigned K, uint64_t Base);
  /// Turns the choices of the answer \p R to request \p I into variants
  /// (\p Out), noting in \p E what became of each.
  void useSample(const ChatResponse &R, unsigned I, const ReplySplice &S,
                 llvm::StringSet<> &Seen, LLMCallEvent &E,
                 std::vector<Variant> &Out);
  /// Why \p Text does not parse; empty when it does.
  std::string parseError(llvm::StringRef Text);

  LLMClient &Client;
  PromptLibrary &Prompts;
  clang::tooling::CompileCommand Command;
  std::string File;
  ParseSettings Settings;
  EditScope Scope;
  uint64_t Seed;
  LLMCallSink Sink;
  unsigned Expansions = 0;
  /// Why recent replies could not be used, shown in the next prompt.
  std::vector<std::string> Unusable;
};

class LLMCritic : public Critic {
public:
  /// \p Fallback (may be null) gives the tags, and the text when the call
  /// fails.
  LLMCritic(LLMClient &Client, PromptLibrary &Prompts, Critic *Fallback,
            LLMCallSink Sink);
  llvm::StringRef name() const override { return "llm"; }
  Critique critique(const EvalResult &R, const Variant &V,
                    const Observation &Parent) override;

private:
  LLMClient &Client;
  PromptLibrary &Prompts;
  Critic *Fallback;
  LLMCallSink Sink;
};

/// An earlier candidate and the reward it realised, for few-shot prompts.
struct RTGShot {
  std::string Description;
  std::string Status;
  double Reward = 0;
};

/// The speedup bins of the LLM reward-to-go model, worst first.
struct RTGBin {
  llvm::StringRef Label;
  llvm::StringRef Meaning;
  double Score; ///< The reward the bin stands for.
};
llvm::ArrayRef<RTGBin> rtgBins();
/// The bin a realised reward falls in.
const RTGBin &rtgBinOf(double Reward, bool Ok);
/// The bin a reply names on its "BIN: <label>" line, if any.
const RTGBin *parseRTGBin(llvm::StringRef Reply);

class LLMRTG : public RTGModel {
public:
  LLMRTG(LLMClient &Client, PromptLibrary &Prompts, std::vector<RTGShot> Shots,
         LLMCallSink Sink);
  llvm::StringRef name() const override { return "llm"; }
  /// A candidate whose call fails or whose answer names no bin scores as
  /// "same", so it is neither preferred nor dropped for it.
  std::vector<double> score(const Observation &Obs,
                            llvm::ArrayRef<Variant> Candidates) override;

private:
  LLMClient &Client;
  PromptLibrary &Prompts;
  std::vector<RTGShot> Shots;
  LLMCallSink Sink;
};

} // namespace maxcode

#endif // MAXCODE_POLICY_LLMPOLICY_H
