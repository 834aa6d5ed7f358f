//===-- maxcode/Eval/Evaluator.h - Build, check and time variants -*- C++
//-*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The evaluation engine (DESIGN sections 2, 4, 5, 7): a variant is checked
/// against its scope, materialised in a scratch folder, built with the
/// translation unit's own compile command, checked against the tests (or the
/// project's own test command), and timed against the baseline.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_EVAL_EVALUATOR_H
#define MAXCODE_EVAL_EVALUATOR_H

#include "maxcode/Eval/CpuEvidence.h"
#include "maxcode/Eval/EvalResult.h"
#include "maxcode/Eval/Executor.h"
#include "maxcode/Eval/OutputCheck.h"
#include "maxcode/Eval/Sandbox.h"
#include "maxcode/Frontend/Target.h"
#include "maxcode/Rewrite/Scope.h"
#include "maxcode/Rewrite/Screen.h"
#include "maxcode/Rewrite/Variant.h"
#include "clang/Tooling/CompilationDatabase.h"
#include <memory>

namespace maxcode {

class EvalCache;

/// How a run evaluates candidates: program mode (a program fed the tests'
/// inputs), project mode (the project's own build, tests and bench), or
/// neither (the modes that only read code). Decided once from the options
/// (runModeOf, lib/Search) and passed down.
enum class RunMode { ReadOnly, Program, Project };

/// What the evaluator is given: the settings, read where they act
/// (Settings.Measure, Settings.Repetitions, Settings.BuildCommand, ...), and
/// what the run resolved around them (the target's file and command, the
/// mode, the sandbox, the scope, the tools' paths).
struct EvalConfig {
  /// Every row of Options.def (DESIGN section 4 for the measurement's), as
  /// the run resolved them: Tests, ProjectRoot and ScratchDir absolute,
  /// ProjectRoot and ScratchDir filled in where the mode gives them a
  /// default, AllowApi with what --allow-isa adds.
  EffectiveOptions Settings;

  /// The target's file (absolute) and its translation unit's command.
  std::string File;
  clang::tooling::CompileCommand Command;
  /// How to parse variants (a variant that is not C++ is rejected).
  ParseSettings Parse;

  /// Which harness evaluates: the run's mode, as runModeOf decided it.
  RunMode Mode = RunMode::ReadOnly;
  /// Program mode: where a derived input (Settings.DerivedInputs, DESIGN
  /// section 4, rule 13; DerivedInputs.h) that a variant fails is kept with
  /// the unmodified program's answer, so that a user can judge it and add it
  /// to the tests; no build or run sees the folder.
  std::string DerivedDir;

  /// What a variant may edit: Settings.Scope, or the mode's default.
  EditScope Scope = EditScope::Target;
  SandboxMode Sandbox = SandboxMode::None; ///< Settings.Sandbox, resolved.
  /// Memory limit of a run (address space), bytes.
  uint64_t MemoryLimitBytes = 4ull << 30;
  /// Memory limit of a build (address space), bytes.
  uint64_t BuildMemoryLimitBytes = 16ull << 30;
  /// Size of a run's and a build's private /tmp (bwrap).
  uint64_t TmpBytes = 256ull << 20;
  /// The CUPTI injection library, for MeasureMode::CudaKernel.
  std::string CuptiLibrary;
  /// maxcode-timer, the supervisor every run of a program starts under: it
  /// waits for every process of the run, measures them all, and reports
  /// where the program cannot write. Required.
  std::string TimerPath;
  /// Files and folders no build or run may see even where a visible folder
  /// holds them: the store, LLM transcripts, reports.
  std::vector<std::string> Protected;
  /// How the text the evaluator writes (verdicts' reasons, warnings, errors)
  /// names a setting: as the front end that runs it does.
  OptionNames Names;
  bool programMode() const { return Mode == RunMode::Program; }
  /// Whether the translation unit is CUDA (a .cu file, nvcc, -x cuda).
  bool cudaProgram() const;
};

/// Builds a variant's compile command: the TU's own command with the input
/// swapped for \p Source, the output sent to \p Output, and (program mode)
/// linked. Exposed for tests and the overhead benchmark.
std::vector<std::string>
variantCompileCommand(const clang::tooling::CompileCommand &Command,
                      llvm::StringRef OriginalFile, llvm::StringRef Source,
                      llvm::StringRef Output, bool Link, bool DebugInfo);

/// Parses compiler output into diagnostics of \p SourceName (gcc, clang and
/// nvcc formats).
std::vector<BuildDiagnostic> parseCompilerOutput(llvm::StringRef Output,
                                                 llvm::StringRef SourceName);

/// One feedback input as a prompt describes it (DESIGN section 4, rule 5:
/// bounded, and never a held-out one).
struct InputFacts {
  std::string Name;
  uint64_t Bytes = 0;
  unsigned Lines = 0;
  /// How many whitespace-separated tokens are numbers, and the largest in
  /// magnitude as written.
  unsigned Numbers = 0;
  std::string Largest;
  /// Among the inputs every measurement times.
  bool Timed = false;
};

/// What the search's workload is, for the model to see (docs/LLM.md): the
/// feedback inputs, the timed and larger first, with the head of the first;
/// the original's hot lines on them; in project mode, the commands.
struct WorkloadFacts {
  std::vector<InputFacts> Inputs;
  unsigned HeldOutInputs = 0;
  /// The first lines of the costliest input, at most a few hundred bytes.
  std::string Head;
  /// The original's cost on the timed inputs, and its hottest lines there
  /// (shares of that cost; under --measure=instructions only).
  std::string CostUnit;
  double BaselineCost = 0;
  std::vector<HotLine> BaselineHotLines;
  /// Project mode: the commands whose runs are the workload.
  std::string TestCmd, BenchCmd;
};

class EvaluatorImpl;

/// Builds, checks and times the variants of one file (DESIGN section 3):
/// what a caller needs, and nothing the harnesses keep (lib/Eval's
/// EvaluatorImpl.h holds the state of a mode, the baseline and the runs).
class Evaluator {
public:
  /// Checks the configuration (tests exist, commands given, the supervisor
  /// is there), splits the tests, and scans the original for the static
  /// screen; does not build.
  static llvm::Expected<std::unique_ptr<Evaluator>>
  create(EvalConfig Config, Executor &Exec, EvalCache *Cache = nullptr);
  ~Evaluator();

  /// Builds and checks the unmodified program on every test and measures it
  /// once. An error here stops everything: the baseline must work before
  /// any search. With \p T, the static screen for it is made meanwhile.
  llvm::Error prepareBaseline(const Target *T = nullptr);

  /// Evaluates \p Variants of \p T on the feedback tests: screens each,
  /// builds in parallel, then checks and measures each against the
  /// baseline, timed runs one at a time.
  std::vector<EvalResult> evaluate(llvm::ArrayRef<Variant> Variants,
                                   const Target &T);
  EvalResult evaluate(const Variant &V, const Target &T);

  /// Re-times \p V against the baseline with \p Repetitions pairs, on every
  /// test and with the ratio on held-out inputs as verify does (no
  /// cross-check): a new incumbent's second look during the search.
  EvalResult retime(const Variant &V, const Target &T, unsigned Repetitions);

  /// The final verification (DESIGN section 1 step 4): rebuilds \p V,
  /// re-runs every test, held-out ones included, re-times it with
  /// \p Repetitions pairs, and cross-checks every credited speedup with the
  /// other CPU measure.
  EvalResult verify(const Variant &V, const Target &T, unsigned Repetitions);

  /// Why \p T's lines are slow in the baseline (CpuEvidence.h): the build
  /// compiler's optimisation remarks on them, and a run of every timed
  /// input (program mode) or of the bench (project mode) under callgrind's
  /// cache and branch simulation. What cannot be had is a note in it, never
  /// an error.
  CpuEvidence cpuEvidence(const Target &T);

  const EvalConfig &config() const;
  /// The original text of the target's file, as read once at the start.
  llvm::StringRef originalText() const;
  /// Time spent in builds and runs, for the tool's overhead accounting.
  double processSeconds() const;
  /// The cache key of a variant (what makes two evaluations the same).
  std::string cacheKey(const Variant &V, const Target &T) const;
  /// The tests of program mode: feedback ones (the search sees their
  /// results) and held-out ones (only a winner's verification runs them).
  unsigned feedbackTestCount() const;
  unsigned heldOutTestCount() const;
  /// The calls a variant of \p T adds that the summary of an applied winner
  /// warns about (file system, processes, network); fails when they cannot
  /// be listed.
  llvm::Expected<std::vector<ApiUse>> addedCalls(llvm::StringRef VariantText,
                                                 const Target &T);
  /// The workload as the baseline's preparation found it.
  WorkloadFacts workload() const;
  /// Builds \p V with AddressSanitizer and UndefinedBehaviorSanitizer and
  /// runs every test under them (program mode, C++; docs/Evaluation.md,
  /// "The review of a winner"). A finding counts when the original's build
  /// with the same sanitizers has none on that test.
  SanitizerVerdict sanitize(const Variant &V);

private:
  explicit Evaluator(std::unique_ptr<EvaluatorImpl> Impl);
  std::unique_ptr<EvaluatorImpl> Impl;
};

} // namespace maxcode

#endif // MAXCODE_EVAL_EVALUATOR_H
