//===-- maxcode/Policy/RulesCritic.h - The built-in critic ------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The rules critic (`--critic=rules`): deterministic text and stable tags
/// (CritiqueTags.h) from one evaluation. It maps compiler errors to the
/// variant's lines and the rules that changed them, names the failing test
/// and the first differing line, says whether the measured ratio is above,
/// below or inside the noise, lists the hottest lines with their text, and
/// reads GPU metrics when there are some: memory- or compute-bound, low
/// occupancy and what limits it, poor cache hit rates. The first
/// critiques of a search (the root's children) also say why the original's
/// lines are slow, from the CPU evidence (CpuEvidence.h).
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_POLICY_RULESCRITIC_H
#define MAXCODE_POLICY_RULESCRITIC_H

#include "maxcode/Eval/EvalResult.h"
#include "maxcode/Policy/CritiqueTags.h"
#include "maxcode/Policy/Policy.h"
#include "maxcode/Rewrite/Variant.h"

namespace maxcode {

/// The critique of \p R, the evaluation of \p V. \p BaseText is the text
/// \p V was made from (the parent node's): lines that differ from it are
/// the ones the variant's rules changed. Empty when unknown.
Critique critiqueByRules(const EvalResult &R, const Variant &V,
                         llvm::StringRef BaseText = "");

/// What \p E says of the original's lines (\p OriginalText): the tags
/// not-vectorised, cache-miss-bound, mispredict-bound, call-bound and
/// per-element-io with the lines and figures behind each, and the hottest
/// lines' events. Blames no rule.
Critique critiqueOfEvidence(const CpuEvidence &E, llvm::StringRef OriginalText);

/// Occupancy a kernel can reach at most, from its launch and resources, and
/// what limits it. Computed for 2048 threads, 64K registers, 228 KiB of
/// shared memory and 32 blocks per multiprocessor (Hopper's limits).
struct OccupancyEstimate {
  double Theoretical = 1.0; ///< Fraction of the threads an SM can hold.
  CritiqueTag Limit = CritiqueTag::LowOccupancy; ///< Registers, shared
                                                 ///< memory or block size.
};
std::optional<OccupancyEstimate>
estimateOccupancy(unsigned BlockSize, unsigned RegistersPerThread,
                  uint64_t SharedMemoryPerBlock);

/// The rules critic behind the Critic interface.
class RulesCritic : public Critic {
public:
  llvm::StringRef name() const override { return "rules"; }
  Critique critique(const EvalResult &R, const Variant &V,
                    const Observation &Parent) override;
};

} // namespace maxcode

#endif // MAXCODE_POLICY_RULESCRITIC_H
