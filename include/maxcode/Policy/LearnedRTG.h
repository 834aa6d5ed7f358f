//===-- maxcode/Policy/LearnedRTG.h - Reward-to-go from rollouts -*- C++
//-*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The `learned` reward-to-go model (DESIGN section 3): a ridge regression
/// from features of an (observation, candidate) pair to the log of the
/// candidate's realised max future reward, fitted from stored rollouts. A
/// simple model on purpose: a few hundred nodes train it, it cannot
/// overfit wildly, and its weights can be read.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_POLICY_LEARNEDRTG_H
#define MAXCODE_POLICY_LEARNEDRTG_H

#include "maxcode/Policy/Policy.h"
#include "llvm/Support/JSON.h"
#include <memory>

namespace maxcode {

/// What the model knows of a candidate before it is evaluated.
struct RTGFeatures {
  std::vector<std::string> Rules;      ///< Rule ids that made it.
  double ChangedLines = 0;             ///< Lines not in the parent's text.
  std::vector<std::string> ParentTags; ///< The parent's latest critique tags.
  double ParentReward = 1;
  unsigned Depth = 0; ///< The candidate's depth.
  double U = 1;       ///< Best discounted reward on the path.
};

RTGFeatures makeRTGFeatures(const Observation &Obs, const Variant &V);
llvm::json::Value toJSON(const RTGFeatures &F);
bool fromJSON(const llvm::json::Value &V, RTGFeatures &F, llvm::json::Path P);

/// One training example: features and the realised max future reward.
struct RTGExample {
  RTGFeatures Features;
  double Target = 1;
  uint64_t Id = 0; ///< Decides the held-out split (deterministically).
};

class LearnedRTG : public RTGModel {
public:
  /// Fits on \p Examples (ridge, \p Lambda). Fails with fewer than 4.
  static llvm::Expected<std::unique_ptr<LearnedRTG>>
  fit(llvm::ArrayRef<RTGExample> Examples, double Lambda = 1.0);
  static llvm::Expected<std::unique_ptr<LearnedRTG>>
  fromJSON(const llvm::json::Value &V);
  llvm::json::Value toJSON() const;

  llvm::StringRef name() const override { return "learned"; }
  std::vector<double> score(const Observation &Obs,
                            llvm::ArrayRef<Variant> Candidates) override;
  /// The predicted max future reward of one candidate.
  double predict(const RTGFeatures &F) const;

private:
  std::vector<double> featurize(const RTGFeatures &F) const;
  std::vector<std::string> RuleVocab;
  std::vector<std::string> TagVocab;
  std::vector<double> Weights;
};

/// Spearman's rank correlation of two equally long series.
double spearman(llvm::ArrayRef<double> A, llvm::ArrayRef<double> B);

/// Splits examples 80/20 by a hash of their ids, fits on the first part and
/// returns the model with the rank correlation on the held-out part.
struct RTGTraining {
  std::unique_ptr<LearnedRTG> Model;
  double HeldOutSpearman = 0;
  unsigned TrainCount = 0, HeldOutCount = 0;
};
llvm::Expected<RTGTraining> trainRTG(llvm::ArrayRef<RTGExample> Examples);

} // namespace maxcode

#endif // MAXCODE_POLICY_LEARNEDRTG_H
