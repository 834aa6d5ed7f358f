//===-- maxcode/Search/Engine.h - The max-reward search ---------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The max-reward search of DESIGN section 3: one loop with three knobs
/// (which nodes to expand, how many proposals per expansion, which proposals
/// to evaluate). best-of-n, refine, beam and tree are settings of those knobs
/// in SearchEngine::select(), not four engines. Values follow the max backup
/// V(n) = max(r(n), gamma * max_child V(child)); the return of a path is
/// max_t gamma^t r_t.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_SEARCH_ENGINE_H
#define MAXCODE_SEARCH_ENGINE_H

#include "maxcode/Policy/LearnedRTG.h"
#include "maxcode/Policy/Policy.h"
#include "maxcode/Rewrite/Minimisation.h"
#include "maxcode/Support/Options.h"
#include <chrono>
#include <functional>
#include <memory>

namespace maxcode {

/// What the engine is given: the settings, read where they act
/// (Settings.Strategy, Settings.Budget, Settings.Width, ...: docs/Search.md),
/// and the engine's own constants, which no option sets.
struct SearchConfig {
  EffectiveOptions Settings;
  double Exploration = 0.5; ///< UCB constant (tree).
  unsigned HistoryLength = 8;
  /// Expand nodes whose evaluation failed (an LLM can repair them; rules
  /// cannot).
  bool ExpandFailures = false;
  /// Timed pairs when re-timing a new incumbent and verifying the winner.
  unsigned VerifyRepetitions = 10;
  /// Candidates verified, best first, until one holds up.
  unsigned VerifyCandidates = 3;
};

/// Lines \p Text adds or removes against \p Original: a diff's size.
unsigned changedLines(llvm::StringRef Original, llvm::StringRef Text);

/// The reward of DESIGN section 4: failures ordered below any ok variant,
/// ok variants their (noise-corrected) ratio.
double rewardOf(const EvalResult &R);

struct Node {
  unsigned Id = 0;
  int Parent = -1;
  unsigned Depth = 0;
  Variant V;
  std::string Hash;
  EvalResult Result;
  double Reward = 0;
  double Value = 0; ///< Max backup.
  Critique Crit;
  RTGFeatures Features;
  double RTGScore = 0;
  unsigned Expansions = 0;
  bool Exhausted = false;
  std::vector<unsigned> Children;
  /// Discounted reward gamma^depth * r, what the incumbent maximises.
  double discounted(double Gamma) const;
};

/// Builds and measures variants: the evaluator, or a synthetic landscape in
/// the engine's unit tests.
class EvaluationBackend {
public:
  virtual ~EvaluationBackend();
  virtual std::vector<EvalResult> evaluate(llvm::ArrayRef<Variant> Vs,
                                           const Target &T) = 0;
  /// The final verification of a candidate winner: rebuilt, re-checked on
  /// every test (held-out ones included), re-timed with more repetitions.
  virtual EvalResult verify(const Variant &V, const Target &T,
                            unsigned Repetitions) = 0;
  /// The text a candidate winner is verified (and then written) as: the
  /// evaluator's backend formats it as --apply would, so that the bytes
  /// written are the bytes verified.
  virtual Variant finalForm(const Variant &V, const Target &T) { return V; }
  /// A new incumbent's second look during the search: re-timed on the
  /// feedback tests only, so no held-out result reaches the search.
  virtual EvalResult retime(const Variant &V, const Target &T,
                            unsigned Repetitions) {
    return verify(V, T, Repetitions);
  }
  /// True when a measured ratio can be lucky noise (wall time), so a new
  /// incumbent is re-timed before it replaces the old one.
  virtual bool noisy() const = 0;
  /// The verified winner's build and tests under the sanitizers
  /// (Evaluator::sanitize); not checked by default.
  virtual SanitizerVerdict sanitize(const Variant &V) {
    SanitizerVerdict S;
    S.Detail = "this backend has no sanitizer check";
    return S;
  }
  /// \p V without the declarations and includes it adds that nothing
  /// needs (simplifyDeclarations); none when nothing can go or the text
  /// cannot be parsed.
  virtual std::optional<DeclSimplification>
  simplifyDeclarations(const Variant &V) {
    return std::nullopt;
  }
  /// Why the original's lines of \p T are slow (Evaluator::cpuEvidence),
  /// gathered once before the search; none when the backend has none.
  virtual std::shared_ptr<const CpuEvidence> evidence(const Target &T) {
    return nullptr;
  }
};

/// Sees the search as it goes: the rollout store, progress output.
class SearchObserver {
public:
  virtual ~SearchObserver();
  virtual void nodeAdded(const Node &N) {}
  /// Called after each batch of evaluations.
  virtual void progress(unsigned Done, unsigned Budget, double BestRatio,
                        double ElapsedSeconds) {}
};

struct SearchResult {
  std::vector<Node> Nodes; ///< Nodes[0] is the root (the baseline).
  int Winner = -1;         ///< Best node other than the root; -1 if none.
  unsigned Evaluations = 0;
  unsigned FromCache = 0; ///< Evaluations answered by the store.
  unsigned Proposed = 0;  ///< Proposals made (evaluated or not).
  /// "budget", "exhausted", "wall time", "tokens", "interrupted"
  std::string StopReason;
  std::optional<EvalResult> Verification;
  bool Verified = false;
  /// The CPU evidence every observation carried; none when not gathered.
  std::shared_ptr<const CpuEvidence> Evidence;
  /// The winner's text as it was verified (EvaluationBackend::finalForm),
  /// after the minimiser dropped the edits it does not need.
  std::string WinnerText;
  /// What the minimiser did with the verified winner's edits.
  std::optional<Minimisation> Minimised;
  /// What the declaration-level simplification and the model's plainer
  /// version did with the winner.
  std::optional<WinnerTidying> Tidied;
  /// The sanitizers' verdict on the reported winner (set when a winner was
  /// verified).
  std::optional<SanitizerVerdict> Sanitizer;
  /// The text the sanitizers last passed (or could not check), and its
  /// verification: what the reported winner falls back to when a smaller
  /// form of it is unsafe.
  std::string CheckedText;
  std::optional<EvalResult> CheckedVerification;
  /// Candidates whose verification failed before the winner's (a held-out
  /// test, a suspect speedup, a slower re-measurement): node and result.
  std::vector<std::pair<unsigned, EvalResult>> Rejected;
  /// The proposer's errors, in order (an LLM that answered nothing usable).
  std::vector<std::string> ProposerErrors;
  double Seconds = 0;
};

class SearchEngine {
public:
  SearchEngine(SearchConfig Config, Proposer &P, EvaluationBackend &Backend,
               Critic *C = nullptr, RTGModel *RTG = nullptr);
  void addObserver(SearchObserver *O) { Observers.push_back(O); }
  /// Tokens spent so far, read to stop on a token budget.
  void setTokenCounter(std::function<uint64_t()> F) { Tokens = std::move(F); }
  /// Polled between evaluations: true stops the search (Ctrl-C), which then
  /// verifies nothing.
  void setInterruptCheck(std::function<bool()> F) {
    Interrupted = std::move(F);
  }

  /// Searches variants of \p T in \p OriginalText, whose baseline evaluation
  /// is \p Baseline, then verifies the winner.
  SearchResult run(const Target &T, llvm::StringRef OriginalText);

  /// The nodes to expand next: the only place the strategies differ.
  std::vector<unsigned> select(const std::vector<Node> &Nodes) const;
  /// The observation of node \p Id (DESIGN section 2).
  Observation observe(const std::vector<Node> &Nodes, unsigned Id) const;

private:
  struct RunState;
  /// Whether the search stops before its next selection (interrupted, out of
  /// wall time or of tokens); if so, the result says why.
  bool stopsEarly(RunState &R) const;
  /// Expands node \p S: proposes, evaluates the best proposals and adds
  /// them as its children. False when interrupted during the evaluation.
  bool expand(RunState &R, unsigned S);
  /// Asks the proposer for \p Ask children of node \p S: those not seen
  /// before; none, the node then exhausted, when it has nothing new.
  std::vector<Variant> proposeNew(RunState &R, unsigned S,
                                  const Observation &Obs, unsigned Ask);
  /// Adds the evaluated variant \p V as a child of node \p S, re-timed
  /// first if it would be the new incumbent, and backs its value up.
  void addChild(RunState &R, unsigned S, Variant V, EvalResult Result,
                double RTGScore, const Observation &Obs);
  void backup(std::vector<Node> &Nodes, unsigned Id) const;
  /// The candidates verifyBest tries, in order: by discounted reward, the
  /// ones the noise cannot tell from the best smallest diff first.
  std::vector<unsigned> verificationOrder(const std::vector<Node> &Nodes) const;
  void verifyBest(const std::vector<Node> &Nodes, const Target &T,
                  SearchResult &Out) const;
  /// Drops the verified winner's edits its speedup does not need
  /// (minimiseWinner).
  void minimise(const std::vector<Node> &Nodes, const Target &T,
                SearchResult &Out) const;
  /// The winner without the compiler hints it adds beside code when wall
  /// time did not confirm their share, kept when the code alone verifies as
  /// a win of its own (Tidy.cpp).
  void dropUncreditedHints(const Target &T, SearchResult &Out) const;
  /// The winner without the declarations nothing needs, then the model's
  /// plainer version of it, each kept when it verifies at the same speedup
  /// (Tidy.cpp).
  void tidyDeclarations(const Target &T, SearchResult &Out) const;
  void askForPlainer(const std::vector<Node> &Nodes, const Target &T,
                     SearchResult &Out) const;
  /// The reported winner under the sanitizers, when it is not the text
  /// verifyBest checked; an unsafe one gives way to that text.
  void reviewFinalText(const Target &T, SearchResult &Out) const;
  int incumbent(const std::vector<Node> &Nodes) const;
  bool expandable(const Node &N) const;

  SearchConfig Config;
  Proposer &Prop;
  EvaluationBackend &Backend;
  Critic *Crit;
  RTGModel *RTG;
  std::vector<SearchObserver *> Observers;
  std::function<uint64_t()> Tokens;
  std::function<bool()> Interrupted;
  // Set during run().
  const Target *Tgt = nullptr;
  std::string Original;
  std::shared_ptr<const CpuEvidence> Evidence;
};

} // namespace maxcode

#endif // MAXCODE_SEARCH_ENGINE_H
