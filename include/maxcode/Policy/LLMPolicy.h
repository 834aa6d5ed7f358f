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

#include "maxcode/Eval/Evaluator.h"
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

/// \p Block without the top-level declarations that \p Current (the code
/// before the target) already has word for word, comments aside: a reply
/// that repeats a helper it was shown would redefine it. The definition of
/// \p TargetName always stays.
std::string dropRepeatedDeclarations(llvm::StringRef Block,
                                     llvm::StringRef Current,
                                     llvm::StringRef TargetName);

/// What a model needs to see beside the target's own code (docs/LLM.md,
/// "The context"), from Clang's parse: for a member function its class
/// (fields with their types, the members it uses as signatures), wherever
/// the project declares it; the types, functions (templates with their
/// parameter lists), variables and macros it uses from the main file and
/// the project's headers (never system headers); and up to two call sites
/// with the loops around them. In that priority order, within
/// \p TokenBudget tokens of about four characters: what does not fit is
/// left out and counted. Only what the compiled text declares before the
/// target is listed, so everything listed may be used.
std::string targetContext(ParsedFile &Parsed, const Target &T,
                          unsigned TokenBudget);

/// The observation's last evaluation, in words, for a prompt; \p Text is
/// the evaluated text, for the hot lines' source.
std::string describeFeedback(const std::optional<EvalResult> &R,
                             llvm::StringRef Text = "");

/// What stays the same for every prompt of a run (docs/LLM.md).
struct PromptFacts {
  /// "g++ -std=c++17 -O2 -c histogram.cpp": how the file is compiled.
  std::string Build;
  /// One line: what is measured and what "faster" means.
  std::string Measure;
  /// The workload in words (describeWorkload).
  std::string Workload;
  double Gamma = 1.0;
  unsigned ContextTokens = 3000;
};

/// The build line of PromptFacts: the compiler and the flags that decide
/// what code may use and how it is optimised, from \p Argv (the command a
/// variant is built with).
std::string describeBuild(llvm::ArrayRef<std::string> Argv);

/// The measure line of PromptFacts.
std::string describeMeasure(MeasureMode M, bool Bench);

/// The workload of PromptFacts: the feedback inputs' sizes and numbers, the
/// head of the costliest, where the original spends its cost (with the
/// lines of \p OriginalText), or a project's commands and the profile's
/// share of \p T.
std::string describeWorkload(const WorkloadFacts &W,
                             llvm::StringRef OriginalText, const Target &T);

/// "C++17", "C++98", "CUDA C++17": the language \p Parsed was parsed as,
/// which its compile command decides.
std::string languageStandard(const ParsedFile &Parsed);

/// What a proposer prompt is made from besides the observation.
struct ProposerPromptInput {
  const clang::tooling::CompileCommand &Command;
  llvm::StringRef File;
  const ParseSettings &Settings;
  const PromptFacts &Facts;
  /// Why recent replies for the observed code could not be used.
  llvm::ArrayRef<std::string> Unusable;
};

/// The proposer's messages for \p Obs (prompts/proposer-cpp.md or
/// proposer-cuda.md); \p Current, when given, receives the target as the
/// current text has it (none when that text does not parse).
llvm::Expected<std::vector<ChatMessage>>
renderProposerPrompt(PromptLibrary &Prompts, const ProposerPromptInput &In,
                     const Observation &Obs,
                     std::optional<Target> *Current = nullptr);

/// The simplify prompt (prompts/simplify.md) for the verified winner, the
/// current code of \p Obs; \p Current as for renderProposerPrompt.
llvm::Expected<std::vector<ChatMessage>>
renderSimplifyPrompt(PromptLibrary &Prompts, const ProposerPromptInput &In,
                     const Observation &Obs,
                     std::optional<Target> *Current = nullptr);

class LLMProposer : public Proposer {
public:
  LLMProposer(LLMClient &Client, PromptLibrary &Prompts,
              clang::tooling::CompileCommand Command, std::string File,
              ParseSettings Settings, EditScope Scope, uint64_t Seed,
              PromptFacts Facts, LLMCallSink Sink);
  llvm::StringRef name() const override { return "llm"; }
  /// An error only when every request failed (its message says why).
  llvm::Expected<std::vector<Variant>> propose(const Observation &Obs,
                                               unsigned K) override;
  /// One request with prompts/simplify.md: the plainest form of the
  /// winner's idea.
  llvm::Expected<std::optional<Variant>>
  simplify(const Observation &Obs) override;

private:
  struct Sample {
    std::optional<ChatResponse> Response;
    std::string Error;
  };

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
  PromptFacts Facts;
  LLMCallSink Sink;
  unsigned Expansions = 0;
  /// Why recent replies for a node (by its text's hash) could not be used,
  /// shown in the next prompt for that node, until one of its replies is.
  std::map<std::string, std::vector<std::string>> Unusable;
};

/// The critic's messages for evaluation \p R of \p V, a child of the node
/// \p Parent observes; \p Findings: the rules critic's text.
llvm::Expected<std::vector<ChatMessage>>
renderCriticPrompt(PromptLibrary &Prompts, const PromptFacts &Facts,
                   const EvalResult &R, const Variant &V,
                   const Observation &Parent, llvm::StringRef Findings);

class LLMCritic : public Critic {
public:
  /// \p Fallback (may be null) gives the tags, and the text when the call
  /// fails.
  LLMCritic(LLMClient &Client, PromptLibrary &Prompts, Critic *Fallback,
            PromptFacts Facts, LLMCallSink Sink);
  llvm::StringRef name() const override { return "llm"; }
  Critique critique(const EvalResult &R, const Variant &V,
                    const Observation &Parent) override;

private:
  LLMClient &Client;
  PromptLibrary &Prompts;
  Critic *Fallback;
  PromptFacts Facts;
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

/// The reward-to-go model's messages for \p Candidate, with \p Shots and
/// the observation's history as its examples.
llvm::Expected<std::vector<ChatMessage>>
renderRTGPrompt(PromptLibrary &Prompts, const Observation &Obs,
                const Variant &Candidate, llvm::ArrayRef<RTGShot> Shots);

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
