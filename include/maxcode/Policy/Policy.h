//===-- maxcode/Policy/Policy.h - Proposer, critic, reward-to-go -*- C++
//-*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The three roles of DESIGN section 2 that the search asks questions of:
/// the Proposer (the policy: an observation in, k variants out), the Critic
/// (an evaluation in, diagnostic text out) and the reward-to-go model (which
/// proposals are worth evaluating). Each has a rules/learned implementation
/// and an LLM one; Policy never runs processes.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_POLICY_POLICY_H
#define MAXCODE_POLICY_POLICY_H

#include "maxcode/Eval/CpuEvidence.h"
#include "maxcode/Eval/EvalResult.h"
#include "maxcode/Frontend/Target.h"
#include "maxcode/Policy/CritiqueTags.h"
#include "maxcode/Rewrite/Variant.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace maxcode {

/// One earlier attempt, as a short history line in the observation.
struct Attempt {
  std::string Description;
  std::vector<std::string> Rules;
  EvalStatus Status = EvalStatus::Rejected;
  double Reward = 0;
};

/// What a proposer sees (DESIGN section 2).
struct Observation {
  /// The target, with offsets into OriginalText.
  Target OriginalTarget;
  std::string OriginalText;
  /// The node being expanded: its text, and its evaluation (none for the
  /// root, whose feedback is the baseline's).
  std::string CurrentText;
  std::optional<EvalResult> Feedback;
  /// Critiques along the path to the node, oldest first, and the attempt
  /// each is about (the same index).
  std::vector<Critique> Critiques;
  std::vector<Attempt> CritiquedAttempts;
  /// The best node so far (the incumbent) and its reward.
  std::string IncumbentText;
  double IncumbentReward = 1.0;
  /// The best discounted reward so far on the path: u = max_t gamma^t r_t.
  double U = 1.0;
  /// Recent attempts anywhere in the tree, oldest first.
  std::vector<Attempt> History;
  unsigned Depth = 0;
  /// How many times this node was expanded before: a proposer asked again
  /// must offer something else.
  unsigned ExpansionIndex = 0;
  /// Texts already proposed anywhere in the tree (hashes of Variant::Text),
  /// which a proposer should not offer again.
  std::vector<std::string> SeenTextHashes;
  /// Why the original's lines are slow (CpuEvidence.h), gathered once for
  /// the baseline; none when not gathered.
  std::shared_ptr<const CpuEvidence> Evidence;
};

/// SHA-256 (hex) of a variant's text: how the search tells variants apart.
std::string variantHash(llvm::StringRef Text);

class Proposer {
public:
  virtual ~Proposer();
  virtual llvm::StringRef name() const = 0;
  /// Up to \p K new variants of the observed node, most promising first.
  /// An empty list means the proposer has nothing more to offer here.
  virtual llvm::Expected<std::vector<Variant>> propose(const Observation &Obs,
                                                       unsigned K) = 0;
  /// A shorter, plainer form of the verified winner (the observation's
  /// current node, its verification the feedback) that keeps its idea, for
  /// a reviewer; none when the proposer cannot offer one (the rules).
  virtual llvm::Expected<std::optional<Variant>>
  simplify(const Observation &Obs) {
    return std::nullopt;
  }
};

class Critic {
public:
  virtual ~Critic();
  virtual llvm::StringRef name() const = 0;
  virtual Critique critique(const EvalResult &R, const Variant &V,
                            const Observation &Parent) = 0;
};

class RTGModel {
public:
  virtual ~RTGModel();
  virtual llvm::StringRef name() const = 0;
  /// A predicted max future reward for each candidate (higher is better);
  /// the search evaluates the top ones.
  virtual std::vector<double> score(const Observation &Obs,
                                    llvm::ArrayRef<Variant> Candidates) = 0;
};

} // namespace maxcode

#endif // MAXCODE_POLICY_POLICY_H
