//===-- EngineTest.cpp - The search engine on a synthetic landscape -------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A deterministic reward landscape behind the real interfaces: variants are
// paths ("root/2/0"), a proposer offers K children of a node, and the
// "evaluation" reads a node's speedup from a table or a hash of its path.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Search/Engine.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/xxhash.h"
#include "gtest/gtest.h"

#include <cmath>
#include <map>

using namespace maxcode;

namespace {

/// Speedups by path; paths not listed get a hash-derived value in [0.5, 1.5).
class Landscape {
public:
  std::map<std::string, double> Table;
  double ratio(llvm::StringRef Path) const {
    auto It = Table.find(Path.str());
    if (It != Table.end())
      return It->second;
    return 0.5 + double(llvm::xxh3_64bits(Path) % 1000) / 1000.0;
  }
};

class PathProposer : public Proposer {
public:
  explicit PathProposer(unsigned Fanout) : Fanout(Fanout) {}
  llvm::StringRef name() const override { return "paths"; }
  llvm::Expected<std::vector<Variant>> propose(const Observation &Obs,
                                               unsigned K) override {
    Seen.push_back(Obs);
    std::vector<Variant> Out;
    // The next K children the tree has not seen, as a real proposer does.
    for (unsigned I = 0; I < Fanout && Out.size() < K; ++I) {
      Variant V;
      V.Text = Obs.CurrentText + "/" + std::to_string(I);
      if (llvm::is_contained(Obs.SeenTextHashes, variantHash(V.Text)))
        continue;
      V.Description = V.Text;
      V.Rules = {"child-" + std::to_string(I)};
      Out.push_back(V);
    }
    return Out;
  }
  std::vector<Observation> Seen;
  unsigned Fanout;
};

class LandscapeBackend : public EvaluationBackend {
public:
  explicit LandscapeBackend(const Landscape &L) : L(L) {}
  std::vector<EvalResult> evaluate(llvm::ArrayRef<Variant> Vs,
                                   const Target &) override {
    std::vector<EvalResult> Out;
    for (const Variant &V : Vs) {
      EvalResult R;
      auto Hit = Cache.find(V.Text);
      if (Hit != Cache.end()) {
        R = Hit->second;
        R.FromCache = true;
      } else {
        ++Fresh;
        R.Status = EvalStatus::Ok;
        R.Ratio = L.ratio(V.Text);
        // Past the kill, results are lost with the process.
        if (Fresh <= KillAfter)
          Cache[V.Text] = R;
      }
      Out.push_back(R);
    }
    Calls += Vs.size();
    return Out;
  }
  EvalResult verify(const Variant &V, const Target &T, unsigned) override {
    EvalResult R;
    R.Status = EvalStatus::Ok;
    R.Ratio = L.ratio(V.Text);
    return R;
  }
  bool noisy() const override { return false; }
  const Landscape &L;
  std::map<std::string, EvalResult> Cache;
  unsigned Fresh = 0, Calls = 0;
  unsigned KillAfter = ~0u;
};

SearchResult search(const Landscape &L, SearchConfig C, unsigned Fanout,
                    PathProposer **ProposerOut = nullptr,
                    LandscapeBackend *Backend = nullptr) {
  static Target T;
  T.Name = "f";
  PathProposer *P = new PathProposer(Fanout);
  LandscapeBackend Own(L);
  SearchEngine E(C, *P, Backend ? *Backend : Own);
  SearchResult R = E.run(T, "root");
  if (ProposerOut)
    *ProposerOut = P;
  else
    delete P;
  return R;
}

double bestReward(const SearchResult &R) {
  double B = 0;
  for (const Node &N : R.Nodes)
    if (N.Parent >= 0)
      B = std::max(B, N.Reward);
  return B;
}

TEST(EngineTest, BestOfNReturnsTheMaxOfItsSamples) {
  Landscape L;
  SearchConfig C;
  C.Settings.Strategy = StrategyKind::BestOfN;
  C.Settings.Budget = 6;
  C.Settings.Width = 6;
  SearchResult R = search(L, C, 10);
  ASSERT_EQ(R.Evaluations, 6u);
  for (const Node &N : R.Nodes)
    EXPECT_LE(N.Depth, 1u); // depth 1 only
  ASSERT_GE(R.Winner, 0);
  EXPECT_DOUBLE_EQ(R.Nodes[R.Winner].Reward, bestReward(R));
}

TEST(EngineTest, RefineAlwaysShowsTheIncumbent) {
  Landscape L;
  L.Table = {{"root/0", 1.5}, {"root/0/0", 1.2}, {"root/0/1", 2.0}};
  SearchConfig C;
  C.Settings.Strategy = StrategyKind::Refine;
  C.Settings.Budget = 6;
  PathProposer *P = nullptr;
  SearchResult R = search(L, C, 3, &P);
  ASSERT_FALSE(P->Seen.empty());
  for (const Observation &O : P->Seen)
    EXPECT_EQ(O.CurrentText, O.IncumbentText);
  // Each expansion proposes one variant.
  EXPECT_EQ(R.Evaluations, 6u);
  EXPECT_EQ(R.Nodes[R.Winner].V.Text, "root/0/1");
  delete P;
}

TEST(EngineTest, BeamKeepsTheTopK) {
  Landscape L;
  L.Table = {
      {"root/0", 1.1}, {"root/1", 3.0}, {"root/2", 2.0}, {"root/3", 0.9}};
  SearchConfig C;
  C.Settings.Strategy = StrategyKind::Beam;
  C.Settings.BeamWidth = 2;
  C.Settings.Width = 4;
  C.Settings.Budget = 12;
  PathProposer *P = nullptr;
  SearchResult R = search(L, C, 4, &P);
  // After the root, the nodes expanded at depth 1 are the top two.
  std::vector<std::string> Depth1;
  for (const Observation &O : P->Seen)
    if (O.Depth == 1)
      Depth1.push_back(O.CurrentText);
  EXPECT_EQ(Depth1, (std::vector<std::string>{"root/1", "root/2"}));
  delete P;
}

TEST(EngineTest, ValuesFollowTheMaxBackup) {
  Landscape L;
  for (double Gamma : {1.0, 0.8}) {
    SearchConfig C;
    C.Settings.Strategy = StrategyKind::Tree;
    C.Settings.Budget = 20;
    C.Settings.Width = 3;
    C.Settings.Gamma = Gamma;
    SearchResult R = search(L, C, 3);
    for (const Node &N : R.Nodes) {
      double V = N.Reward;
      for (unsigned Child : N.Children)
        V = std::max(V, Gamma * R.Nodes[Child].Value);
      EXPECT_DOUBLE_EQ(N.Value, V) << N.V.Text;
    }
  }
}

TEST(EngineTest, GammaChangesTheWinner) {
  // A shallow 2.0 and a deep 2.2 (three steps down).
  Landscape L;
  L.Table = {{"root/0", 2.0},
             {"root/1", 1.2},
             {"root/1/0", 1.3},
             {"root/1/0/0", 2.2},
             {"root/0/0", 0.6}};
  for (auto [Gamma, Expected] :
       {std::pair<double, const char *>{1.0, "root/1/0/0"},
        std::pair<double, const char *>{0.9, "root/0"}}) {
    SearchConfig C;
    C.Settings.Strategy = StrategyKind::Beam;
    C.Settings.BeamWidth = 2;
    C.Settings.Width = 2;
    C.Settings.Budget = 12;
    C.Settings.Gamma = Gamma;
    SearchResult R = search(L, C, 2);
    ASSERT_GE(R.Winner, 0);
    EXPECT_EQ(R.Nodes[R.Winner].V.Text, Expected) << "gamma " << Gamma;
  }
}

TEST(EngineTest, BudgetIsRespectedExactly) {
  Landscape L;
  for (StrategyKind S : {StrategyKind::BestOfN, StrategyKind::Refine,
                         StrategyKind::Beam, StrategyKind::Tree}) {
    for (unsigned Budget : {1u, 5u, 13u}) {
      SearchConfig C;
      C.Settings.Strategy = S;
      C.Settings.Budget = Budget;
      C.Settings.Width = 4;
      LandscapeBackend B(L);
      SearchResult R = search(L, C, 50, nullptr, &B);
      EXPECT_EQ(R.Evaluations, Budget) << optionValueName(S).str();
      EXPECT_EQ(B.Calls, Budget) << optionValueName(S).str();
      EXPECT_EQ(R.Nodes.size(), Budget + 1) << optionValueName(S).str();
    }
  }
}

TEST(EngineTest, KilledAndResumedRunEndsTheSameAndRepeatsNothing) {
  Landscape L;
  for (StrategyKind S : {StrategyKind::BestOfN, StrategyKind::Refine,
                         StrategyKind::Beam, StrategyKind::Tree}) {
    SearchConfig C;
    C.Settings.Strategy = S;
    C.Settings.Budget = 10;
    C.Settings.Width = 3;
    LandscapeBackend Whole(L);
    SearchResult Uninterrupted = search(L, C, 4, nullptr, &Whole);
    for (unsigned KillAt = 1; KillAt < Whole.Fresh; ++KillAt) {
      // The killed run got KillAt evaluations into the store before it
      // died; the resumed run replays the same search against the store.
      LandscapeBackend Killed(L);
      Killed.KillAfter = KillAt;
      (void)search(L, C, 4, nullptr, &Killed);
      LandscapeBackend Store(L);
      Store.Cache = Killed.Cache;
      SearchResult Resumed = search(L, C, 4, nullptr, &Store);
      // Nothing stored is evaluated again; everything else exactly once.
      EXPECT_EQ(Resumed.FromCache, KillAt) << optionValueName(S).str();
      EXPECT_EQ(Store.Fresh + KillAt, Whole.Fresh)
          << optionValueName(S).str() << " " << KillAt;
      ASSERT_EQ(Resumed.Winner, Uninterrupted.Winner)
          << optionValueName(S).str();
      EXPECT_EQ(Resumed.Nodes[Resumed.Winner].V.Text,
                Uninterrupted.Nodes[Uninterrupted.Winner].V.Text);
    }
  }
}

TEST(EngineTest, RewardOrdersFailuresBelowAnyOkVariant) {
  EvalResult R;
  double Last = -1;
  for (EvalStatus S : {EvalStatus::Rejected, EvalStatus::BuildError,
                       EvalStatus::Crash, EvalStatus::WrongOutput}) {
    R.Status = S;
    EXPECT_GT(rewardOf(R), Last);
    Last = rewardOf(R);
  }
  R.Status = EvalStatus::Ok;
  R.Ratio = 0.01; // a hundred times slower is still better than wrong
  EXPECT_GT(rewardOf(R), Last);
  R.Ratio = 2.5;
  EXPECT_DOUBLE_EQ(rewardOf(R), 2.5);
}

} // namespace

namespace {

/// One proposal: a change of code with an unroll pragma beside it.
class HintsProposer : public Proposer {
public:
  llvm::StringRef name() const override { return "hints"; }
  llvm::Expected<std::vector<Variant>> propose(const Observation &Obs,
                                               unsigned) override {
    if (Obs.CurrentText != Original)
      return std::vector<Variant>();
    Variant V;
    V.Text = Winner;
    V.Description = "a sum written out, and an unroll pragma";
    V.Rules = {"code", "loop-unroll-pragma"};
    return std::vector<Variant>{V};
  }
  static constexpr const char *Original = "int f(int n) {\n"
                                          "  int s = 0;\n"
                                          "  for (int i = 0; i < n; ++i)\n"
                                          "    s += i;\n"
                                          "  return s;\n"
                                          "}\n";
  static constexpr const char *Winner = "int f(int n) {\n"
                                        "  int s = 0;\n"
                                        "#pragma GCC unroll 4\n"
                                        "  for (int i = 0; i < n; ++i)\n"
                                        "    s = s + i;\n"
                                        "  return s;\n"
                                        "}\n";
};

/// Verifies as the evaluator does by instructions: with the pragma, the
/// count reads 1.21x and the credit is the code alone's 1.17x unless time
/// confirmed more (TimeCredit); the code alone verifies at CodeAlone.
class HintsBackend : public EvaluationBackend {
public:
  std::vector<EvalResult> evaluate(llvm::ArrayRef<Variant> Vs,
                                   const Target &) override {
    std::vector<EvalResult> Out;
    for (size_t I = 0; I < Vs.size(); ++I) {
      EvalResult R;
      R.Status = EvalStatus::Ok;
      R.Ratio = R.RawRatio = 1.21;
      Out.push_back(R);
    }
    return Out;
  }
  EvalResult verify(const Variant &V, const Target &, unsigned) override {
    Verified.push_back(V.Text);
    EvalResult R;
    R.Status = EvalStatus::Ok;
    if (llvm::StringRef(V.Text).contains("#pragma")) {
      R.RawRatio = 1.21;
      R.CodeRatio = 1.17;
      R.Ratio = std::max(1.17, TimeCredit);
      R.Unconfirmed = true;
    } else {
      R.Ratio = R.RawRatio = CodeAlone;
    }
    return R;
  }
  bool noisy() const override { return false; }
  double TimeCredit = 0, CodeAlone = 1.17;
  std::vector<std::string> Verified;
};

SearchResult searchWithHints(HintsBackend &B) {
  static Target T;
  T.Name = "f";
  HintsProposer P;
  SearchConfig C;
  C.Settings.Budget = 1;
  C.Settings.MinimiseBudget = 0;
  SearchEngine E(C, P, B);
  return E.run(T, HintsProposer::Original);
}

} // namespace

TEST(EngineTest, UncreditedHintsLeaveTheWinner) {
  HintsBackend B;
  // A second reading of the code alone a little below the first: the
  // credit was the code's, so the hints still go.
  B.CodeAlone = 1.15;
  SearchResult R = searchWithHints(B);
  ASSERT_GE(R.Winner, 0);
  ASSERT_TRUE(R.Verification);
  EXPECT_EQ(R.WinnerText.find("#pragma"), std::string::npos);
  EXPECT_NE(R.WinnerText.find("s = s + i;"), std::string::npos);
  EXPECT_DOUBLE_EQ(R.Verification->Ratio, 1.15);
  ASSERT_TRUE(R.Tidied);
  EXPECT_NE(R.Tidied->HintsOutcome.find("taken out"), std::string::npos)
      << R.Tidied->HintsOutcome;
  ASSERT_EQ(B.Verified.size(), 2u); // The winner, then the code alone.
}

TEST(EngineTest, HintsStayWhereTimeCreditsThem) {
  HintsBackend B;
  B.TimeCredit = 1.20;
  SearchResult R = searchWithHints(B);
  ASSERT_TRUE(R.Verification);
  EXPECT_NE(R.WinnerText.find("#pragma GCC unroll 4"), std::string::npos);
  EXPECT_DOUBLE_EQ(R.Verification->Ratio, 1.20);
  EXPECT_TRUE(!R.Tidied || R.Tidied->HintsOutcome.empty());
  EXPECT_EQ(B.Verified.size(), 1u);
}

TEST(EngineTest, HintsStayWhereTheCodeAloneFallsShort) {
  HintsBackend B;
  B.CodeAlone = 1.0; // No win of its own when verified again.
  SearchResult R = searchWithHints(B);
  ASSERT_TRUE(R.Verification);
  EXPECT_NE(R.WinnerText.find("#pragma GCC unroll 4"), std::string::npos);
  EXPECT_DOUBLE_EQ(R.Verification->Ratio, 1.17);
  ASSERT_TRUE(R.Tidied);
  EXPECT_NE(R.Tidied->HintsOutcome.find("stay"), std::string::npos)
      << R.Tidied->HintsOutcome;
}
