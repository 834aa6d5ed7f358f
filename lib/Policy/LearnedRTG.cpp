//===-- LearnedRTG.cpp - Reward-to-go from rollouts -----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Policy/LearnedRTG.h"
#include "maxcode/Support/Options.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/xxhash.h"

#include <cmath>
#include <numeric>

using namespace maxcode;

Proposer::~Proposer() = default;
Critic::~Critic() = default;
RTGModel::~RTGModel() = default;

std::string maxcode::variantHash(llvm::StringRef Text) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(Text)),
                     /*LowerCase=*/true);
}

RTGFeatures maxcode::makeRTGFeatures(const Observation &Obs, const Variant &V) {
  RTGFeatures F;
  F.Rules = V.Rules;
  // Lines of the candidate that the parent does not have: a cheap, order-
  // free measure of the size of the change.
  llvm::StringMap<unsigned> Parent;
  for (llvm::StringRef L : llvm::split(Obs.CurrentText, '\n'))
    ++Parent[L.trim()];
  unsigned Changed = 0;
  for (llvm::StringRef L : llvm::split(V.Text, '\n')) {
    auto It = Parent.find(L.trim());
    if (It == Parent.end() || It->second == 0)
      ++Changed;
    else
      --It->second;
  }
  F.ChangedLines = Changed;
  if (!Obs.Critiques.empty())
    for (CritiqueTag T : Obs.Critiques.back().Tags)
      F.ParentTags.push_back(critiqueTagName(T).str());
  F.ParentReward = Obs.Feedback && Obs.Feedback->ok() ? Obs.Feedback->Ratio
                                                      : (Obs.Depth ? 0 : 1);
  F.Depth = Obs.Depth + 1;
  F.U = Obs.U;
  return F;
}

llvm::json::Value maxcode::toJSON(const RTGFeatures &F) {
  return llvm::json::Object{{"rules", F.Rules},
                            {"changed_lines", F.ChangedLines},
                            {"parent_tags", F.ParentTags},
                            {"parent_reward", F.ParentReward},
                            {"depth", F.Depth},
                            {"u", F.U}};
}

bool maxcode::fromJSON(const llvm::json::Value &V, RTGFeatures &F,
                       llvm::json::Path P) {
  llvm::json::ObjectMapper O(V, P);
  int64_t Depth = 0;
  bool OK = O && O.map("rules", F.Rules) &&
            O.map("changed_lines", F.ChangedLines) &&
            O.map("parent_tags", F.ParentTags) &&
            O.map("parent_reward", F.ParentReward) && O.map("depth", Depth) &&
            O.map("u", F.U);
  F.Depth = unsigned(Depth);
  return OK;
}

std::vector<double> LearnedRTG::featurize(const RTGFeatures &F) const {
  std::vector<double> X;
  X.push_back(1.0);
  X.push_back(std::log1p(F.ChangedLines));
  X.push_back(std::log(std::max(F.ParentReward, 0.01)));
  X.push_back(std::log(std::max(F.U, 0.01)));
  X.push_back(F.Depth);
  for (const std::string &R : RuleVocab)
    X.push_back(llvm::is_contained(F.Rules, R) ? 1.0 : 0.0);
  for (const std::string &T : TagVocab)
    X.push_back(llvm::is_contained(F.ParentTags, T) ? 1.0 : 0.0);
  return X;
}

/// Solves A x = b (A symmetric positive definite) by Gaussian elimination
/// with partial pivoting; A is small (tens of features).
static std::vector<double> solve(std::vector<std::vector<double>> A,
                                 std::vector<double> B) {
  size_t N = B.size();
  for (size_t C = 0; C < N; ++C) {
    size_t Pivot = C;
    for (size_t R = C + 1; R < N; ++R)
      if (std::fabs(A[R][C]) > std::fabs(A[Pivot][C]))
        Pivot = R;
    std::swap(A[C], A[Pivot]);
    std::swap(B[C], B[Pivot]);
    if (std::fabs(A[C][C]) < 1e-12)
      continue;
    for (size_t R = C + 1; R < N; ++R) {
      double F = A[R][C] / A[C][C];
      for (size_t K = C; K < N; ++K)
        A[R][K] -= F * A[C][K];
      B[R] -= F * B[C];
    }
  }
  std::vector<double> X(N, 0);
  for (size_t C = N; C-- > 0;) {
    if (std::fabs(A[C][C]) < 1e-12)
      continue;
    double S = B[C];
    for (size_t K = C + 1; K < N; ++K)
      S -= A[C][K] * X[K];
    X[C] = S / A[C][C];
  }
  return X;
}

llvm::Expected<std::unique_ptr<LearnedRTG>>
LearnedRTG::fit(llvm::ArrayRef<RTGExample> Examples, double Lambda) {
  if (Examples.size() < 4)
    return llvm::createStringError(
        "too few stored nodes to train the reward-to-go model (" +
        std::to_string(Examples.size()) +
        "; run a few searches that keep their rollouts in this store first)");
  std::unique_ptr<LearnedRTG> M(new LearnedRTG());
  llvm::StringSet<> Rules, Tags;
  for (const RTGExample &E : Examples) {
    for (const std::string &R : E.Features.Rules)
      Rules.insert(R);
    for (const std::string &T : E.Features.ParentTags)
      Tags.insert(T);
  }
  for (const auto &R : Rules)
    M->RuleVocab.push_back(R.getKey().str());
  for (const auto &T : Tags)
    M->TagVocab.push_back(T.getKey().str());
  llvm::sort(M->RuleVocab);
  llvm::sort(M->TagVocab);
  size_t D = M->featurize(Examples.front().Features).size();
  std::vector<std::vector<double>> A(D, std::vector<double>(D, 0));
  std::vector<double> B(D, 0);
  for (const RTGExample &E : Examples) {
    std::vector<double> X = M->featurize(E.Features);
    double Y = std::log(std::max(E.Target, 0.01));
    for (size_t I = 0; I < D; ++I) {
      B[I] += X[I] * Y;
      for (size_t J = 0; J < D; ++J)
        A[I][J] += X[I] * X[J];
    }
  }
  // Ridge, but not on the intercept.
  for (size_t I = 1; I < D; ++I)
    A[I][I] += Lambda;
  M->Weights = solve(std::move(A), std::move(B));
  return M;
}

double LearnedRTG::predict(const RTGFeatures &F) const {
  std::vector<double> X = featurize(F);
  double S = 0;
  for (size_t I = 0; I < X.size() && I < Weights.size(); ++I)
    S += X[I] * Weights[I];
  return std::exp(S);
}

std::vector<double> LearnedRTG::score(const Observation &Obs,
                                      llvm::ArrayRef<Variant> Candidates) {
  std::vector<double> Out;
  for (const Variant &V : Candidates)
    Out.push_back(predict(makeRTGFeatures(Obs, V)));
  return Out;
}

llvm::json::Value LearnedRTG::toJSON() const {
  return llvm::json::Object{{"version", 1},
                            {"model", "ridge-log-reward"},
                            {"rule_vocab", RuleVocab},
                            {"tag_vocab", TagVocab},
                            {"weights", Weights}};
}

llvm::Expected<std::unique_ptr<LearnedRTG>>
LearnedRTG::fromJSON(const llvm::json::Value &V) {
  std::unique_ptr<LearnedRTG> M(new LearnedRTG());
  llvm::json::Path::Root Root;
  llvm::json::ObjectMapper O(V, Root);
  if (!O || !O.map("rule_vocab", M->RuleVocab) ||
      !O.map("tag_vocab", M->TagVocab) || !O.map("weights", M->Weights))
    return llvm::createStringError("malformed reward-to-go model: " +
                                   llvm::toString(Root.getError()));
  return M;
}

static std::vector<double> ranks(llvm::ArrayRef<double> V) {
  std::vector<size_t> Order(V.size());
  std::iota(Order.begin(), Order.end(), 0);
  llvm::sort(Order, [&](size_t A, size_t B) { return V[A] < V[B]; });
  std::vector<double> R(V.size());
  for (size_t I = 0; I < Order.size();) {
    size_t J = I;
    while (J + 1 < Order.size() && V[Order[J + 1]] == V[Order[I]])
      ++J;
    for (size_t K = I; K <= J; ++K)
      R[Order[K]] = (I + J) / 2.0; // ties share the mean rank
    I = J + 1;
  }
  return R;
}

double maxcode::spearman(llvm::ArrayRef<double> A, llvm::ArrayRef<double> B) {
  if (A.size() != B.size() || A.size() < 2)
    return 0;
  std::vector<double> RA = ranks(A), RB = ranks(B);
  double MA = std::accumulate(RA.begin(), RA.end(), 0.0) / RA.size();
  double MB = std::accumulate(RB.begin(), RB.end(), 0.0) / RB.size();
  double Num = 0, DA = 0, DB = 0;
  for (size_t I = 0; I < RA.size(); ++I) {
    Num += (RA[I] - MA) * (RB[I] - MB);
    DA += (RA[I] - MA) * (RA[I] - MA);
    DB += (RB[I] - MB) * (RB[I] - MB);
  }
  return DA > 0 && DB > 0 ? Num / std::sqrt(DA * DB) : 0;
}

llvm::Expected<RTGTraining>
maxcode::trainRTG(llvm::ArrayRef<RTGExample> Examples) {
  std::vector<RTGExample> Train, Held;
  for (const RTGExample &E : Examples)
    (llvm::xxh3_64bits(
         llvm::StringRef(reinterpret_cast<const char *>(&E.Id), sizeof(E.Id))) %
                 5 ==
             0
         ? Held
         : Train)
        .push_back(E);
  if (Held.empty() && Train.size() > 4)
    Held.push_back(Train.back()), Train.pop_back();
  auto M = LearnedRTG::fit(Train);
  if (!M)
    return M.takeError();
  RTGTraining T;
  std::vector<double> Pred, Truth;
  for (const RTGExample &E : Held) {
    Pred.push_back((*M)->predict(E.Features));
    Truth.push_back(E.Target);
  }
  T.HeldOutSpearman = spearman(Pred, Truth);
  T.TrainCount = Train.size();
  T.HeldOutCount = Held.size();
  // The model kept is fitted on everything.
  auto All = LearnedRTG::fit(Examples);
  if (!All)
    return All.takeError();
  T.Model = std::move(*All);
  return T;
}
