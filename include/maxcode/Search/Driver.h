//===-- maxcode/Search/Driver.h - One run of clang-maxcode ------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What the command line asks for, as plain data, and what each of its modes
/// computes (DESIGN section 1). The tool parses options into RunOptions,
/// calls one of these, prints the result through lib/Report and chooses the
/// exit code (DESIGN section 11); these print only warnings and progress,
/// on the stream they are given.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_SEARCH_DRIVER_H
#define MAXCODE_SEARCH_DRIVER_H

#include "maxcode/Eval/Evaluator.h"
#include "maxcode/Eval/Sandbox.h"
#include "maxcode/Frontend/Discovery.h"
#include "maxcode/Frontend/NvccAdjuster.h"
#include "maxcode/LLM/LLMClient.h"
#include "maxcode/Policy/LearnedRTG.h"
#include "maxcode/Report/EvalOutput.h"
#include "maxcode/Report/SearchSummary.h"
#include "maxcode/Rewrite/Scope.h"
#include "maxcode/Search/Engine.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/JSON.h"
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace maxcode {

struct RunOptions {
  std::vector<std::string> Sources;
  std::string BuildPath;
  /// The database made from the flags after "--", if any.
  std::shared_ptr<clang::tooling::CompilationDatabase> FlagsAfterDashDash;
  bool JSON = false;
  ParseSettings Parse;
  std::string ToolDir; ///< Folder of the running executable.
  /// How what the run writes names the settings: the tool's flags, or the
  /// editor's settings when the editor runs it (--option-names). Every part
  /// is handed these with its configuration.
  OptionNames Names;

  std::string TargetNames;
  std::string ProfileCmd;
  /// ProfileCmd is the tool's choice (project mode's bench, no target
  /// named), not the user's: a profile that fails falls back to the static
  /// ranking with a warning.
  bool ProfileIsImplicit = false;

  // Evaluation.
  std::string TestsDir;
  double Tolerance = optdefault::Tolerance;
  unsigned MeasureTests = optdefault::MeasureTests;
  bool GatherEvidence = optdefault::CpuEvidence;
  std::string BuildCmd, TestCmd, BenchCmd, BenchMetric, ProjectRoot;
  std::string HoldoutCmd;      ///< Project mode's held-out tests.
  std::string HoldoutBenchCmd; ///< Project mode's held-out bench.
  double HeldOutFraction = optdefault::HeldOut;       ///< Program mode.
  unsigned DerivedInputs = optdefault::DerivedInputs; ///< Program mode.
  bool CreditUnconfirmed = optdefault::CreditUnconfirmed;
  std::vector<std::string> AllowApis; ///< --allow-api.
  std::vector<std::string> PassEnv;   ///< --pass-env.
  uint64_t MaxTreeBytes = *parseByteSize(optdefault::MaxTreeSize);
  std::optional<EditScope> Scope; ///< Unset: by mode (DESIGN section 2).
  MeasureMode Measure = optdefault::Measure;
  SandboxMode Sandbox = optdefault::Sandbox;
  double TimeoutSeconds = optdefault::Timeout;
  unsigned Jobs = optdefault::Jobs; ///< 0: the number of cores.
  unsigned Repetitions = optdefault::Repetitions;
  /// Untimed pairs before the timed ones.
  unsigned Warmups = optdefault::Warmups;
  std::string StorePath;
  std::string ScratchRoot;
  /// Where builds and runs happen (docs/Slurm.md); with Slurm, scratch
  /// folders default to Slurm.SharedDir.
  ExecutorKind Executor = optdefault::Executor;
  SlurmOptions Slurm;

  // Search.
  PolicyKind Policy = optdefault::Policy;
  CriticKind Critic = optdefault::Critic;
  RTGKind RTG = optdefault::RTG;
  std::string Rules; ///< Rule globs for the rules policy.
  /// The rules' options, "rule-id.Key" -> value (--rule-option, and
  /// CheckOptions in .clang-maxcode).
  std::map<std::string, std::string> RuleCheckOptions;
  SearchConfig Search;
  bool Resume = false;
  /// The search's identity in the rollout store (runIdentity of the
  /// settings it was made from): --resume continues only a run with the
  /// same.
  llvm::json::Object Identity;
  /// The LLM backend of --policy/--critic/--rtg=llm (docs/LLM.md).
  LLMOptions LLM;
  std::string PromptsDir; ///< Empty: the installed templates.
  /// Tokens of context a proposer prompt carries beside the code.
  unsigned LLMContextTokens = optdefault::LLMContextTokens;
  std::string ProgressFile;

  // The end of a run (docs/Output.md).
  bool Apply = false; ///< Rewrite the file in place.
  /// The smallest verified speedup worth a reviewer's time: below it a
  /// winner is shown, never applied or exported. The held-out rules bar's
  /// apply run once verified 1.003x (noise 0.2%) and applied an AVX2 target
  /// pragma and two file-level changes for it.
  double MinSpeedup = optdefault::MinSpeedup;
  /// The verified winner's sanitizer check (Evaluator::sanitize).
  bool SanitizeWinner = optdefault::SanitizeWinner;
  /// --apply and --export-fixes take a winner that adds mutable static
  /// state.
  bool AllowStaticState = optdefault::AllowStaticState;
  /// --allow-isa: the instruction sets a variant may tie the binary to
  /// ("native", or names); none by default.
  std::vector<std::string> AllowIsa;
  std::string ExportFixes; ///< clang-apply-replacements YAML to write.
  std::string ReportPath;  ///< .json or .html report to write.
};

/// How a run evaluates candidates (RunMode), decided here once from the
/// options and passed down to every mode (the search, --evaluate,
/// --list-variants, the profile) and the evaluator (EvalConfig::Mode):
/// program mode when --tests names a folder (it wins over the project
/// options), project mode when --build-cmd or --project-root is given,
/// neither for the modes that only read code.
RunMode runModeOf(const RunOptions &Opts);

/// Sets the fields of \p Opts that the options model holds, after checking
/// it whole (validateOptions); an OptionError naming the key otherwise. The
/// rest (sources, the database, the outputs of the run) is the caller's.
llvm::Error applyOptions(const EffectiveOptions &O, RunOptions &Opts);

/// The default rollout store, never in the source tree: in the build folder
/// (`-p`) when it is one of its own, else in the user's cache folder
/// ($XDG_CACHE_HOME or ~/.cache), under clang-maxcode/projects/ with a
/// folder per compile-database folder when there is one.
std::string defaultStorePath(const RunOptions &Opts);

/// The rollout store of \p Opts: --store, else defaultStorePath().
std::string storePathOf(const RunOptions &Opts);

/// \p Opts as the search runs it: in project mode with --bench-cmd and no
/// target or profile named, the bench (run in the project's root) is the
/// profile that chooses the target, and a note says so.
RunOptions withBenchProfile(const RunOptions &Opts, llvm::raw_ostream &Diag);

/// The target the search would start with when it profiles to choose one
/// (withBenchProfile's, or --profile-cmd's, with no --target): what
/// --list-variants previews. Empty when no profile runs (a target named, or
/// nothing to run), and the caller's own ranking stands.
llvm::Expected<std::string> searchedTargetName(const RunOptions &Opts,
                                               llvm::raw_ostream &Diag);

/// --list-targets: the targets of the sources, ranked, and what blocked
/// the others.
struct TargetListing {
  std::vector<Target> Targets;
  DiscoveryReport Report;
};
llvm::Expected<TargetListing> listTargets(const RunOptions &Opts,
                                          llvm::raw_ostream &Diag);

/// --print-parse-command: the command line Clang is given to parse each
/// source (the project's, translated and completed as docs/CUDA.md says).
llvm::Expected<std::vector<clang::tooling::CompileCommand>>
parseCommands(const RunOptions &Opts, llvm::raw_ostream &Diag);

/// --evaluate: one edited copy of the target's file against the original,
/// verified as a winner is.
struct EvaluationOutcome {
  Target T;
  EvalResult Result;
  SandboxMode Sandbox = SandboxMode::None; ///< The one the runs had.
};
llvm::Expected<EvaluationOutcome> evaluateEditedCopy(const RunOptions &Opts,
                                                     llvm::StringRef EditedCopy,
                                                     llvm::raw_ostream &Diag);

/// The main job: discover, baseline, search, verify, and write what was
/// asked (--apply, --export-fixes, --report).
struct SearchOutcome {
  SearchSummary Summary;
  /// The signal that stopped the search, 0 if none: the run stays
  /// unfinished in the store, for --resume, and nothing was written.
  int InterruptSignal = 0;
  /// What writing the outputs failed on; the summary says what was written.
  /// An InternalError when a file could not be written.
  llvm::Error OutputError = llvm::Error::success();
};
llvm::Expected<SearchOutcome> runSearch(const RunOptions &Opts,
                                        llvm::raw_ostream &Diag);

/// --print-prompt: the messages the LLM proposer sends first for the
/// target, after the baseline's build and runs (whose facts the workload
/// section states); nothing is sent.
llvm::Expected<std::vector<PromptMessage>>
firstProposerPrompt(const RunOptions &Opts, llvm::raw_ostream &Diag);

/// --train-rtg: fits the learned reward-to-go model on the store's rollouts
/// and saves it there.
llvm::Expected<RTGTraining> trainRTGOnStore(const RunOptions &Opts);

/// --export-rtg-dataset: the store's rollouts as JSONL, written to \p Path.
llvm::Error exportStoreRTGDataset(const RunOptions &Opts, llvm::StringRef Path);

} // namespace maxcode

#endif // MAXCODE_SEARCH_DRIVER_H
