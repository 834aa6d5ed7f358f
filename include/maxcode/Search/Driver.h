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

/// One invocation: the settings, as the options model merged them, and what
/// the front end adds (the sources, the database, where the outputs go).
/// A setting is read from Settings where it acts, never copied into a field
/// of its own (docs/Architecture.md, "The path of a setting").
struct RunOptions {
  /// Every row of Options.def, checked (applyOptions).
  EffectiveOptions Settings;
  /// The rules' options of Settings.CheckOptions, "rule-id.Key" -> value,
  /// checked against the rules (which the options model does not know).
  std::map<std::string, std::string> RuleCheckOptions;
  /// The search's identity in the rollout store (runIdentity of Settings as
  /// the user gave them, before a search across hot functions narrows the
  /// budget): --resume continues only a run with the same.
  llvm::json::Object Identity;

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
  /// Settings.ProfileCommand is the tool's choice (project mode's bench, no
  /// target named), not the user's: a profile that fails falls back to the
  /// static ranking with a warning.
  bool ProfileIsImplicit = false;
  bool Resume = false;
  std::string ProgressFile;

  // The end of a run (docs/Output.md).
  bool Apply = false;      ///< Rewrite the file in place.
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

/// Gives \p Opts the settings \p O after checking them whole
/// (validateOptions, and the rules' options against the rules); an
/// OptionError naming the key otherwise. The rest (sources, the database,
/// the outputs of the run) is the caller's.
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
