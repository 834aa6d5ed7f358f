//===-- Engine.cpp - The max-reward search --------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Search/Engine.h"
#include "maxcode/Search/Minimise.h"
#include "maxcode/Support/Debug.h"
#include "maxcode/Support/Diff.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Debug.h"

#include <chrono>
#include <cmath>
#include <map>
#include <numeric>

#define DEBUG_TYPE "maxcode-search"

using namespace maxcode;

EvaluationBackend::~EvaluationBackend() = default;
SearchObserver::~SearchObserver() = default;

double maxcode::rewardOf(const EvalResult &R) {
  switch (R.Status) {
  case EvalStatus::Ok:
    // Never below a failure, however slow.
    return std::max(R.Ratio, 0.05);
  case EvalStatus::WrongOutput:
  case EvalStatus::Unsafe:
    return 0.03;
  case EvalStatus::Timeout:
  case EvalStatus::Crash:
    return 0.02;
  case EvalStatus::BuildError:
    return 0.01;
  case EvalStatus::Rejected:
    return 0.0;
  }
  llvm_unreachable("unknown status");
}

double Node::discounted(double Gamma) const {
  return std::pow(Gamma, Depth) * Reward;
}

SearchEngine::SearchEngine(SearchConfig C, Proposer &P,
                           EvaluationBackend &Backend, Critic *Crit,
                           RTGModel *RTG)
    : Config(C), Prop(P), Backend(Backend), Crit(Crit), RTG(RTG) {
  // The strategies are settings of the same loop.
  switch (Config.Settings.Strategy) {
  case StrategyKind::BestOfN:
    Config.Settings.Depth = 1; // every proposal is a child of the root
    break;
  case StrategyKind::Refine:
    Config.Settings.Width = 1; // one proposal at a time, from the incumbent
    break;
  case StrategyKind::Beam:
  case StrategyKind::Tree:
    break;
  }
  if (Config.Settings.TopM == 0)
    Config.Settings.TopM = Config.Settings.Width;
}

bool SearchEngine::expandable(const Node &N) const {
  if (N.Exhausted || N.Depth + 1 > Config.Settings.Depth)
    return false;
  return N.Parent < 0 || N.Result.ok() || Config.ExpandFailures;
}

int SearchEngine::incumbent(const std::vector<Node> &Nodes) const {
  int Best = 0;
  for (const Node &N : Nodes)
    if ((N.Parent < 0 || N.Result.ok()) &&
        N.discounted(Config.Settings.Gamma) >
            Nodes[Best].discounted(Config.Settings.Gamma))
      Best = N.Id;
  return Best;
}

std::vector<unsigned>
SearchEngine::select(const std::vector<Node> &Nodes) const {
  std::vector<unsigned> Candidates;
  for (const Node &N : Nodes)
    if (expandable(N))
      Candidates.push_back(N.Id);
  if (Candidates.empty())
    return {};
  auto ByValue = [&](unsigned A, unsigned B) {
    if (Nodes[A].Value != Nodes[B].Value)
      return Nodes[A].Value > Nodes[B].Value;
    return A < B;
  };
  switch (Config.Settings.Strategy) {
  case StrategyKind::BestOfN:
    // Width N from the root, depth 1.
    return expandable(Nodes[0]) ? std::vector<unsigned>{0}
                                : std::vector<unsigned>{};
  case StrategyKind::Refine: {
    // Always the incumbent; when it has nothing more to offer, the next best.
    unsigned Inc = unsigned(incumbent(Nodes));
    if (expandable(Nodes[Inc]))
      return {Inc};
    llvm::sort(Candidates, ByValue);
    return {Candidates.front()};
  }
  case StrategyKind::Beam: {
    // The top BeamWidth nodes of the shallowest depth whose beam is not yet
    // expanded; once every beam is, the deepest beam again.
    unsigned MaxDepth = 0;
    for (unsigned Id : Candidates)
      MaxDepth = std::max(MaxDepth, Nodes[Id].Depth);
    for (unsigned D = 0; D <= MaxDepth; ++D) {
      std::vector<unsigned> Level;
      for (const Node &N : Nodes)
        if (N.Depth == D && (N.Parent < 0 || N.Result.ok()))
          Level.push_back(N.Id);
      llvm::sort(Level, ByValue);
      if (Level.size() > Config.Settings.BeamWidth)
        Level.resize(Config.Settings.BeamWidth);
      std::vector<unsigned> Fresh;
      for (unsigned Id : Level)
        if (expandable(Nodes[Id]) && Nodes[Id].Expansions == 0)
          Fresh.push_back(Id);
      if (!Fresh.empty())
        return Fresh;
    }
    std::vector<unsigned> Deepest;
    for (unsigned Id : Candidates)
      if (Nodes[Id].Depth == MaxDepth)
        Deepest.push_back(Id);
    llvm::sort(Deepest, ByValue);
    if (Deepest.size() > Config.Settings.BeamWidth)
      Deepest.resize(Config.Settings.BeamWidth);
    return Deepest;
  }
  case StrategyKind::Tree: {
    // An upper-confidence score on the max-value: values are normalised by
    // the best so far, so the exploration constant means the same at any
    // speedup.
    double Best = 0;
    unsigned Total = 0;
    for (const Node &N : Nodes) {
      Best = std::max(Best, N.Value);
      Total += N.Expansions;
    }
    auto Score = [&](unsigned Id) {
      const Node &N = Nodes[Id];
      return (Best > 0 ? N.Value / Best : 0) +
             Config.Exploration *
                 std::sqrt(std::log(1.0 + Total) / (1.0 + N.Expansions));
    };
    unsigned Pick = Candidates.front();
    for (unsigned Id : Candidates)
      if (Score(Id) > Score(Pick) + 1e-12)
        Pick = Id;
    return {Pick};
  }
  }
  llvm_unreachable("unknown strategy");
}

/// Node \p N as an earlier attempt in an observation.
static Attempt attemptOf(const Node &N) {
  return {N.V.Description, N.V.Rules, N.Result.Status, N.Reward};
}

Observation SearchEngine::observe(const std::vector<Node> &Nodes,
                                  unsigned Id) const {
  Observation O;
  O.OriginalTarget = *Tgt;
  O.OriginalText = Original;
  const Node &N = Nodes[Id];
  O.CurrentText = N.V.Text;
  O.Evidence = Evidence;
  if (N.Parent >= 0)
    O.Feedback = N.Result;
  O.Depth = N.Depth;
  O.ExpansionIndex = N.Expansions;
  // The path from the root: critiques, and u = max_t gamma^t r_t.
  std::vector<unsigned> Path;
  for (int P = int(Id); P >= 0; P = Nodes[P].Parent)
    Path.push_back(unsigned(P));
  std::reverse(Path.begin(), Path.end());
  O.U = 0;
  for (unsigned P : Path) {
    O.U = std::max(O.U, Nodes[P].discounted(Config.Settings.Gamma));
    if (Nodes[P].Parent >= 0) {
      O.Critiques.push_back(Nodes[P].Crit);
      O.CritiquedAttempts.push_back(attemptOf(Nodes[P]));
    }
  }
  const Node &Inc = Nodes[incumbent(Nodes)];
  O.IncumbentText = Inc.V.Text;
  O.IncumbentReward = Inc.Reward;
  for (size_t I = Nodes.size() > Config.HistoryLength
                      ? Nodes.size() - Config.HistoryLength
                      : 1;
       I < Nodes.size(); ++I)
    O.History.push_back(attemptOf(Nodes[I]));
  for (const Node &M : Nodes)
    O.SeenTextHashes.push_back(M.Hash);
  return O;
}

void SearchEngine::backup(std::vector<Node> &Nodes, unsigned Id) const {
  for (int P = int(Id); P >= 0; P = Nodes[P].Parent) {
    Node &N = Nodes[P];
    double V = N.Reward;
    for (unsigned C : N.Children)
      V = std::max(V, Config.Settings.Gamma * Nodes[C].Value);
    N.Value = V;
  }
}

/// What one run() of the search carries from one expansion to the next.
struct SearchEngine::RunState {
  RunState(const Target &T, SearchResult &Out) : T(T), Out(Out) {}

  const Target &T;
  SearchResult &Out;
  /// The hashes of every variant proposed so far, the original's first.
  llvm::StringSet<> Seen;
  std::chrono::steady_clock::time_point Start =
      std::chrono::steady_clock::now();

  /// Seconds since the run started.
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         Start)
        .count();
  }
};

bool SearchEngine::stopsEarly(RunState &R) const {
  if (Interrupted && Interrupted()) {
    R.Out.StopReason = "interrupted";
    return true;
  }
  if (Config.Settings.MaxTime > 0 && R.elapsed() >= Config.Settings.MaxTime) {
    R.Out.StopReason = "wall time";
    return true;
  }
  if (Config.Settings.MaxTokens && Tokens &&
      Tokens() >= Config.Settings.MaxTokens) {
    R.Out.StopReason = "tokens";
    return true;
  }
  return false;
}

std::vector<Variant> SearchEngine::proposeNew(RunState &R, unsigned S,
                                              const Observation &Obs,
                                              unsigned Ask) {
  std::vector<Node> &Nodes = R.Out.Nodes;
  auto Proposed = Prop.propose(Obs, Ask);
  ++Nodes[S].Expansions;
  if (!Proposed) {
    // A proposer that fails here (an LLM answering garbage) has nothing
    // to offer this node now; the result keeps why.
    R.Out.ProposerErrors.push_back(llvm::toString(Proposed.takeError()));
    Nodes[S].Exhausted = true;
    return {};
  }
  std::vector<Variant> C;
  for (Variant &V : *Proposed)
    if (R.Seen.insert(variantHash(V.Text)).second)
      C.push_back(std::move(V));
  R.Out.Proposed += C.size();
  if (C.empty())
    Nodes[S].Exhausted = true;
  return C;
}

void SearchEngine::addChild(RunState &R, unsigned S, Variant V,
                            EvalResult Result, double RTGScore,
                            const Observation &Obs) {
  SearchResult &Out = R.Out;
  std::vector<Node> &Nodes = Out.Nodes;
  Node N;
  N.Id = Nodes.size();
  N.Parent = int(S);
  N.Depth = Nodes[S].Depth + 1;
  N.V = std::move(V);
  N.Hash = variantHash(N.V.Text);
  N.Result = std::move(Result);
  N.Reward = rewardOf(N.Result);
  N.Features = makeRTGFeatures(Obs, N.V);
  N.RTGScore = RTGScore;
  ++Out.Evaluations;
  if (N.Result.FromCache)
    ++Out.FromCache;
  // Re-time a new incumbent before it replaces the old one, so the
  // max does not chase lucky noise (DESIGN section 5).
  int Inc = incumbent(Nodes);
  if (Backend.noisy() && N.Result.ok() &&
      N.discounted(Config.Settings.Gamma) >
          Nodes[Inc].discounted(Config.Settings.Gamma)) {
    EvalResult Again = Backend.retime(N.V, R.T, Config.VerifyRepetitions);
    if (!Again.ok() || Again.Ratio < N.Result.Ratio) {
      // The re-time runs held-out tests too: their verdicts stay out of
      // what the proposer and critic read (DESIGN section 4, rule 5).
      N.Result.Notes.push_back(
          Again.ok() ? "re-timed: ratio " + std::to_string(Again.Ratio)
                     : std::string("re-timed: not confirmed"));
      N.Result.Ratio = Again.ok() ? Again.Ratio : 1.0;
      N.Reward = rewardOf(N.Result);
    }
  }
  if (Crit)
    N.Crit = Crit->critique(N.Result, N.V, Obs);
  N.Value = N.Reward;
  unsigned Id = N.Id;
  Nodes[S].Children.push_back(Id);
  Nodes.push_back(std::move(N));
  backup(Nodes, Id);
  for (SearchObserver *O : Observers)
    O->nodeAdded(Nodes[Id]);
}

bool SearchEngine::expand(RunState &R, unsigned S) {
  SearchResult &Out = R.Out;
  std::vector<Node> &Nodes = Out.Nodes;
  Observation Obs = observe(Nodes, S);
  unsigned Left = Config.Settings.Budget - Out.Evaluations;
  unsigned Ask = Config.Settings.Strategy == StrategyKind::BestOfN
                     ? std::min(Config.Settings.Width, Left)
                     : Config.Settings.Width;
  auto Start = std::chrono::steady_clock::now();
  std::vector<Variant> C = proposeNew(R, S, Obs, Ask);
  if (C.empty())
    return true;
  auto Proposed = std::chrono::steady_clock::now();
  // Rerank by predicted reward-to-go; evaluate the top m.
  std::vector<double> Scores(C.size(), 0);
  if (RTG)
    Scores = RTG->score(Obs, C);
  std::vector<size_t> Order(C.size());
  std::iota(Order.begin(), Order.end(), 0);
  if (RTG)
    std::stable_sort(Order.begin(), Order.end(),
                     [&](size_t A, size_t B) { return Scores[A] > Scores[B]; });
  size_t Keep = std::min<size_t>({Order.size(), Config.Settings.TopM, Left});
  Order.resize(Keep);
  std::vector<Variant> Batch;
  for (size_t I : Order)
    Batch.push_back(C[I]);
  std::vector<EvalResult> Results = Backend.evaluate(Batch, R.T);
  // Where a batch's time goes: the proposer's, or the evaluations'.
  MAXCODE_DEBUG({
    auto Seconds = [](auto D) {
      return std::chrono::duration<double>(D).count();
    };
    auto Now = std::chrono::steady_clock::now();
    llvm::dbgs() << DEBUG_TYPE << ": proposed " << C.size() << " in "
                 << Seconds(Proposed - Start) << " s; evaluated "
                 << Batch.size() << " in " << Seconds(Now - Proposed) << " s\n";
  });
  // An interrupted batch says nothing about its variants: it is not
  // kept, so that --resume evaluates it again.
  if (Interrupted && Interrupted())
    return false;
  for (size_t K = 0; K < Batch.size(); ++K)
    addChild(R, S, std::move(Batch[K]), std::move(Results[K]), Scores[Order[K]],
             Obs);
  double Best = Nodes[incumbent(Nodes)].Reward;
  for (SearchObserver *O : Observers)
    O->progress(Out.Evaluations, Config.Settings.Budget, Best, R.elapsed());
  return true;
}

SearchResult SearchEngine::run(const Target &T, llvm::StringRef OriginalText) {
  SearchResult Out;
  RunState R(T, Out);
  Tgt = &T;
  Original = OriginalText.str();
  std::vector<Node> &Nodes = Out.Nodes;
  Node Root;
  Root.V.Text = Original;
  Root.V.Description = "the original";
  Root.Hash = variantHash(Original);
  Root.Result.Status = EvalStatus::Ok;
  Root.Result.Ratio = 1.0;
  Root.Reward = Root.Value = 1.0;
  Nodes.push_back(std::move(Root));
  for (SearchObserver *O : Observers)
    O->nodeAdded(Nodes.front());
  Out.Evidence = Evidence = Backend.evidence(T);
  R.Seen.insert(Nodes.front().Hash);

  Out.StopReason = "budget";
  while (Out.Evaluations < Config.Settings.Budget) {
    if (stopsEarly(R))
      break;
    std::vector<unsigned> Selected = select(Nodes);
    if (Selected.empty()) {
      Out.StopReason = "exhausted";
      break;
    }
    for (unsigned S : Selected) {
      if (Out.Evaluations >= Config.Settings.Budget ||
          (Interrupted && Interrupted()))
        break;
      if (!expand(R, S))
        break;
    }
  }

  // Verify the winner: rebuilt, re-checked on every test (held-out ones
  // included), re-timed with more repetitions. A candidate that does not
  // hold up (a held-out test, a suspect speedup) gives way to the next.
  if (!(Interrupted && Interrupted()))
    verifyBest(Nodes, T, Out);
  // Then the smallest winner that keeps its speedup is what is reported:
  // without the declarations nothing needs, without the edits it does not
  // need, and plainer if the model can make it so; the sanitizers have the
  // last word on the text reported.
  auto Going = [&] { return Out.Verified && !(Interrupted && Interrupted()); };
  if (Going())
    dropUncreditedHints(T, Out);
  if (Going())
    tidyDeclarations(T, Out);
  if (Going() && Config.Settings.MinimiseBudget) {
    minimise(Nodes, T, Out);
    // A hunk the minimiser dropped may have been a helper's one use.
    if (Going() && Out.Minimised && Out.Minimised->dropped())
      tidyDeclarations(T, Out);
  }
  if (Going())
    askForPlainer(Nodes, T, Out);
  if (Going())
    reviewFinalText(T, Out);
  // An interrupt during the verification or the tidying ends the run as one
  // during the search does: unfinished, nothing written or applied.
  if (Interrupted && Interrupted())
    Out.StopReason = "interrupted";
  Out.Seconds = R.elapsed();
  return Out;
}

void SearchEngine::minimise(const std::vector<Node> &Nodes, const Target &T,
                            SearchResult &Out) const {
  const Node &W = Nodes[Out.Winner];
  MinimiseInput In;
  In.Original = Original;
  In.WinnerText = Out.WinnerText;
  In.Winner = &W.V;
  In.Searched = &W.Result;
  // Each smaller text is measured against the winner's search evaluation;
  // with its hints taken out the winner is a text that evaluation did not
  // measure, and every hunk would seem to lose the hints' share.
  std::optional<EvalResult> Reference;
  if (Out.Tidied && Out.Tidied->HintsDropped) {
    Variant Now = W.V;
    Now.Text = Out.WinnerText;
    Reference = Backend.evaluate(Now, T).front();
    if (!Reference->ok())
      return;
    In.Searched = &*Reference;
  }
  In.Verified = &*Out.Verification;
  In.Budget = Config.Settings.MinimiseBudget;
  In.VerifyRepetitions = Config.VerifyRepetitions;
  MinimiseOutcome M = minimiseWinner(Backend, T, In);
  if (M.Verification) {
    Out.WinnerText = std::move(M.Text);
    Out.Verification = std::move(M.Verification);
  }
  Out.Minimised = std::move(M.M);
}

unsigned maxcode::changedLines(llvm::StringRef Original, llvm::StringRef Text) {
  unsigned N = 0;
  for (const DiffHunk &H : diffLines(Original, Text))
    N += H.BeforeCount + H.AfterCount;
  return N;
}

std::vector<unsigned>
SearchEngine::verificationOrder(const std::vector<Node> &Nodes) const {
  std::vector<unsigned> Order;
  for (const Node &N : Nodes)
    if (N.Parent >= 0 && N.Result.ok() && N.Result.Ratio > 1.0 &&
        N.discounted(Config.Settings.Gamma) >
            Nodes[0].discounted(Config.Settings.Gamma))
      Order.push_back(N.Id);
  std::stable_sort(Order.begin(), Order.end(), [&](unsigned A, unsigned B) {
    return Nodes[A].discounted(Config.Settings.Gamma) >
           Nodes[B].discounted(Config.Settings.Gamma);
  });
  if (Order.size() < 2)
    return Order;
  // Candidates the noise cannot tell from the best go smallest diff first:
  // the same speedup in fewer lines is the one a reviewer merges.
  const Node &Best = Nodes[Order.front()];
  auto Tied = [&](unsigned Id) {
    const Node &N = Nodes[Id];
    double Margin = std::max(0.01, Best.Result.relativeMargin() +
                                       N.Result.relativeMargin());
    return N.discounted(Config.Settings.Gamma) * (1 + Margin) >=
           Best.discounted(Config.Settings.Gamma);
  };
  auto End = std::stable_partition(Order.begin(), Order.end(), Tied);
  std::map<unsigned, unsigned> Size;
  for (auto It = Order.begin(); It != End; ++It)
    Size[*It] = changedLines(Original, Nodes[*It].V.Text);
  std::stable_sort(Order.begin(), End,
                   [&](unsigned A, unsigned B) { return Size[A] < Size[B]; });
  return Order;
}

void SearchEngine::verifyBest(const std::vector<Node> &Nodes, const Target &T,
                              SearchResult &Out) const {
  for (unsigned Id : verificationOrder(Nodes)) {
    if (Out.Rejected.size() >= Config.VerifyCandidates ||
        (Interrupted && Interrupted()))
      break;
    Variant Final = Backend.finalForm(Nodes[Id].V, T);
    EvalResult V = Backend.verify(Final, T, Config.VerifyRepetitions);
    MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": verified node " << Id << ": "
                               << evalStatusName(V.Status) << ", " << V.Ratio
                               << "x credited, " << V.RawRatio << "x measured ("
                               << V.Reason << ")\n");
    if (V.ok() && V.Ratio > 1.0 && !V.Suspect &&
        Config.Settings.SanitizeWinner) {
      // Undefined behaviour the tests do not show is no win.
      SanitizerVerdict S = Backend.sanitize(Final);
      if (S.Kind == SanitizerVerdict::Finding) {
        V.Status = EvalStatus::Unsafe;
        V.Reason = S.Detail;
      }
      Out.Sanitizer = std::move(S);
    }
    if (V.ok() && V.Ratio > 1.0 && !V.Suspect) {
      Out.Winner = int(Id);
      Out.Verified = true;
      Out.Verification = std::move(V);
      Out.WinnerText = std::move(Final.Text);
      Out.CheckedText = Out.WinnerText;
      Out.CheckedVerification = Out.Verification;
      return;
    }
    Out.Rejected.push_back({Id, std::move(V)});
  }
  Out.Sanitizer.reset();
  // Nothing held up: the best candidate and why, for the summary.
  if (!Out.Rejected.empty()) {
    Out.Winner = int(Out.Rejected.front().first);
    Out.Verification = Out.Rejected.front().second;
  }
}
