//===-- RunOptionsFrom.cpp - The options model into a run's options -------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The one place the options model becomes what the libraries take: each
// key is read here once, after validateOptions has checked the whole.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Rules/Rule.h"
#include "maxcode/Search/Driver.h"
#include "maxcode/Support/Process.h"

using namespace maxcode;

llvm::Error maxcode::applyOptions(const EffectiveOptions &O, RunOptions &Opts) {
  if (llvm::Error E = validateOptions(O))
    return E;
  Opts.ProfileCmd = O.ProfileCommand;
  // Evaluation.
  Opts.TestsDir = O.Tests;
  Opts.Tolerance = O.Tolerance;
  Opts.MeasureTests = O.MeasureTests;
  Opts.BuildCmd = O.BuildCommand;
  Opts.TestCmd = O.TestCommand;
  Opts.BenchCmd = O.BenchCommand;
  Opts.BenchMetric = O.BenchMetric;
  Opts.ProjectRoot = O.ProjectRoot;
  Opts.HoldoutCmd = O.HoldoutCommand;
  Opts.HoldoutBenchCmd = O.HoldoutBenchCommand;
  Opts.HeldOutFraction = O.HeldOut;
  Opts.DerivedInputs = O.DerivedInputs;
  Opts.CreditUnconfirmed = O.CreditUnconfirmed;
  Opts.AllowApis = O.AllowApi;
  Opts.AllowIsa = O.AllowIsa;
  Opts.PassEnv = O.PassEnv;
  Opts.MaxTreeBytes = *parseByteSize(O.MaxTreeSize);
  if (O.Scope != ScopeSetting::Default)
    Opts.Scope =
        O.Scope == ScopeSetting::File ? EditScope::File : EditScope::Target;
  Opts.Measure = O.Measure;
  Opts.Sandbox = O.Sandbox;
  Opts.TimeoutSeconds = O.Timeout;
  Opts.Jobs = O.Jobs;
  Opts.Repetitions = O.Repetitions;
  Opts.Warmups = O.Warmups;
  Opts.StorePath = O.Store;
  Opts.ScratchRoot = O.ScratchDir;
  Opts.Executor = O.Executor;
  Opts.Slurm.ExtraArgs = splitCommandLine(O.SlurmArgs);
  Opts.Slurm.Builds = O.SlurmBuilds;
  Opts.Slurm.SharedDir = O.SharedDir;
  // The search.
  Opts.Policy = O.Policy;
  Opts.Critic = O.Critic;
  Opts.RTG = O.RTG;
  Opts.Rules = O.Rules;
  // The rules' options are checked against the rules, which the options
  // model does not know.
  for (const RuleOptionEntry &E : O.CheckOptions)
    if (llvm::Error Err = parseRuleOptionAssignment(E.Key + "=" + E.Value,
                                                    Opts.RuleCheckOptions))
      return Err;
  Opts.Search.Strategy = O.Strategy;
  Opts.Search.Budget = O.Budget;
  Opts.Search.MinimiseBudget = O.MinimiseBudget;
  Opts.Search.Width = O.Width;
  Opts.Search.Depth = O.Depth;
  Opts.Search.BeamWidth = O.BeamWidth;
  Opts.Search.TopM = O.TopM;
  Opts.Search.Gamma = O.Gamma;
  Opts.Search.Seed = O.Seed;
  Opts.Search.WallSeconds = O.MaxTime;
  Opts.Search.TokenBudget = O.MaxTokens;
  Opts.MinSpeedup = O.MinSpeedup;
  Opts.SanitizeWinner = O.SanitizeWinner;
  Opts.GatherEvidence = O.CpuEvidence;
  Opts.AllowStaticState = O.AllowStaticState;
  // The LLM.
  Opts.LLM.Endpoint = O.LLMEndpoint;
  Opts.LLM.Model = O.LLMModel;
  Opts.LLM.ApiKeyEnv = O.LLMApiKeyEnv;
  Opts.LLM.RecordDir = O.LLMRecord;
  Opts.LLM.ReplayDir = O.LLMReplay;
  Opts.LLM.TimeoutSeconds = O.LLMTimeout;
  Opts.LLM.MaxRetries = O.LLMRetries;
  Opts.LLM.RetryBaseDelaySeconds = O.LLMRetryDelay;
  Opts.PromptsDir = O.PromptsDir;
  Opts.LLMContextTokens = O.LLMContextTokens;
  Opts.Identity = runIdentity(O);
  return llvm::Error::success();
}
