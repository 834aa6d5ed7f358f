//===-- ClangMaxcode.cpp - The clang-maxcode command line -----------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Options in, library calls out (DESIGN section 11 is the contract). Exit
/// codes: 0 success, 1 a user error, 2 an internal error.
///
//===----------------------------------------------------------------------===//

#include "maxcode/Policy/RuleTool.h"
#include "maxcode/Report/EvalOutput.h"
#include "maxcode/Report/RuleOutput.h"
#include "maxcode/Report/SearchSummary.h"
#include "maxcode/Report/TargetList.h"
#include "maxcode/Search/Driver.h"
#include "maxcode/Support/Config.h"
#include "maxcode/Support/Debug.h"
#include "maxcode/Support/Error.h"
#include "maxcode/Support/Process.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Execution.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace maxcode;
using namespace llvm;

static cl::OptionCategory MaxcodeCategory("clang-maxcode options");

static cl::extrahelp CommonHelp(R"(
A compile database is taken from -p, found upward from the first source
(compile_commands.json in a folder or its build/ subfolder, as clangd does),
or made from the compiler flags given after --:

  clang-maxcode --list-targets -p build src/ops.cu
  clang-maxcode --list-targets prog.cpp -- -std=c++17
)");

static cl::list<std::string> Sources(cl::Positional, cl::desc("<source>..."),
                                     cl::cat(MaxcodeCategory));
static cl::opt<std::string>
    BuildPath("p", cl::desc("Build folder holding compile_commands.json"),
              cl::value_desc("dir"), cl::cat(MaxcodeCategory));
enum class OutputFormat { Text, JSON };
static cl::opt<OutputFormat>
    Format("format", cl::desc("Output format"), cl::init(OutputFormat::Text),
           cl::values(clEnumValN(OutputFormat::Text, "text", "for people"),
                      clEnumValN(OutputFormat::JSON, "json",
                                 "versioned JSON (docs/JSONOutput.md)")),
           cl::cat(MaxcodeCategory));
static cl::opt<bool> ListTargets("list-targets",
                                 cl::desc("List the targets and exit"),
                                 cl::cat(MaxcodeCategory));
static cl::opt<bool> PrintParseCommand(
    "print-parse-command",
    cl::desc("Print the command line Clang is given to parse each source "
             "(nvcc's translated, docs/CUDA.md) and exit"),
    cl::cat(MaxcodeCategory));
static cl::opt<std::string>
    ProfileCmd("profile-cmd",
               cl::desc("Rank targets by running this command under callgrind"),
               cl::value_desc("cmd"), cl::cat(MaxcodeCategory));
static cl::opt<std::string> TargetNames(
    "target",
    cl::desc("Qualified names of the targets, comma-separated (default: the "
             "hottest)"),
    cl::value_desc("name[,...]"), cl::cat(MaxcodeCategory));

// Evaluation (docs/Evaluation.md).
static cl::opt<std::string> Evaluate(
    "evaluate",
    cl::desc("Evaluate one variant: a full edited copy of the source file"),
    cl::value_desc("file"), cl::cat(MaxcodeCategory));
static cl::opt<std::string> TestsDir(
    "tests",
    cl::desc("Program mode: input.N.txt/output.N.txt or NAME.in/NAME.out "
             "pairs, fed on stdin"),
    cl::value_desc("dir"), cl::cat(MaxcodeCategory));
static cl::opt<double>
    Tolerance("tolerance",
              cl::desc("Decimal numbers in outputs may differ by this much, "
                       "relative (absolute below 1); default 1e-6"),
              cl::init(DefaultTolerance), cl::cat(MaxcodeCategory));
static cl::opt<unsigned> MeasureTests(
    "measure-tests",
    cl::desc("Program mode: how many of the costliest inputs are timed"),
    cl::init(4), cl::cat(MaxcodeCategory));
static cl::opt<std::string>
    BuildCmd("build-cmd",
             cl::desc("Project mode: builds the sandbox copy of the tree"),
             cl::value_desc("cmd"), cl::cat(MaxcodeCategory));
static cl::opt<std::string>
    TestCmd("test-cmd",
            cl::desc("Project mode: exits 0 when the copy is correct"),
            cl::value_desc("cmd"), cl::cat(MaxcodeCategory));
static cl::opt<std::string>
    BenchCmd("bench-cmd", cl::desc("Project mode: the command that is timed"),
             cl::value_desc("cmd"), cl::cat(MaxcodeCategory));
static cl::opt<std::string> BenchMetric(
    "bench-metric",
    cl::desc("Read the cost (lower is better) from the bench's output with "
             "this regular expression (first group) instead of timing it"),
    cl::value_desc("regex"), cl::cat(MaxcodeCategory));
static cl::opt<double> HeldOut(
    "held-out",
    cl::desc("Program mode: the share of tests held out of the search, run "
             "only to verify a winner (at least one of two or more; 0: none)"),
    cl::init(1.0 / 3), cl::cat(MaxcodeCategory));
static cl::opt<std::string> HoldoutCmd(
    "holdout-cmd",
    cl::desc("Project mode: a second test command that only verifies "
             "winners, never seen by the search"),
    cl::value_desc("cmd"), cl::cat(MaxcodeCategory));
static cl::opt<std::string> HoldoutBenchCmd(
    "holdout-bench-cmd",
    cl::desc("Project mode: a bench on inputs the search never sees; a "
             "winner's speedup is measured with it (default: --bench-cmd)"),
    cl::value_desc("cmd"), cl::cat(MaxcodeCategory));
static cl::list<std::string> AllowIsa(
    "allow-isa", cl::CommaSeparated,
    cl::desc("Instruction sets a variant may tie the binary to (a GCC target "
             "pragma): 'native' (this machine's) or names (avx2,fma,...); "
             "none by default, so that a winner runs on every machine"),
    cl::value_desc("native|names"), cl::cat(MaxcodeCategory));
static cl::list<std::string> AllowApi(
    "allow-api", cl::CommaSeparated,
    cl::desc("Names (fork, getenv, clock_gettime, ...) or categories "
             "(process, measurement, clock, socket, asm) a variant may add "
             "past the static screen"),
    cl::value_desc("names"), cl::cat(MaxcodeCategory));
static cl::list<std::string>
    PassEnv("pass-env", cl::CommaSeparated,
            cl::desc("Environment variables builds and runs get besides the "
                     "allow-list (PATH, LANG, ...); never the API key's"),
            cl::value_desc("VAR,..."), cl::cat(MaxcodeCategory));
static cl::opt<std::string> MaxTreeSize(
    "max-tree-size",
    cl::desc("Project mode: refuse to copy a larger tree (default 2G)"),
    cl::value_desc("bytes[K|M|G]"), cl::init("2G"), cl::cat(MaxcodeCategory));
static cl::opt<std::string> ProjectRoot(
    "project-root",
    cl::desc("Project mode: the tree copied into the sandbox (default: the "
             "enclosing git repository)"),
    cl::value_desc("dir"), cl::cat(MaxcodeCategory));
enum class ScopeOpt { Default, Target, File };
static cl::opt<ScopeOpt> Scope(
    "scope", cl::desc("What a variant may edit"), cl::init(ScopeOpt::Default),
    cl::values(clEnumValN(ScopeOpt::Target, "target",
                          "the target's definition, new declarations before "
                          "it, #include lines (default in project mode and "
                          "for CUDA)"),
               clEnumValN(ScopeOpt::File, "file",
                          "the whole file (default in program mode)")),
    cl::cat(MaxcodeCategory));
static cl::opt<MeasureMode> Measure(
    "measure", cl::desc("What a speedup is measured in"),
    cl::init(MeasureMode::Time),
    cl::values(clEnumValN(MeasureMode::Time, "time",
                          "wall time, baseline and variant interleaved"),
               clEnumValN(MeasureMode::Instructions, "instructions",
                          "instructions counted by callgrind (deterministic)"),
               clEnumValN(MeasureMode::CudaKernel, "cuda-kernel",
                          "GPU time of all kernels, from CUPTI")),
    cl::cat(MaxcodeCategory));
static cl::opt<SandboxMode>
    Sandbox("sandbox", cl::desc("How builds and runs are isolated"),
            cl::init(SandboxMode::Auto),
            cl::values(clEnumValN(SandboxMode::Auto, "auto",
                                  "bubblewrap when it works, else limits only"),
                       clEnumValN(SandboxMode::Bwrap, "bwrap",
                                  "bubblewrap: no network, read-only system"),
                       clEnumValN(SandboxMode::None, "none",
                                  "process group and limits only")),
            cl::cat(MaxcodeCategory));
static cl::opt<double> Timeout("timeout",
                               cl::desc("Wall-clock limit of one run, in "
                                        "seconds (default 10)"),
                               cl::init(10), cl::cat(MaxcodeCategory));
static cl::opt<unsigned>
    Jobs("j",
         cl::desc("Builds in parallel, or with --executor=slurm jobs in "
                  "flight (default: cores)"),
         cl::init(0), cl::cat(MaxcodeCategory));
static cl::opt<unsigned>
    Repetitions("repetitions",
                cl::desc("Timed baseline/variant pairs per comparison"),
                cl::init(5), cl::cat(MaxcodeCategory));
static cl::opt<std::string>
    StorePath("store",
              cl::desc("The rollout store (SQLite), also the evaluation "
                       "cache"),
              cl::value_desc("file.sqlite"), cl::cat(MaxcodeCategory));
static cl::opt<std::string> ScratchRoot(
    "scratch-dir",
    cl::desc("Where scratch folders go (default: the system's temporary "
             "folder)"),
    cl::value_desc("dir"), cl::cat(MaxcodeCategory));

// Where builds and runs happen (docs/Slurm.md). --executor itself is
// clang::tooling::ExecutorName, which libclang-cpp already registers (for
// its ToolExecutor plugins, which this tool does not use); main() takes it
// over rather than registering the name twice.
static cl::opt<std::string> SlurmArgs(
    "slurm-args",
    cl::desc("Added to every srun: partition, account, --gres, --time, ..."),
    cl::value_desc("args"), cl::cat(MaxcodeCategory));
static cl::opt<bool> SlurmBuilds(
    "slurm-builds",
    cl::desc("Build variants in Slurm jobs too (default: on this machine)"),
    cl::cat(MaxcodeCategory));
static cl::opt<std::string> SharedDir(
    "shared-dir",
    cl::desc("With --executor=slurm: a folder every node sees at the same "
             "path, for job files and scratch folders"),
    cl::value_desc("dir"), cl::cat(MaxcodeCategory));

// The rules policy (docs/Rules.md).
static cl::opt<std::string> RuleGlobs(
    "rules",
    cl::desc("Rules the rules policy may use: comma-separated globs, '-' "
             "turns off, later wins (default: all)"),
    cl::value_desc("globs"), cl::cat(MaxcodeCategory));
static cl::list<std::string> RuleOptionArgs(
    "rule-option",
    cl::desc("A rule's option, as clang-tidy's CheckOptions: "
             "<rule-id>.<Key>=<value> (docs/rules/<id>.md); repeatable, "
             "given, replaces the CheckOptions of .clang-maxcode"),
    cl::value_desc("id.Key=value"), cl::cat(MaxcodeCategory));
static cl::opt<bool> ListRules("list-rules",
                               cl::desc("List the rewrite rules and exit"),
                               cl::cat(MaxcodeCategory));
static cl::opt<bool> ListVariants(
    "list-variants",
    cl::desc("Print the variants the rules propose for the target, as "
             "unified diffs, and exit"),
    cl::cat(MaxcodeCategory));
static cl::opt<std::string> WriteVariants(
    "write-variants",
    cl::desc("With --list-variants: also write each variant to this folder "
             "as variant-N.<ext>"),
    cl::value_desc("dir"), cl::cat(MaxcodeCategory));
static cl::opt<std::string> CritiqueJSON(
    "critique",
    cl::desc("Print the rules critic's view of an evaluation (the JSON "
             "--evaluate --format=json prints) of the variant given as the "
             "source, and exit"),
    cl::value_desc("evaluation.json"), cl::cat(MaxcodeCategory));
static cl::opt<std::string> CritiqueBase(
    "critique-base",
    cl::desc("With --critique: the file the variant was made from"),
    cl::value_desc("file"), cl::cat(MaxcodeCategory));
static cl::opt<std::string>
    CritiqueRules("critique-rules",
                  cl::desc("With --critique: the rules that made the variant"),
                  cl::value_desc("id,..."), cl::cat(MaxcodeCategory));

// The search (docs/Search.md).
static cl::opt<std::string>
    PolicyName("policy",
               cl::desc("Who proposes variants: rules (built in) or llm"),
               cl::init("rules"), cl::cat(MaxcodeCategory));
static cl::opt<std::string>
    CriticName("critic",
               cl::desc("Who explains evaluations: rules, llm or none"),
               cl::init("rules"), cl::cat(MaxcodeCategory));
static cl::opt<std::string> RTGName(
    "rtg",
    cl::desc("Reward-to-go model reranking proposals: none, learned or llm"),
    cl::init("none"), cl::cat(MaxcodeCategory));
static cl::opt<StrategyKind> Strategy(
    "strategy", cl::desc("Which nodes the search expands"),
    cl::init(StrategyKind::Tree),
    cl::values(clEnumValN(StrategyKind::BestOfN, "best-of-n",
                          "N proposals from the original, depth 1"),
               clEnumValN(StrategyKind::Refine, "refine",
                          "one proposal at a time from the incumbent"),
               clEnumValN(StrategyKind::Beam, "beam",
                          "the best --beam-width nodes of each depth"),
               clEnumValN(StrategyKind::Tree, "tree",
                          "an upper-confidence score on the max-value")),
    cl::cat(MaxcodeCategory));
static cl::opt<unsigned> Budget("budget",
                                cl::desc("Evaluations the search may spend"),
                                cl::init(32), cl::cat(MaxcodeCategory));
static cl::opt<unsigned> MinimiseBudget(
    "minimise-budget",
    cl::desc("Evaluations spent dropping the verified winner's edits its "
             "speedup does not need (0: report the winner as found)"),
    cl::init(16), cl::cat(MaxcodeCategory));
static cl::opt<unsigned> Width("width",
                               cl::desc("Proposals asked for per expansion"),
                               cl::init(4), cl::cat(MaxcodeCategory));
static cl::opt<unsigned> Depth("depth", cl::desc("Deepest refinement chain"),
                               cl::init(8), cl::cat(MaxcodeCategory));
static cl::opt<unsigned> BeamWidth("beam-width",
                                   cl::desc("Nodes kept per depth (beam)"),
                                   cl::init(2), cl::cat(MaxcodeCategory));
static cl::opt<unsigned>
    TopM("top-m",
         cl::desc("Proposals evaluated per expansion after reranking (0: "
                  "all)"),
         cl::init(0), cl::cat(MaxcodeCategory));
static cl::opt<double>
    Gamma("gamma", cl::desc("Discount of later rewards (1: the best wins)"),
          cl::init(1.0), cl::cat(MaxcodeCategory));
static cl::opt<uint64_t> Seed("seed", cl::desc("Seed of every random choice"),
                              cl::init(0), cl::cat(MaxcodeCategory));
static cl::opt<double> MaxTime("max-time",
                               cl::desc("Wall-clock budget of the search (s)"),
                               cl::init(0), cl::cat(MaxcodeCategory));
static cl::opt<bool> Resume("resume",
                            cl::desc("Continue the unfinished run of the same "
                                     "search in the store"),
                            cl::cat(MaxcodeCategory));
static cl::opt<bool> TrainRTG(
    "train-rtg",
    cl::desc("Fit the learned reward-to-go model on the store and exit"),
    cl::cat(MaxcodeCategory));
static cl::opt<std::string> ExportRTGDataset(
    "export-rtg-dataset",
    cl::desc("Write the store's rollouts as JSONL (observation, candidate, "
             "realised max future reward) and exit"),
    cl::value_desc("file.jsonl"), cl::cat(MaxcodeCategory));
static cl::opt<std::string> ProgressFile(
    "progress-file",
    cl::desc("Append one JSON line per batch of evaluations to this file"),
    cl::value_desc("file"), cl::cat(MaxcodeCategory));

// The end of a run (docs/Output.md).
static cl::opt<double> MinSpeedup(
    "min-speedup",
    cl::desc("A verified speedup below this is reported but never applied "
             "or exported (default 1.02)"),
    cl::init(DefaultMinSpeedup), cl::cat(MaxcodeCategory));
static cl::opt<bool>
    Apply("apply",
          cl::desc("Rewrite the source in place with the verified winner "
                   "(formatted, atomically; refused if the file changed "
                   "during the run)"),
          cl::cat(MaxcodeCategory));
static cl::opt<std::string>
    ExportFixes("export-fixes",
                cl::desc("Write the verified winner as YAML fixes for "
                         "clang-apply-replacements"),
                cl::value_desc("file.yaml"), cl::cat(MaxcodeCategory));
static cl::opt<std::string>
    Report("report",
           cl::desc("Write a report of the search: JSON, or one "
                    "self-contained HTML page when the name ends in .html"),
           cl::value_desc("file.json|file.html"), cl::cat(MaxcodeCategory));

// The LLM backend (docs/LLM.md).
static cl::opt<std::string> LLMEndpoint(
    "llm-endpoint",
    cl::desc("OpenAI-compatible API for --policy/--critic/--rtg=llm, e.g. "
             "http://127.0.0.1:8000/v1"),
    cl::value_desc("url"), cl::cat(MaxcodeCategory));
static cl::opt<std::string> LLMModel("llm-model",
                                     cl::desc("Model name sent to the API"),
                                     cl::value_desc("name"),
                                     cl::cat(MaxcodeCategory));
static cl::opt<std::string> LLMApiKeyEnv(
    "llm-api-key-env",
    cl::desc("Environment variable holding the API key (never printed)"),
    cl::value_desc("VAR"), cl::init("OPENAI_API_KEY"),
    cl::cat(MaxcodeCategory));
static cl::opt<std::string>
    LLMRecord("llm-record", cl::desc("Save every LLM exchange in this folder"),
              cl::value_desc("dir"), cl::cat(MaxcodeCategory));
static cl::opt<std::string> LLMReplay(
    "llm-replay",
    cl::desc("Answer LLM calls from a folder written by --llm-record, with "
             "no network"),
    cl::value_desc("dir"), cl::cat(MaxcodeCategory));
static cl::opt<std::string>
    PromptsDir("prompts-dir",
               cl::desc("Read the prompt templates from this folder"),
               cl::value_desc("dir"), cl::cat(MaxcodeCategory));
static cl::opt<double>
    LLMTimeout("llm-timeout",
               cl::desc("Seconds one LLM request may take, reply included"),
               cl::init(300), cl::cat(MaxcodeCategory));
static cl::opt<unsigned>
    LLMRetries("llm-retries",
               cl::desc("Retries of an LLM request after a transient failure"),
               cl::init(4), cl::cat(MaxcodeCategory));
static cl::opt<double> LLMRetryDelay(
    "llm-retry-delay",
    cl::desc("First backoff before an LLM retry (s), doubled each time"),
    cl::init(1), cl::cat(MaxcodeCategory));
static cl::opt<uint64_t> MaxTokens(
    "max-tokens",
    cl::desc("LLM tokens (prompt + completion) the search may spend (0: no "
             "limit)"),
    cl::init(0), cl::cat(MaxcodeCategory));

#ifndef MAXCODE_LLVM_HAS_DEBUG_OPTIONS
// LLVM's -debug and -debug-only, which an LLVM without assertions leaves
// out: why a rule or a proposer dropped something (docs/Rules.md).
static cl::opt<bool> DebugAll("debug", cl::desc("Print every debug output"),
                              cl::Hidden, cl::cat(MaxcodeCategory));
static cl::list<std::string> DebugOnly(
    "debug-only",
    cl::desc("Print the debug output of these types only (maxcode-rules, "
             "maxcode-search, ...)"),
    cl::value_desc("type,..."), cl::Hidden, cl::cat(MaxcodeCategory));
#endif

static int userError(const Twine &Message) {
  return reportError(createStringError(Message), "clang-maxcode", errs());
}

/// The exit code of a mode that failed: 1 for the user's error, 2 for the
/// tool's (DESIGN section 11), having said it.
static int fail(Error E) {
  return reportError(std::move(E), "clang-maxcode", errs());
}

/// "2G", "500M", "4096": bytes.
static std::optional<uint64_t> parseSize(StringRef S) {
  S = S.trim();
  uint64_t Scale = 1;
  if (S.consume_back_insensitive("k") || S.consume_back_insensitive("kib"))
    Scale = 1ull << 10;
  else if (S.consume_back_insensitive("m") || S.consume_back_insensitive("mib"))
    Scale = 1ull << 20;
  else if (S.consume_back_insensitive("g") || S.consume_back_insensitive("gib"))
    Scale = 1ull << 30;
  uint64_t N;
  if (S.getAsInteger(10, N))
    return std::nullopt;
  return N * Scale;
}

/// Options the command line leaves unset come from the configuration files
/// (DESIGN section 10): the user's, then the repository's.
static Error applyConfiguration(StringRef FirstSource) {
  std::vector<std::string> Warnings;
  auto Config = loadConfiguration(FirstSource, Warnings);
  if (!Config)
    return Config.takeError();
  for (const std::string &W : Warnings)
    WithColor::warning(errs(), "clang-maxcode") << W << "\n";
  auto &Registered = cl::getRegisteredOptions();
  for (const auto &[Flag, Value] : Config->toFlags()) {
    auto It = Registered.find(Flag);
    if (It == Registered.end() || It->second->getNumOccurrences())
      continue;
    if (It->second->addOccurrence(0, Flag, Value))
      return createStringError("the configuration's value '" + Value +
                               "' for --" + Flag + " is not valid");
  }
  return Error::success();
}

/// Where builds and runs go, and how they are checked and measured.
static Error fillEvaluationOptions(RunOptions &Opts) {
  Opts.TestsDir = TestsDir;
  Opts.Tolerance = Tolerance;
  Opts.MeasureTests = MeasureTests;
  Opts.BuildCmd = BuildCmd;
  Opts.TestCmd = TestCmd;
  Opts.BenchCmd = BenchCmd;
  Opts.BenchMetric = BenchMetric;
  Opts.ProjectRoot = ProjectRoot;
  Opts.HeldOutFraction = HeldOut;
  Opts.HoldoutCmd = HoldoutCmd;
  Opts.HoldoutBenchCmd = HoldoutBenchCmd;
  Opts.AllowApis.assign(AllowApi.begin(), AllowApi.end());
  Opts.AllowIsa.assign(AllowIsa.begin(), AllowIsa.end());
  Opts.PassEnv.assign(PassEnv.begin(), PassEnv.end());
  if (llvm::is_contained(Opts.PassEnv, std::string(LLMApiKeyEnv)))
    return createStringError("--pass-env may not name " + LLMApiKeyEnv +
                             ", the API key's variable");
  if (std::optional<uint64_t> Max = parseSize(MaxTreeSize))
    Opts.MaxTreeBytes = *Max;
  else
    return createStringError("--max-tree-size='" + MaxTreeSize +
                             "': give a size such as 500M or 2G");
  if (!(HeldOut >= 0 && HeldOut < 1))
    return createStringError("--held-out must be at least 0 and below 1");
  if (!(MinSpeedup >= 1))
    return createStringError("--min-speedup must be at least 1");
  if (Scope != ScopeOpt::Default)
    Opts.Scope = Scope == ScopeOpt::File ? EditScope::File : EditScope::Target;
  Opts.Measure = Measure;
  Opts.Sandbox = Sandbox;
  Opts.TimeoutSeconds = Timeout;
  Opts.Jobs = Jobs;
  Opts.Repetitions = Repetitions;
  Opts.ScratchRoot = ScratchRoot;
  const cl::opt<std::string> &ExecutorOpt = clang::tooling::ExecutorName;
  if (ExecutorOpt == "slurm")
    Opts.Executor = ExecutorKind::Slurm;
  else if (ExecutorOpt != "local")
    return createStringError("unknown --executor='" + ExecutorOpt +
                             "'; use local or slurm");
  Opts.Slurm.ExtraArgs = splitCommandLine(SlurmArgs);
  Opts.Slurm.Builds = SlurmBuilds;
  Opts.Slurm.SharedDir = SharedDir;
  return Error::success();
}

/// The search, the LLM behind it, and what its end writes.
static Error fillSearchOptions(RunOptions &Opts) {
  // The roles' names are checked here, once, for the command line and the
  // configuration files alike; the libraries see only the kinds.
  auto Role = [](StringRef Flag, StringRef Value, auto Parse,
                 auto &Into) -> Error {
    auto K = Parse(Value);
    if (!K)
      return createStringError("--" + Flag + "=" + toString(K.takeError()));
    Into = *K;
    return Error::success();
  };
  if (Error E = Role("policy", PolicyName, parsePolicyKind, Opts.Policy))
    return E;
  if (Error E = Role("critic", CriticName, parseCriticKind, Opts.Critic))
    return E;
  if (Error E = Role("rtg", RTGName, parseRTGKind, Opts.RTG))
    return E;
  Opts.Rules = RuleGlobs;
  Opts.Search.Strategy = Strategy;
  Opts.Search.Budget = Budget;
  Opts.Search.MinimiseBudget = MinimiseBudget;
  Opts.Search.Width = Width;
  Opts.Search.Depth = Depth;
  Opts.Search.BeamWidth = BeamWidth;
  Opts.Search.TopM = TopM;
  Opts.Search.Gamma = Gamma;
  Opts.Search.Seed = Seed;
  Opts.Search.WallSeconds = MaxTime;
  Opts.Resume = Resume;
  Opts.ProgressFile = ProgressFile;
  Opts.Search.TokenBudget = MaxTokens;
  Opts.LLM.Endpoint = LLMEndpoint;
  Opts.LLM.Model = LLMModel;
  Opts.LLM.ApiKeyEnv = LLMApiKeyEnv;
  Opts.LLM.RecordDir = LLMRecord;
  Opts.LLM.ReplayDir = LLMReplay;
  Opts.LLM.TimeoutSeconds = LLMTimeout;
  Opts.LLM.MaxRetries = LLMRetries;
  Opts.LLM.RetryBaseDelaySeconds = LLMRetryDelay;
  Opts.PromptsDir = PromptsDir;
  Opts.Apply = Apply;
  Opts.MinSpeedup = MinSpeedup;
  Opts.ExportFixes = ExportFixes;
  Opts.ReportPath = Report;
  return Error::success();
}

/// RunOptions from the parsed flags, for the modes that take sources.
static Expected<RunOptions> runOptionsFromFlags(
    const char *Argv0,
    std::unique_ptr<clang::tooling::CompilationDatabase> Fixed) {
  RunOptions Opts;
  Opts.StorePath = StorePath;
  Opts.BuildPath = BuildPath;
  Opts.Sources = Sources;
  // --rule-option, or the CheckOptions of the configuration files when the
  // command line gives none (applyConfiguration).
  for (const std::string &A : RuleOptionArgs)
    if (Error Err = parseRuleOptionAssignment(A, Opts.RuleCheckOptions))
      return Err;
  Opts.FlagsAfterDashDash = std::move(Fixed);
  Opts.JSON = Format == OutputFormat::JSON;
  void *Anchor = reinterpret_cast<void *>(&userError);
  Opts.Parse = getDefaultParseSettings(Argv0, Anchor);
  Opts.ToolDir = std::string(
      sys::path::parent_path(sys::fs::getMainExecutable(Argv0, Anchor)));
  Opts.TargetNames = TargetNames;
  Opts.ProfileCmd = ProfileCmd;
  if (Error E = fillEvaluationOptions(Opts))
    return E;
  if (Error E = fillSearchOptions(Opts))
    return E;
  return Opts;
}

static int listTargetsMode(const RunOptions &Opts) {
  auto L = listTargets(Opts, errs());
  if (!L)
    return fail(L.takeError());
  if (Opts.JSON)
    printTargetsJSON(L->Targets, outs(), L->Report);
  else
    printTargetsText(L->Targets, outs(), L->Report);
  return 0;
}

static int printParseCommandMode(const RunOptions &Opts) {
  auto Commands = parseCommands(Opts, errs());
  if (!Commands)
    return fail(Commands.takeError());
  if (Opts.JSON)
    printParseCommandsJSON(*Commands, outs());
  else
    printParseCommandsText(*Commands, outs());
  return 0;
}

static int listVariantsMode(const RunOptions &Opts) {
  ListVariantsOptions LV;
  LV.Sources = Opts.Sources;
  LV.BuildPath = Opts.BuildPath;
  LV.FlagsAfterDashDash = Opts.FlagsAfterDashDash;
  LV.Parse = Opts.Parse;
  LV.TargetNames = Opts.TargetNames;
  LV.Rules = RuleGlobs;
  LV.CheckOptions = Opts.RuleCheckOptions;
  LV.Scope = Opts.Scope;
  LV.ProjectMode = !Opts.BuildCmd.empty();
  LV.AllowIsa = Opts.AllowIsa;
  auto L = listVariants(LV, errs());
  if (!L)
    return fail(L.takeError());
  if (!WriteVariants.empty())
    if (Error E = writeVariantFiles(*L, WriteVariants))
      return fail(std::move(E));
  printVariantListing(*L, Opts.Sources.front(), outs());
  return 0;
}

static int critiqueMode() {
  if (Sources.size() != 1)
    return userError("--critique takes the variant file as its one source");
  CritiqueOptions CO;
  CO.EvaluationJSON = CritiqueJSON;
  CO.VariantFile = Sources.front();
  CO.BaseFile = CritiqueBase;
  CO.Rules = CritiqueRules;
  auto C = critiqueEvaluation(CO);
  if (!C)
    return fail(C.takeError());
  printCritique(*C, outs());
  return 0;
}

static int evaluateMode(const RunOptions &Opts) {
  auto O = evaluateEditedCopy(Opts, Evaluate, errs());
  if (!O)
    return fail(O.takeError());
  if (Opts.JSON)
    printEvaluationJSON(O->Result, O->T, Evaluate, integrityOf(O->Sandbox),
                        outs());
  else
    printEvaluationText(O->Result, O->T, Evaluate, integrityOf(O->Sandbox),
                        outs());
  return 0;
}

static int searchMode(const RunOptions &Opts) {
  auto O = runSearch(Opts, errs());
  if (!O)
    return fail(O.takeError());
  if (O->InterruptSignal) {
    WithColor::note(errs(), "clang-maxcode")
        << "interrupted after " << O->Summary.Evaluations
        << " evaluations, which the store '" << O->Summary.StorePath
        << "' keeps; run the same command with --resume to continue\n";
    consumeError(std::move(O->OutputError));
    return 128 + O->InterruptSignal;
  }
  // Why something was not written comes first, then what the search found
  // and what was written.
  int Code = 0;
  if (Error E = std::move(O->OutputError))
    Code = fail(std::move(E));
  if (Opts.JSON)
    printSearchSummaryJSON(O->Summary, outs());
  else
    printSearchSummaryText(O->Summary, outs());
  return Code;
}

/// The modes that read only the rollout store.
static int storeMode(const RunOptions &Opts) {
  if (TrainRTG) {
    auto T = trainRTGOnStore(Opts);
    if (!T)
      return fail(T.takeError());
    printRTGTraining(*T, outs());
    return 0;
  }
  if (Error E = exportStoreRTGDataset(Opts, ExportRTGDataset))
    return fail(std::move(E));
  return 0;
}

int main(int argc, const char **argv) {
  InitLLVM X(argc, argv);
  // Descendants that escape their supervisor come back here to be killed;
  // Ctrl-C stops every child and removes every scratch folder before exit.
  becomeSubreaper();
  installInterruptHandlers();
  // Flags after "--" make a fixed database; strip them before parsing ours.
  std::string FixedError;
  std::unique_ptr<clang::tooling::CompilationDatabase> Fixed =
      clang::tooling::FixedCompilationDatabase::loadFromCommandLine(argc, argv,
                                                                    FixedError);
  cl::opt<std::string> &ExecutorOpt = clang::tooling::ExecutorName;
  ExecutorOpt.setDescription("Where builds and runs happen: local (this "
                             "machine) or slurm (jobs through srun; needs "
                             "--shared-dir)");
  ExecutorOpt.setValueStr("local|slurm");
  ExecutorOpt.setInitialValue("local");
  ExecutorOpt.addCategory(MaxcodeCategory);
  cl::HideUnrelatedOptions(MaxcodeCategory);
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "clang-maxcode: make C++ and CUDA code faster by measured search\n",
          &errs()))
    return 1;
  if (!FixedError.empty())
    return userError(FixedError);
#ifndef MAXCODE_LLVM_HAS_DEBUG_OPTIONS
  enableDebugOutput(DebugAll, DebugOnly);
#endif
  if (!Sources.empty())
    if (Error E = applyConfiguration(Sources.front()))
      return fail(std::move(E));
  // The key lives in this process only (DESIGN section 7).
  (void)takeApiKey(LLMApiKeyEnv);
  if (ListRules) {
    auto Selection = RuleSelection::parse(RuleGlobs);
    if (!Selection)
      return fail(Selection.takeError());
    printRuleList(*Selection, outs());
    return 0;
  }
  if (!CritiqueJSON.empty())
    return critiqueMode();
  auto Opts = runOptionsFromFlags(argv[0], std::move(Fixed));
  if (!Opts)
    return fail(Opts.takeError());
  if (TrainRTG || !ExportRTGDataset.empty())
    return storeMode(*Opts);
  if (Sources.empty())
    return userError("no source file given (see --help)");
  if (ListTargets)
    return listTargetsMode(*Opts);
  if (PrintParseCommand)
    return printParseCommandMode(*Opts);
  if (ListVariants)
    return listVariantsMode(*Opts);
  if (!Evaluate.empty())
    return evaluateMode(*Opts);
  return searchMode(*Opts);
}
