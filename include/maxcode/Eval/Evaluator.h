//===-- maxcode/Eval/Evaluator.h - Build, check and time variants -*- C++ -*-===//
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

#include "maxcode/Eval/CuptiReport.h"
#include "maxcode/Eval/EvalResult.h"
#include "maxcode/Eval/Executor.h"
#include "maxcode/Eval/OutputCheck.h"
#include "maxcode/Eval/Sandbox.h"
#include "maxcode/Frontend/Target.h"
#include "maxcode/Rewrite/Scope.h"
#include "maxcode/Rewrite/Variant.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringMap.h"
#include <memory>
#include <mutex>

namespace maxcode {

class EvalCache;

enum class MeasureMode { Time, Instructions, CudaKernel };
llvm::StringRef measureModeName(MeasureMode M);

struct EvalConfig {
  /// The target's file (absolute) and its translation unit's command.
  std::string File;
  clang::tooling::CompileCommand Command;
  /// How to parse variants (a variant that is not C++ is rejected).
  ParseSettings Parse;

  /// Program mode: a folder of test pairs fed on stdin.
  std::string TestsDir;
  double Tolerance = 1e-3;
  /// Program mode: how many of the largest test inputs are timed.
  unsigned MeasureTests = 4;

  /// Project mode: commands run in a sandbox copy of ProjectRoot, in the
  /// copy's root, with the variant's file substituted.
  std::string ProjectRoot;
  std::string BuildCmd, TestCmd, BenchCmd;
  /// A regular expression whose first group (or whole match) is the bench's
  /// figure of cost (lower is better); empty to time the bench command.
  std::string BenchMetric;

  EditScope Scope = EditScope::Target;
  MeasureMode Measure = MeasureMode::Time;
  /// Wall-clock limit of one run; builds get a multiple of it.
  double TimeoutSeconds = 10;
  /// Timed pairs (A B) per comparison, after one warm-up each.
  unsigned Repetitions = 5;
  SandboxMode Sandbox = SandboxMode::None; ///< Already resolved.
  /// Where scratch folders go; empty for the system's temporary folder.
  std::string ScratchRoot;
  /// Memory limit of a run (address space), bytes.
  uint64_t MemoryLimitBytes = 4ull << 30;
  /// The CUPTI injection library, for MeasureMode::CudaKernel.
  std::string CuptiLibrary;
  /// maxcode-timer, which times a run from inside the sandbox so the
  /// sandbox's own start-up is not measured; empty to time from outside.
  std::string TimerPath;

  bool programMode() const { return !TestsDir.empty(); }
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

class Evaluator {
public:
  /// Checks the configuration (tests exist, commands given); does not build.
  static llvm::Expected<std::unique_ptr<Evaluator>>
  create(EvalConfig Config, Executor &Exec, EvalCache *Cache = nullptr);
  ~Evaluator();

  /// Builds and checks the unmodified program (and measures it where the
  /// measure is deterministic). An error here stops everything: the baseline
  /// must work before any search.
  llvm::Error prepareBaseline();

  /// Evaluates \p Variants of \p T: builds in parallel, then checks and
  /// measures each against the baseline, timed runs one at a time.
  std::vector<EvalResult> evaluate(llvm::ArrayRef<Variant> Variants,
                                   const Target &T);
  EvalResult evaluate(const Variant &V, const Target &T);

  /// Re-times \p V against the baseline with \p Repetitions pairs and
  /// re-runs every test (final verification, DESIGN section 1 step 4).
  EvalResult verify(const Variant &V, const Target &T, unsigned Repetitions);

  const EvalConfig &config() const { return Config; }
  /// The original text of the target's file, as read once at the start.
  llvm::StringRef originalText() const { return Original; }
  /// Time spent in builds and runs, for the tool's overhead accounting.
  double processSeconds() const;
  /// The cache key of a variant (what makes two evaluations the same).
  std::string cacheKey(const Variant &V, const Target &T) const;

private:
  struct Built;
  Evaluator(EvalConfig Config, Executor &Exec, EvalCache *Cache);
  Built build(llvm::StringRef Text, llvm::StringRef Tag);
  EvalResult checkAndMeasure(Built &B, unsigned Repetitions, bool Verify);
  llvm::Expected<std::vector<double>> measureOnce(Built &B, bool Warmup,
                                                  EvalResult *HotLinesInto);
  /// The sandbox of every run of \p B's program (checks, timing, metrics).
  SandboxPolicy runPolicy(const Built &B) const;
  /// The address-space limit of a run (none for CUDA programs).
  uint64_t memoryLimit() const;
  /// Runs \p S under libmaxcode-cupti as a timed job (the GPU is never
  /// shared) and reads every process's report.
  llvm::Expected<CuptiReport>
  runUnderCupti(Built &B, ProcessSpec S, SandboxPolicy Policy, CuptiPass Pass);
  /// --measure=cuda-kernel: the run's kernel time, in nanoseconds.
  llvm::Expected<double> measureKernels(Built &B, const ProcessSpec &S,
                                        const SandboxPolicy &Policy,
                                        EvalResult *Into);
  /// One metrics pass of a measured variant: \p Kernel's metrics and launch
  /// configuration into Out.Metrics (what the critic's GPU tags read).
  void collectGpuMetrics(Built &B, llvm::StringRef Kernel, EvalResult &Out);
  /// Runs \p S through the executor; the job's id, if any, is recorded with
  /// the variant \p For.
  llvm::Expected<ProcessResult> runTracked(const ProcessSpec &S, JobKind K,
                                           Built *For = nullptr);

  EvalConfig Config;
  Executor &Exec;
  EvalCache *Cache;
  std::string Original;
  std::vector<TestCase> Tests;
  std::vector<size_t> TimedTests;
  std::unique_ptr<Built> Baseline;
  std::vector<double> BaselineCost; ///< Deterministic measures only.
  std::string Fingerprint;
  mutable std::mutex StatsMutex;
  double ProcessTime = 0;
  /// How many jobs of each kind and text were started, so that repeated
  /// runs (timing repetitions) get keys of their own (runTracked).
  llvm::StringMap<unsigned> JobsStarted;
};

} // namespace maxcode

#endif // MAXCODE_EVAL_EVALUATOR_H
