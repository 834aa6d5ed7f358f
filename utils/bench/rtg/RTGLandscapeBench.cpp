//===-- RTGLandscapeBench.cpp - Reranking with a learned RTG --------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// maxcode-rtg-bench [--seeds N] [--budget B]
///
/// On a synthetic, deterministic reward landscape behind the real engine
/// interfaces, measures how many evaluations the search needs to reach its
/// best reward with `--rtg=none` and with a learned reward-to-go model
/// trained on rollouts of other landscapes of the same kind. Each proposal is
/// made by one of a dozen "rules"; a few multiply the parent's speedup, most
/// do nothing, some break the program; the proposer lists them in a shuffled
/// order, as a proposer without a model of their worth would. Prints both
/// counts per landscape and their totals.
///
//===----------------------------------------------------------------------===//

#include "maxcode/Search/Engine.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cmath>
#include <map>
#include <random>

using namespace maxcode;

namespace {

const char *const RuleNames[] = {"good-a",  "good-b",  "plain-1", "plain-2",
                                 "plain-3", "plain-4", "plain-5", "plain-6",
                                 "bad-1",   "bad-2",   "bad-3",   "bad-4"};

double factorOf(llvm::StringRef Rule) {
  if (Rule.starts_with("good"))
    return 1.4;
  if (Rule.starts_with("bad"))
    return 0; // breaks the program
  return 1.0;
}

/// Variants are "root|rule|rule|..."; the landscape's seed perturbs each
/// factor a little so no two landscapes are alike.
class Landscape : public Proposer, public EvaluationBackend {
public:
  explicit Landscape(uint64_t Seed) : Seed(Seed) {}
  llvm::StringRef name() const override { return "landscape"; }
  llvm::Expected<std::vector<Variant>> propose(const Observation &Obs,
                                               unsigned K) override {
    std::vector<std::string> Rules(std::begin(RuleNames), std::end(RuleNames));
    std::mt19937_64 Rng(Seed ^ llvm::xxh3_64bits(Obs.CurrentText));
    std::shuffle(Rules.begin(), Rules.end(), Rng);
    std::vector<Variant> Out;
    for (const std::string &R : Rules) {
      Variant V;
      V.Text = Obs.CurrentText + "|" + R;
      if (llvm::is_contained(Obs.SeenTextHashes, variantHash(V.Text)))
        continue;
      V.Rules = {R};
      V.Description = R;
      Out.push_back(V);
      if (Out.size() == K)
        break;
    }
    return Out;
  }
  double ratio(llvm::StringRef Text) const {
    double R = 1.0;
    llvm::SmallVector<llvm::StringRef, 8> Parts;
    Text.split(Parts, '|');
    for (llvm::StringRef P : llvm::ArrayRef(Parts).drop_front()) {
      double F = factorOf(P);
      if (F == 0)
        return 0;
      R *= F *
           (1 + 0.05 *
                    double(llvm::xxh3_64bits(P.str() + std::to_string(Seed)) %
                           100) /
                    100);
    }
    return R;
  }
  std::vector<EvalResult> evaluate(llvm::ArrayRef<Variant> Vs,
                                   const Target &) override {
    std::vector<EvalResult> Out;
    for (const Variant &V : Vs) {
      EvalResult E;
      double R = ratio(V.Text);
      E.Status = R > 0 ? EvalStatus::Ok : EvalStatus::WrongOutput;
      E.Ratio = R;
      Out.push_back(E);
    }
    return Out;
  }
  EvalResult verify(const Variant &V, const Target &T, unsigned) override {
    return evaluate(V, T).front();
  }
  bool noisy() const override { return false; }

private:
  uint64_t Seed;
};

/// Evaluations until the search first reached \p Goal (node ids count
/// evaluations in order); 0 if it never did.
unsigned evaluationsTo(const SearchResult &R, double Goal) {
  for (const Node &N : R.Nodes)
    if (N.Parent >= 0 && N.Reward >= Goal - 1e-12)
      return N.Id;
  return 0;
}

} // namespace

static llvm::cl::opt<unsigned>
    Seeds("seeds", llvm::cl::desc("Landscapes measured"), llvm::cl::init(10));
static llvm::cl::opt<unsigned> Budget("budget",
                                      llvm::cl::desc("Evaluations per search"),
                                      llvm::cl::init(24));

int main(int argc, char **argv) {
  llvm::cl::ParseCommandLineOptions(argc, argv, "RTG reranking benchmark\n");
  Target T;
  T.Name = "f";
  SearchConfig C;
  C.Settings.Strategy = StrategyKind::Beam;
  C.Settings.BeamWidth = 1;
  C.Settings.Width = 12; // every rule proposed...
  C.Settings.TopM = 3;   // ...the top three evaluated
  C.Settings.Depth = 4;
  C.Settings.Budget = Budget;

  // Rollouts of other landscapes train the model (as --train-rtg does from
  // a store).
  std::vector<RTGExample> Examples;
  for (uint64_t S = 1000; S < 1010; ++S) {
    Landscape L(S);
    SearchConfig Explore = C;
    Explore.Settings.Strategy = StrategyKind::Tree;
    Explore.Settings.TopM = 0;
    Explore.Settings.Width = 4;
    SearchEngine E(Explore, L, L);
    SearchResult R = E.run(T, "root");
    for (const Node &N : R.Nodes)
      if (N.Parent >= 0)
        Examples.push_back({N.Features, N.Value, (S << 16) | N.Id});
  }
  auto Trained = trainRTG(Examples);
  if (!Trained) {
    llvm::errs() << llvm::toString(Trained.takeError()) << "\n";
    return 1;
  }
  llvm::outs() << llvm::formatv("trained on {0} nodes; held-out rank "
                                "correlation {1:f3}\n\n",
                                Examples.size(), Trained->HeldOutSpearman);
  llvm::outs() << "| landscape | best with rtg=none | evaluations to reach "
                  "it: none | learned | best with rtg=learned |\n";
  llvm::outs() << "| --- | --- | --- | --- | --- |\n";
  unsigned SumNone = 0, SumLearned = 0;
  for (uint64_t S = 1; S <= Seeds; ++S) {
    Landscape L(S);
    SearchEngine None(C, L, L);
    SearchResult RN = None.run(T, "root");
    SearchEngine Learned(C, L, L, nullptr, Trained->Model.get());
    SearchResult RL = Learned.run(T, "root");
    auto Best = [](const SearchResult &R) {
      return R.Winner >= 0 ? R.Nodes[R.Winner].Reward : 1.0;
    };
    // The same best reward: the one the search without a model ended with.
    unsigned EN = evaluationsTo(RN, Best(RN)), EL = evaluationsTo(RL, Best(RN));
    if (!EL)
      EL = Budget + 1; // never reached: counted as more than the budget
    SumNone += EN;
    SumLearned += EL;
    llvm::outs() << llvm::formatv("| {0} | {1:f3} | {2} | {3} | {4:f3} |\n", S,
                                  Best(RN), EN, EL, Best(RL));
  }
  llvm::outs() << llvm::formatv("\nevaluations to reach rtg=none's best "
                                "reward, over {0} landscapes: rtg=none {1}, "
                                "rtg=learned {2}\n",
                                unsigned(Seeds), SumNone, SumLearned);
  return 0;
}
