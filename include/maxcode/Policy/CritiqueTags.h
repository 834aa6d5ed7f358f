//===-- maxcode/Policy/CritiqueTags.h - What a critique can say -*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The fixed vocabulary of critique tags (documented in docs/Rules.md) and
/// the Critique a critic returns. Tags are stable: the rules proposer reads
/// them to reorder its rules, and the learned reward-to-go model uses them as
/// features, so a tag is never renamed or given a new meaning; new ones go at
/// the end.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_POLICY_CRITIQUETAGS_H
#define MAXCODE_POLICY_CRITIQUETAGS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace maxcode {

/// In the order a critique lists them.
enum class CritiqueTag {
  // What happened to the variant.
  Rejected,    ///< "rejected": out of scope or does not parse.
  BuildError,  ///< "build-error"
  Crash,       ///< "crash"
  Timeout,     ///< "timeout"
  WrongOutput, ///< "wrong-output"
  // How fast it is against the baseline.
  Faster,      ///< "faster": a ratio above the noise.
  Slower,      ///< "slower": a ratio below the noise.
  WithinNoise, ///< "within-noise"
  // Where a CPU program's cost goes.
  HotLoop,      ///< "hot-loop": the hottest line is in a loop of the target.
  IOBound,      ///< "io-bound": the hottest lines read or write streams.
  StartupBound, ///< "startup-bound": most cost is outside the program's lines.
  // What bounds a GPU kernel (CUPTI metrics).
  MemoryBound,         ///< "memory-bound"
  ComputeBound,        ///< "compute-bound"
  LatencyBound,        ///< "latency-bound": neither unit is busy.
  LowOccupancy,        ///< "low-occupancy"
  RegisterLimited,     ///< "occupancy-registers": registers limit occupancy.
  SharedMemoryLimited, ///< "occupancy-shared-memory"
  BlockSizeLimited,    ///< "occupancy-block-size"
  PoorL1HitRate,       ///< "poor-l1-hit-rate"
  PoorL2HitRate,       ///< "poor-l2-hit-rate"
  // What the review of a verified winner found.
  Unsafe, ///< "unsafe": its sanitizer build reports a finding.
  // Why a CPU target's lines are slow (CpuEvidence.h).
  NotVectorised,   ///< "not-vectorised": the compiler says why a hot loop is
                   ///< not.
  CacheMissBound,  ///< "cache-miss-bound": misses cost a hot line as much as
                   ///< its instructions.
  MispredictBound, ///< "mispredict-bound": a hot line's branches mispredict.
  CallBound,       ///< "call-bound": a hot line's cost is its calls.
  PerElementIO,    ///< "per-element-io": a hot line calls a stream or stdio
                   ///< per element.
};

/// The tag's stable name ("build-error").
llvm::StringRef critiqueTagName(CritiqueTag T);
std::optional<CritiqueTag> parseCritiqueTag(llvm::StringRef Name);
/// Every tag, in order.
llvm::ArrayRef<CritiqueTag> allCritiqueTags();

/// What a critic says about one evaluation.
struct Critique {
  /// Deterministic text for people and for an LLM proposer: one paragraph
  /// per finding, each starting with its tag in brackets.
  std::string Text;
  /// The tags of the findings, in enum order, without duplicates.
  std::vector<CritiqueTag> Tags;
  /// Rules that made the lines a failure points at (build errors on lines
  /// they changed), or every rule of a failed or slower variant when the
  /// failure cannot be placed.
  std::vector<std::string> BlamedRules;

  bool has(CritiqueTag T) const;
};

} // namespace maxcode

#endif // MAXCODE_POLICY_CRITIQUETAGS_H
