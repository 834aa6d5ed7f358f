//===-- maxcode/Report/SearchReport.h - The report of a search --*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// --report=FILE.json|FILE.html: what one search did, as plain data (the
/// Report layer sits below Search, so the driver fills it in) and its two
/// renderings: a versioned JSON document (docs/JSONOutput.md) and one
/// self-contained HTML page (no scripts, no network: a chart of the best
/// speedup against evaluations in inline SVG, the search tree, the winning
/// diff and a table of evaluations).
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_REPORT_SEARCHREPORT_H
#define MAXCODE_REPORT_SEARCHREPORT_H

#include "maxcode/Eval/CpuEvidence.h"
#include "maxcode/Eval/EvalResult.h"
#include "maxcode/Rewrite/Minimisation.h"
#include "maxcode/Rewrite/Review.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace maxcode {

/// Version of the report's JSON document; bumped on incompatible changes.
constexpr int SearchReportVersion = 1;

struct ReportTarget {
  std::string Name;
  std::string Kind;
  unsigned Line = 0;
  unsigned EndLine = 0;
  std::optional<double> Share; ///< Measured share of the cost.
  bool Searched = false;       ///< The target this search optimised.
};

struct ReportNode {
  unsigned Id = 0;
  int Parent = -1; ///< -1 for the root (the baseline).
  unsigned Depth = 0;
  std::string Status; ///< DESIGN section 11's statuses.
  std::string Reason;
  double Reward = 0;
  double Ratio = 0;    ///< Noise-corrected; 0 unless ok.
  double RawRatio = 0; ///< 0 unless ok.
  double Noise = 0;
  std::string Description;
  std::vector<std::string> Rules;
  std::vector<std::string> CritiqueTags;
  bool FromStore = false;
};

struct ReportVerification {
  std::string Status;
  /// "suspect", "unconfirmed", "unverified" or empty (EvalResult::verdict),
  /// and the verification's reason.
  std::string Verdict, Reason;
  double Ratio = 0;
  double RawRatio = 0;
  double Spread = 0;
  double Noise = 0;
  unsigned Repetitions = 0;
  double BaselineCost = 0;
  double VariantCost = 0;
  std::string CostUnit;
};

struct SearchReport {
  std::string File;
  std::string Measure;   ///< "time", "instructions", "cuda-kernel".
  std::string Sandbox;   ///< The sandbox builds and runs had: "bwrap", "none".
  std::string Integrity; ///< integrityOf() that sandbox.
  std::string Policy, Critic, RTG, Strategy;
  unsigned Budget = 0;
  int64_t Run = -1; ///< The run's id in the rollout store; -1 if none.
  std::string StorePath;
  std::vector<ReportTarget> Targets;
  /// The baseline's cost (median, same runs as a comparison) and tests.
  double BaselineCost = 0;
  std::string CostUnit;
  unsigned Tests = 0;
  std::vector<ReportNode> Nodes; ///< Nodes[0] is the baseline.
  unsigned Evaluations = 0;
  unsigned FromStore = 0;
  std::string StopReason;
  /// The CPU evidence the search gathered, none when it did not.
  std::shared_ptr<const CpuEvidence> Evidence;
  double Seconds = 0;
  int Winner = -1; ///< Node id of the best candidate; -1 if none.
  std::optional<ReportVerification> Verification;
  bool Improved = false; ///< A winner whose speedup was verified.
  std::string Diff;      ///< Unified diff of what is written (or would be).
  /// Its size, the review notes on the winner, the sanitizers' verdict and
  /// what tidying took out (SearchSummary's).
  std::optional<DiffSize> Size;
  std::vector<ReviewNote> Review;
  std::optional<SanitizerVerdict> Sanitizer;
  std::optional<WinnerTidying> Tidied;
  std::string Output; ///< "diff", "apply" or "export-fixes".
  uint64_t LLMCalls = 0, PromptTokens = 0, CompletionTokens = 0;
};

void printSearchReportJSON(const SearchReport &R, llvm::raw_ostream &OS);
void printSearchReportHTML(const SearchReport &R, llvm::raw_ostream &OS);

/// Writes the report to \p Path: HTML when it ends in .html or .htm, JSON
/// otherwise.
llvm::Error writeSearchReport(const SearchReport &R, llvm::StringRef Path);

} // namespace maxcode

#endif // MAXCODE_REPORT_SEARCHREPORT_H
