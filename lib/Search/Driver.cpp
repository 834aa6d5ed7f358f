//===-- Driver.cpp - One run of clang-maxcode -----------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Search/Driver.h"
#include "maxcode/Eval/CuptiRun.h"
#include "maxcode/Eval/EvalCache.h"
#include "maxcode/Frontend/CompilationDatabase.h"
#include "maxcode/Frontend/Discovery.h"
#include "maxcode/Policy/RuleTool.h"
#include "maxcode/Policy/RulesCritic.h"
#include "maxcode/Policy/RulesPolicy.h"
#include "maxcode/Report/EvalOutput.h"
#include "maxcode/Report/TargetList.h"
#include "maxcode/Rewrite/Apply.h"
#include "maxcode/Search/LLMRoles.h"
#include "maxcode/Search/RolloutStore.h"
#include "maxcode/Search/RunOutput.h"
#include "maxcode/Support/Diff.h"
#include "maxcode/Support/Process.h"
#include "maxcode/Support/TreeCopy.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace maxcode;

namespace {
int userError(llvm::raw_ostream &Err, const llvm::Twine &Message) {
  llvm::WithColor::error(Err, "clang-maxcode") << Message << "\n";
  return 1;
}

llvm::Expected<LoadedDatabase> loadDatabase(const RunOptions &Opts) {
  return loadCompilationDatabase(Opts.BuildPath, Opts.FlagsAfterDashDash,
                                 Opts.Sources);
}

/// The tree project mode copies (DESIGN section 7): the source's git root,
/// else the compile database's folder when it holds the source, else the
/// source's folder. It always holds the source.
std::string defaultProjectRoot(llvm::StringRef File, llvm::StringRef Build) {
  for (llvm::StringRef Dir = llvm::sys::path::parent_path(File); !Dir.empty();
       Dir = llvm::sys::path::parent_path(Dir)) {
    llvm::SmallString<256> Git(Dir);
    llvm::sys::path::append(Git, ".git");
    if (llvm::sys::fs::exists(Git))
      return Dir.str();
  }
  if (!Build.empty()) {
    std::string DB = makeAbsolutePath(Build);
    llvm::SmallString<256> Clean(DB);
    llvm::sys::path::remove_dots(Clean, /*remove_dot_dot=*/true);
    llvm::StringRef D = llvm::StringRef(Clean).rtrim('/');
    if (File.starts_with(D.str() + "/"))
      return D.str();
  }
  return std::string(llvm::sys::path::parent_path(File));
}

/// What no build or run may see even inside a visible folder: the store
/// (and its journal), LLM transcripts, the report.
std::vector<std::string> protectedPaths(const RunOptions &Opts,
                                        llvm::StringRef StorePath) {
  std::vector<std::string> Out;
  if (!StorePath.empty()) {
    std::string Store = makeAbsolutePath(StorePath);
    for (const char *Suffix : {"", "-wal", "-shm", "-journal"})
      Out.push_back(Store + Suffix);
    // The store's own folder when it is ours.
    llvm::StringRef Parent = llvm::sys::path::parent_path(Store);
    if (llvm::sys::path::filename(Parent) == ".clang-maxcode" ||
        llvm::sys::path::filename(Parent) == "clang-maxcode")
      Out.push_back(Parent.str());
  }
  for (const std::string *D :
       {&Opts.LLM.RecordDir, &Opts.LLM.ReplayDir, &Opts.ReportPath,
        &Opts.ProgressFile, &Opts.ExportFixes})
    if (!D->empty())
      Out.push_back(makeAbsolutePath(*D));
  return Out;
}
/// libmaxcode-cupti.so beside the tool (build/lib or the installed lib);
/// empty when this build has none.
std::string cuptiLibraryPath(const RunOptions &Opts) {
  if (Opts.ToolDir.empty())
    return "";
  llvm::SmallString<256> Cupti(Opts.ToolDir);
  llvm::sys::path::append(Cupti, "..", "lib", "libmaxcode-cupti.so");
  llvm::sys::path::remove_dots(Cupti, true);
  return llvm::sys::fs::exists(Cupti) ? std::string(Cupti) : "";
}

/// The targets of the sources, ranked by --profile-cmd when given: by GPU
/// time under CUPTI when the sources define kernels (the CPU cost of a CUDA
/// program says little about its kernels), else by callgrind's cost.
llvm::Expected<std::vector<Target>>
discoverTargetsFor(const RunOptions &Opts, const LoadedDatabase &DB,
                   llvm::raw_ostream &Err, DiscoveryReport *Report = nullptr) {
  DiscoveryOptions D;
  D.Settings = Opts.Parse;
  auto Targets = discoverAndRank(DB, Opts.Sources, D, Err, Report);
  if (!Targets || Opts.ProfileCmd.empty())
    return Targets;
  if (llvm::any_of(*Targets, [](const Target &T) {
        return T.Kind == TargetKind::CudaKernel;
      })) {
    auto Times = profileKernels(Opts.ProfileCmd, "", cuptiLibraryPath(Opts),
                                D.ProfileTimeoutSeconds);
    if (!Times)
      return Times.takeError();
    attributeKernelTimes(*Times, *Targets);
  } else {
    auto Profile =
        runUnderCallgrind(Opts.ProfileCmd, "", D.ProfileTimeoutSeconds);
    if (!Profile)
      return Profile.takeError();
    attributeProfile(*Profile, *Targets);
  }
  rankTargets(*Targets);
  return Targets;
}
} // namespace

int maxcode::listTargetsMain(const RunOptions &Opts, llvm::raw_ostream &Out,
                             llvm::raw_ostream &Err) {
  auto DB = loadDatabase(Opts);
  if (!DB)
    return userError(Err, llvm::toString(DB.takeError()));
  DiscoveryReport Report;
  auto Targets = discoverTargetsFor(Opts, *DB, Err, &Report);
  if (!Targets)
    return userError(Err, llvm::toString(Targets.takeError()));
  if (Opts.JSON)
    printTargetsJSON(*Targets, Out, Report);
  else
    printTargetsText(*Targets, Out, Report);
  return 0;
}


int maxcode::printParseCommandMain(const RunOptions &Opts,
                                   llvm::raw_ostream &Out,
                                   llvm::raw_ostream &Err) {
  auto DB = loadDatabase(Opts);
  if (!DB)
    return userError(Err, llvm::toString(DB.takeError()));
  struct Entry {
    std::string Directory, File;
    std::vector<std::string> Args;
  };
  std::vector<Entry> Entries;
  for (const std::string &Source : Opts.Sources) {
    std::string File = makeAbsolutePath(Source);
    if (!llvm::sys::fs::exists(File))
      return userError(Err, "source file '" + Source + "' does not exist");
    ResolvedCommand RC = resolveCompileCommand(*DB, File);
    if (!RC.Fallback.empty())
      llvm::WithColor::warning(Err, "clang-maxcode")
          << "'" << Source << "' is not in " << DB->Origin << "; using "
          << RC.Fallback << "\n";
    Entries.push_back({RC.Command.Directory, File,
                       adjustForParsing(RC.Command.CommandLine, File,
                                        RC.Command.Directory, Opts.Parse)});
  }
  if (!Opts.JSON) {
    for (const Entry &E : Entries) {
      Out << "cd " << shellQuote(E.Directory) << " &&";
      for (const std::string &Arg : E.Args)
        Out << " " << shellQuote(Arg);
      Out << "\n";
    }
    return 0;
  }
  // compile_commands.json entries, in the usual order of their fields.
  llvm::json::OStream J(Out, /*IndentSize=*/2);
  J.object([&] {
    J.attribute("version", JSONOutputVersion);
    J.attributeArray("commands", [&] {
      for (const Entry &E : Entries)
        J.object([&] {
          J.attribute("directory", E.Directory);
          J.attribute("file", E.File);
          J.attributeArray("arguments", [&] {
            for (const std::string &Arg : E.Args)
              J.value(Arg);
          });
        });
    });
  });
  Out << "\n";
  return 0;
}

namespace {
/// What every mode that evaluates needs: the database, the parsed file, the
/// chosen target, the evaluator and the store.
struct Session {
  std::optional<LoadedDatabase> DB;
  std::string File;
  ResolvedCommand RC;
  std::vector<Target> Targets;
  Target T;
  std::shared_ptr<SQLiteFile> StoreFile;
  std::unique_ptr<EvalCache> Cache;
  std::unique_ptr<Executor> Exec;
  std::unique_ptr<Evaluator> Eval;
  SandboxMode Sandbox = SandboxMode::None; ///< The one chosen.
};

/// The executor --executor asks for, checked and ready.
llvm::Expected<std::unique_ptr<Executor>> createExecutor(const RunOptions &Opts,
                                                         unsigned Jobs) {
  const SlurmOptions &SO = Opts.Slurm;
  if (Opts.Executor == ExecutorKind::Local) {
    if (!SO.SharedDir.empty() || !SO.ExtraArgs.empty() || SO.Builds)
      return llvm::createStringError(
          "--shared-dir, --slurm-args and --slurm-builds need "
          "--executor=slurm");
    return createLocalExecutor(Jobs);
  }
  SlurmOptions Slurm = SO;
  if (!Slurm.SharedDir.empty())
    Slurm.SharedDir = makeAbsolutePath(Slurm.SharedDir);
  if (Slurm.JobRunner.empty() && !Opts.ToolDir.empty()) {
    llvm::SmallString<256> Runner(Opts.ToolDir);
    llvm::sys::path::append(Runner, "maxcode-job");
    Slurm.JobRunner = std::string(Runner);
  }
  return createSlurmExecutor(Jobs, Slurm);
}

/// Loads the database, parses, discovers and ranks; picks the target.
llvm::Error pickTarget(const RunOptions &Opts, Session &S,
                       llvm::raw_ostream &Err) {
  auto DB = loadDatabase(Opts);
  if (!DB)
    return DB.takeError();
  S.DB.emplace(std::move(*DB));
  S.File = makeAbsolutePath(Opts.Sources.front());
  if (!llvm::sys::fs::exists(S.File))
    return llvm::createStringError("source file '" + Opts.Sources.front() +
                                   "' does not exist");
  S.RC = resolveCompileCommand(*S.DB, S.File);
  if (!S.RC.Fallback.empty())
    llvm::WithColor::warning(Err, "clang-maxcode")
        << "'" << Opts.Sources.front() << "' is not in " << S.DB->Origin
        << "; using " << S.RC.Fallback << "\n";
  DiscoveryReport Report;
  auto Targets = discoverTargetsFor(Opts, *S.DB, Err, &Report);
  if (!Targets)
    return Targets.takeError();
  S.Targets = std::move(*Targets);
  auto Chosen = selectTargets(S.Targets, Opts.TargetNames, Report.Blocked);
  if (!Chosen)
    return Chosen.takeError();
  if (Chosen->size() > 1)
    llvm::WithColor::warning(Err, "clang-maxcode")
        << "optimising the first of the targets named, '"
        << Chosen->front().Name << "'\n";
  S.T = Chosen->front();
  return llvm::Error::success();
}

/// The sandbox --sandbox asks for, said aloud when `auto` chose it
/// (DESIGN section 7). An LLM's code never runs without bubblewrap unless
/// the user said --sandbox=none.
llvm::Expected<SandboxMode> chooseSandbox(const RunOptions &Opts,
                                          llvm::raw_ostream &Err) {
  auto Mode = resolveSandboxMode(Opts.Sandbox);
  if (!Mode)
    return Mode.takeError();
  if (Opts.Sandbox == SandboxMode::Auto)
    llvm::WithColor::note(Err, "clang-maxcode")
        << "sandbox: " << sandboxModeName(*Mode)
        << (*Mode == SandboxMode::Bwrap
                ? " (bubblewrap: no network, nothing of the machine but the "
                  "toolchain)\n"
                : " (bubblewrap does not work here: limits only, and a "
                  "variant can read what you can; see docs/Security.md)\n");
  if (*Mode == SandboxMode::None && Opts.Sandbox != SandboxMode::None &&
      usesLLM(Opts))
    return llvm::createStringError(
        "an LLM's code runs only in a working bubblewrap sandbox, and "
        "bubblewrap does not work here; install it (package 'bubblewrap') or "
        "say --sandbox=none to run it with limits only");
  return *Mode;
}

/// The tree project mode copies, said aloud with its size; refused when it
/// is larger than --max-tree-size.
llvm::Error checkProjectTree(const RunOptions &Opts, const EvalConfig &C,
                             llvm::raw_ostream &Err) {
  std::vector<std::string> Excluded = C.Protected;
  if (!C.ScratchRoot.empty())
    Excluded.push_back(makeAbsolutePath(C.ScratchRoot));
  llvm::SmallString<256> Tmp;
  llvm::sys::path::system_temp_directory(true, Tmp);
  if (llvm::StringRef(C.ProjectRoot) == Tmp.str() ||
      llvm::StringRef(Tmp).starts_with(C.ProjectRoot + "/"))
    return llvm::createStringError(
        "the project root '" + C.ProjectRoot + "' holds the scratch folder '" +
        Tmp.str() + "'; give --project-root or --scratch-dir outside it");
  auto Stats = measureTree(C.ProjectRoot, Excluded, Opts.MaxTreeBytes);
  if (!Stats)
    return llvm::createStringError(
        "the project root '" + C.ProjectRoot +
        "' is too large to copy for every variant (" +
        llvm::toString(Stats.takeError()) +
        "); give a smaller --project-root or a larger --max-tree-size");
  llvm::WithColor::note(Err, "clang-maxcode")
      << "project root: " << C.ProjectRoot << " (" << Stats->Files << " files, "
      << formatBytes(Stats->Bytes) << ", copied for every "
      << "variant)\n";
  if (!Stats->SkippedLinks.empty())
    llvm::WithColor::note(Err, "clang-maxcode")
        << Stats->SkippedLinks.size()
        << " symlink(s) point outside the tree and are left out of the copy, "
        << "e.g. '" << Stats->SkippedLinks.front() << "'\n";
  return llvm::Error::success();
}

/// The evaluator's configuration from the options and the chosen target.
EvalConfig makeEvalConfig(const RunOptions &Opts, const Session &S,
                          SandboxMode Mode, llvm::StringRef StorePath) {
  EvalConfig C;
  C.File = S.File;
  C.Command = S.RC.Command;
  C.Parse = Opts.Parse;
  C.TestsDir = Opts.TestsDir.empty() ? "" : makeAbsolutePath(Opts.TestsDir);
  C.Tolerance = Opts.Tolerance;
  C.MeasureTests = Opts.MeasureTests;
  C.HeldOutFraction = Opts.HeldOutFraction;
  C.BuildCmd = Opts.BuildCmd;
  C.TestCmd = Opts.TestCmd;
  C.BenchCmd = Opts.BenchCmd;
  C.HoldoutCmd = Opts.HoldoutCmd;
  C.BenchMetric = Opts.BenchMetric;
  C.MaxTreeBytes = Opts.MaxTreeBytes;
  C.ProjectRoot = Opts.ProjectRoot.empty()
                      ? defaultProjectRoot(S.File, Opts.BuildPath)
                      : makeAbsolutePath(Opts.ProjectRoot);
  // Program mode owns its file (its tests are outside it); in project mode
  // and for CUDA the harness may share the file (DESIGN section 2).
  bool Cuda = S.T.Kind != TargetKind::CpuFunction ||
              llvm::sys::path::extension(S.File) == ".cu";
  C.Scope = Opts.Scope ? *Opts.Scope
            : (C.programMode() && !Cuda) ? EditScope::File
                                         : EditScope::Target;
  C.Measure = Opts.Measure;
  C.TimeoutSeconds = Opts.TimeoutSeconds;
  C.Repetitions = Opts.Repetitions;
  C.Sandbox = Mode;
  C.ScratchRoot = Opts.ScratchRoot;
  if (C.ScratchRoot.empty() && Opts.Executor == ExecutorKind::Slurm)
    C.ScratchRoot = makeAbsolutePath(Opts.Slurm.SharedDir);
  C.CuptiLibrary = cuptiLibraryPath(Opts);
  if (!Opts.ToolDir.empty()) {
    llvm::SmallString<256> Timer(Opts.ToolDir);
    llvm::sys::path::append(Timer, "maxcode-timer");
    C.TimerPath = std::string(Timer);
  }
  C.AllowApis = Opts.AllowApis;
  C.PassEnv = Opts.PassEnv;
  C.Protected = protectedPaths(Opts, StorePath);
  return C;
}

/// Loads, parses, discovers and ranks; picks the target; makes the
/// evaluator and checks the baseline. Returns the exit code on failure.
std::optional<int> openSession(const RunOptions &Opts, Session &S,
                               llvm::raw_ostream &Err, bool UseStore) {
  if (Opts.Sources.size() != 1)
    return userError(Err, "give exactly one source file: the file holding "
                          "the target");
  if (!(Opts.TimeoutSeconds > 0 && Opts.TimeoutSeconds <= 86400))
    return userError(Err, "--timeout=" + std::to_string(Opts.TimeoutSeconds) +
                              ": give a number of seconds above 0 (at most "
                              "86400); a run without a limit is never safe");
  // The executor comes first: a cluster that does not answer is an error
  // before anything is parsed, built or written (docs/Slurm.md).
  unsigned Jobs = Opts.Jobs
                      ? Opts.Jobs
                      : llvm::hardware_concurrency().compute_thread_count();
  if (auto E = createExecutor(Opts, Jobs))
    S.Exec = std::move(*E);
  else
    return userError(Err, llvm::toString(E.takeError()));
  if (llvm::Error E = pickTarget(Opts, S, Err))
    return userError(Err, llvm::toString(std::move(E)));
  auto Mode = chooseSandbox(Opts, Err);
  if (!Mode)
    return userError(Err, llvm::toString(Mode.takeError()));
  S.Sandbox = *Mode;

  std::string StorePath = Opts.StorePath;
  if (StorePath.empty() && UseStore)
    StorePath = defaultStorePath(Opts);
  EvalConfig C = makeEvalConfig(Opts, S, *Mode, StorePath);
  if (!C.programMode() && !Opts.BuildCmd.empty())
    if (llvm::Error E = checkProjectTree(Opts, C, Err))
      return userError(Err, llvm::toString(std::move(E)));
  // Before the store is created: a run that cannot measure writes nothing.
  if (C.Measure == MeasureMode::CudaKernel)
    if (llvm::Error E = checkCudaMeasurable(C.CuptiLibrary))
      return userError(Err, llvm::toString(std::move(E)));
  if (!StorePath.empty()) {
    auto F = SQLiteFile::open(StorePath);
    if (!F)
      return userError(Err, llvm::toString(F.takeError()));
    S.StoreFile = *F;
    auto EC = EvalCache::open(S.StoreFile);
    if (!EC)
      return userError(Err, llvm::toString(EC.takeError()));
    S.Cache = std::move(*EC);
  }
  auto E = Evaluator::create(C, *S.Exec, S.Cache.get());
  if (!E)
    return userError(Err, llvm::toString(E.takeError()));
  S.Eval = std::move(*E);
  if (llvm::Error BE = S.Eval->prepareBaseline(&S.T))
    return userError(Err, llvm::toString(std::move(BE)));
  return std::nullopt;
}

/// The evaluator as the engine's backend.
class EvaluatorBackend : public EvaluationBackend {
public:
  explicit EvaluatorBackend(Evaluator &E) : E(E) {}
  Variant finalForm(const Variant &V, const Target &T) override {
    // Formatted as --apply writes it, then verified as such.
    auto F = computeFixes(E.config().File, E.originalText(), V.Text, T,
                          E.config().Scope);
    if (!F) {
      llvm::consumeError(F.takeError());
      return V;
    }
    Variant Out = V;
    Out.Text = F->Result;
    return Out;
  }
  std::vector<EvalResult> evaluate(llvm::ArrayRef<Variant> Vs,
                                   const Target &T) override {
    return E.evaluate(Vs, T);
  }
  EvalResult verify(const Variant &V, const Target &T,
                    unsigned Repetitions) override {
    return E.verify(V, T, Repetitions);
  }
  EvalResult retime(const Variant &V, const Target &T,
                    unsigned Repetitions) override {
    return E.retime(V, T, Repetitions);
  }
  bool noisy() const override {
    return E.config().Measure != MeasureMode::Instructions;
  }

private:
  Evaluator &E;
};

/// Progress: a line on stderr when it is a terminal, JSON lines to a file
/// when asked (the editor integration reads them).
class ProgressReporter : public SearchObserver {
public:
  ProgressReporter(llvm::raw_ostream &Err, std::string File)
      : Err(Err), File(std::move(File)),
        Terminal(llvm::sys::Process::StandardErrIsDisplayed()) {}
  void progress(unsigned Done, unsigned Budget, double Best,
                double Elapsed) override {
    if (Terminal) {
      double Left = Done ? Elapsed / Done * (Budget - Done) : 0;
      Err << llvm::formatv("\r[{0}/{1}] best {2:f3}x  {3:f0} s elapsed, ~{4:f0} "
                           "s left   ",
                           Done, Budget, Best, Elapsed, Left);
      if (Done == Budget)
        Err << "\n";
      Err.flush();
    }
    if (!File.empty()) {
      std::error_code EC;
      llvm::raw_fd_ostream OS(File, EC, llvm::sys::fs::OF_Append);
      if (!EC)
        OS << llvm::json::Value(llvm::json::Object{{"evaluations", Done},
                                                   {"budget", Budget},
                                                   {"best_speedup", Best}})
           << "\n";
    }
  }
  void finish() {
    if (Terminal)
      Err << "\n";
  }

private:
  llvm::raw_ostream &Err;
  std::string File;
  bool Terminal;
};

std::string configJSON(const RunOptions &Opts, const SearchConfig &C,
                       SandboxMode Sandbox) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << llvm::json::Value(
      llvm::json::Object{{"policy", Opts.Policy},
                         {"critic", Opts.CriticName},
                         {"rtg", Opts.RTGName},
                         {"rules", Opts.Rules},
                         {"strategy", strategyName(C.Strategy)},
                         {"budget", C.Budget},
                         {"width", C.Width},
                         {"depth", C.Depth},
                         {"beam_width", C.BeamWidth},
                         {"top_m", C.TopM},
                         {"gamma", C.Gamma},
                         {"seed", int64_t(C.Seed)},
                         {"measure", measureModeName(Opts.Measure)},
                         {"sandbox", sandboxModeName(Sandbox)},
                         {"held_out", Opts.HeldOutFraction}});
  return OS.str();
}
} // namespace

std::string maxcode::defaultStorePath(const RunOptions &Opts) {
  llvm::SmallString<256> P;
  if (!Opts.BuildPath.empty()) {
    P = makeAbsolutePath(Opts.BuildPath);
    llvm::sys::path::append(P, ".clang-maxcode", "rollouts.sqlite");
    return std::string(P);
  }
  if (auto X = llvm::sys::Process::GetEnv("XDG_CACHE_HOME"))
    P = *X;
  else if (auto H = llvm::sys::Process::GetEnv("HOME")) {
    P = *H;
    llvm::sys::path::append(P, ".cache");
  } else {
    llvm::sys::path::system_temp_directory(false, P);
  }
  llvm::sys::path::append(P, "clang-maxcode", "rollouts.sqlite");
  return std::string(P);
}

int maxcode::evaluateMain(const RunOptions &Opts, llvm::StringRef EditedCopy,
                          llvm::raw_ostream &Out, llvm::raw_ostream &Err) {
  auto Edited = llvm::MemoryBuffer::getFile(EditedCopy);
  if (!Edited)
    return userError(Err, "cannot read '" + EditedCopy +
                              "': " + Edited.getError().message());
  Session S;
  if (std::optional<int> RC = openSession(Opts, S, Err, /*UseStore=*/false))
    return *RC;
  Variant V;
  V.Text = (*Edited)->getBuffer().str();
  V.Description = "the edited copy " + EditedCopy.str();
  V.Rules = {"user"};
  // Every test, held-out ones included, and the cross-check of a large
  // speedup: what a winner goes through.
  EvalResult R = S.Eval->verify(V, S.T, Opts.Repetitions);
  if (Opts.JSON)
    printEvaluationJSON(R, S.T, EditedCopy, Out);
  else
    printEvaluationText(R, S.T, EditedCopy, Out);
  return 0;
}

int maxcode::searchMain(const RunOptions &Opts, llvm::raw_ostream &Out,
                        llvm::raw_ostream &Err) {
  // A missing endpoint is said before anything is built.
  if (llvm::Error E = checkLLMOptions(Opts))
    return userError(Err, llvm::toString(std::move(E)));
  Session S;
  if (std::optional<int> RC = openSession(Opts, S, Err, /*UseStore=*/true))
    return *RC;
  auto Store = RolloutStore::open(S.StoreFile);
  if (!Store)
    return userError(Err, llvm::toString(Store.takeError()));

  auto Selection = RuleSelection::parse(Opts.Rules);
  if (!Selection)
    return userError(Err, llvm::toString(Selection.takeError()));
  RuleOptions RO;
  // The compiler that builds the variants, not the command's first word:
  // the flags after `--` name none, and g++ builds them.
  RO.CompilerIsGCC = buildsWithGcc(S.RC.Command, S.File);
  RO.Scope = S.Eval->config().Scope;
  RO.HostFeatures = getHostPragmaFeatures();
  RO.CheckOptions = Opts.RuleCheckOptions;
  RulesProposer Proposer(S.RC.Command, S.File, Opts.Parse,
                         std::move(*Selection), RO, Opts.Search.Seed);
  RulesCritic TheRulesCritic;
  LLMRoles LLM;
  if (usesLLM(Opts)) {
    LLMProposerContext Ctx{S.RC.Command, S.File, S.T.Name,
                           S.Eval->config().Scope, &TheRulesCritic};
    auto Roles = createLLMRoles(Opts, Ctx, Store->get(), Err);
    if (!Roles)
      return userError(Err, llvm::toString(Roles.takeError()));
    LLM = std::move(*Roles);
  }

  std::unique_ptr<LearnedRTG> Learned;
  RTGModel *RTG = nullptr;
  if (Opts.RTGName == "learned") {
    auto M = (*Store)->latestRTGModel();
    if (!M)
      return userError(Err, llvm::toString(M.takeError()));
    Learned = std::move(*M);
    RTG = Learned.get();
  } else if (Opts.RTGName == "llm") {
    RTG = LLM.RTG.get();
  } else if (Opts.RTGName != "none") {
    return userError(Err, "--rtg=" + Opts.RTGName +
                              " is not available in this build; use "
                              "--rtg=none or --rtg=learned");
  }

  Critic *Crit = nullptr;
  if (Opts.CriticName == "rules")
    Crit = &TheRulesCritic;
  else if (Opts.CriticName == "llm")
    Crit = LLM.Critic.get();
  else if (Opts.CriticName != "none")
    return userError(Err, "--critic=" + Opts.CriticName +
                              " is not available in this build; use "
                              "--critic=rules or --critic=none");

  SearchConfig Config = Opts.Search;
  Config.VerifyRepetitions = std::max(2 * Opts.Repetitions, 4u);
  RunInfo Info{S.File, S.T.Name, S.Eval->originalText().str(),
               configJSON(Opts, Config, S.Sandbox)};
  bool Resumed = false;
  auto Run = (*Store)->beginRun(Info, Opts.Resume, Resumed);
  if (!Run)
    return userError(Err, llvm::toString(Run.takeError()));
  if (Opts.Resume && !Resumed)
    llvm::WithColor::note(Err, "clang-maxcode")
        << "no unfinished run of this search in the store; starting anew\n";
  {
    // The run's jobs are named after the store and the run, so that a
    // resumed run finds those its interrupted process left running.
    std::string StorePath =
        Opts.StorePath.empty() ? defaultStorePath(Opts) : Opts.StorePath;
    llvm::SmallString<256> Abs(StorePath);
    (void)llvm::sys::fs::make_absolute(Abs);
    llvm::SHA256 H;
    H.update(Abs.str());
    S.Exec->attachRun(llvm::toHex(H.final(), true).substr(0, 16) + "-run" +
                          std::to_string(*Run),
                      Resumed);
  }

  EvaluatorBackend Backend(*S.Eval);
  if (LLM.Proposer)
    Config.ExpandFailures = true; // A model can repair a failed variant.
  maxcode::Proposer &Prop =
      LLM.Proposer ? static_cast<maxcode::Proposer &>(*LLM.Proposer) : Proposer;
  SearchEngine Engine(Config, Prop, Backend, Crit, RTG);
  if (LLM.Ledger)
    Engine.setTokenCounter([&] { return LLM.Ledger->totalTokens(); });
  Engine.setInterruptCheck([] { return interrupted(); });
  ProgressReporter Progress(Err, Opts.ProgressFile);
  Engine.addObserver(Store->get());
  Engine.addObserver(&Progress);
  SearchResult R = Engine.run(S.T, S.Eval->originalText());
  Progress.finish();
  if (llvm::Error E = (*Store)->takeError())
    llvm::WithColor::warning(Err, "clang-maxcode")
        << "the store missed nodes: " << llvm::toString(std::move(E)) << "\n";
  for (const std::string &PE : R.ProposerErrors)
    llvm::WithColor::warning(Err, "clang-maxcode")
        << "the proposer gave nothing: " << PE << "\n";
  if (R.StopReason == "interrupted") {
    // The run stays unfinished in the store: --resume continues it. Every
    // child is gone and every scratch folder removed by now.
    llvm::WithColor::note(Err, "clang-maxcode")
        << "interrupted after " << R.Evaluations
        << " evaluations, which the store '"
        << (Opts.StorePath.empty() ? defaultStorePath(Opts) : Opts.StorePath)
        << "' keeps; run the same command with --resume to continue\n";
    return 128 + (interruptSignal() ? interruptSignal() : SIGINT);
  }
  if (llvm::Error E = (*Store)->finishRun(R))
    llvm::WithColor::warning(Err, "clang-maxcode")
        << llvm::toString(std::move(E)) << "\n";
  if (LLM.Ledger)
    if (llvm::Error E = LLM.Ledger->takeStoreError())
      llvm::WithColor::warning(Err, "clang-maxcode")
          << "the store missed LLM calls: " << llvm::toString(std::move(E))
          << "\n";

  const Node *W = R.Winner >= 0 ? &R.Nodes[R.Winner] : nullptr;
  bool Improved = W && R.Verified;
  double Speedup = Improved ? R.Verification->Ratio : 1.0;
  double Noise = R.Verification ? R.Verification->Noise : 0.0;
  std::string Unit = measureModeName(Opts.Measure).str();
  FinishedSearch Finished{Opts,
                          R,
                          S.T,
                          S.Targets,
                          S.File,
                          S.Eval->originalText().str(),
                          S.Eval->config().Scope,
                          sandboxModeName(S.Sandbox).str(),
                          Opts.StorePath.empty() ? defaultStorePath(Opts)
                                                 : Opts.StorePath,
                          *Run,
                          Improved,
                          LLM.Ledger ? LLM.Ledger->calls() : 0,
                          LLM.Ledger ? LLM.Ledger->usage() : TokenUsage()};
  std::vector<ApiUse> AddedCalls;
  if (Improved)
    AddedCalls = S.Eval->addedCalls(R.WinnerText, S.T);
  WrittenOutput Written;
  int ExitCode = writeRunOutputs(Finished, Written, Err);
  // What is shown is what --apply writes: the winner as it was verified.
  std::string NewText = Written.Fixes ? Written.Fixes->Result
                        : Improved    ? R.WinnerText
                                      : S.Eval->originalText().str();
  if (Opts.JSON) {
    llvm::json::Object O{{"version", 1},
                         {"status", Improved ? "improved" : "no-improvement"},
                         {"target", S.T.Name},
                         {"file", S.File},
                         {"speedup", Speedup},
                         {"noise", Noise},
                         {"measure", Unit},
                         {"evaluations", R.Evaluations},
                         {"from_store", R.FromCache},
                         {"stop_reason", R.StopReason},
                         {"sandbox", sandboxModeName(S.Sandbox)},
                         {"run", *Run}};
    if (R.Verification && R.Verification->Suspect)
      O["suspect"] =
          llvm::json::Object{{"speedup", R.Verification->RawRatio},
                             {"cross_measure", R.Verification->CrossMeasure},
                             {"cross_speedup", R.Verification->CrossRatio}};
    if (Improved)
      O["winner"] = llvm::json::Object{{"text", W->V.Text},
                                       {"rules", W->V.Rules},
                                       {"description", W->V.Description},
                                       {"summary", winnerSummary(R, S.T.Name)},
                                       {"node", W->Id}};
    if (LLM.Ledger)
      O["llm"] = LLM.Ledger->toJSON();
    llvm::json::Array Added;
    for (const ApiUse &U : AddedCalls)
      Added.push_back(
          llvm::json::Object{{"name", U.Name},
                             {"category", apiCategoryName(U.Category)},
                             {"line", U.Line}});
    O["added_calls"] = std::move(Added);
    O["applied"] = Written.Applied;
    if (Written.Exported)
      O["fixes"] = Opts.ExportFixes;
    if (!Opts.ReportPath.empty())
      O["report"] = Opts.ReportPath;
    Out << llvm::formatv("{0:2}", llvm::json::Value(std::move(O))) << "\n";
    return ExitCode;
  }
  Out << llvm::formatv("searched {0} with the {1} policy ({2}): {3} "
                       "evaluations ({4} from the store), {5:f1} s\n",
                       S.T.Name, Opts.Policy, strategyName(Config.Strategy),
                       R.Evaluations, R.FromCache, R.Seconds);
  if (LLM.Ledger) {
    llvm::json::Object U = LLM.Ledger->toJSON();
    Out << llvm::formatv("LLM: {0} calls ({1} failed), {2} tokens ({3} prompt "
                         "+ {4} completion); stopped on {5}\n",
                         *U.getInteger("calls"), *U.getInteger("failed_calls"),
                         *U.getInteger("total_tokens"),
                         *U.getInteger("prompt_tokens"),
                         *U.getInteger("completion_tokens"), R.StopReason);
  }
  if (!Improved && R.Verification && R.Verification->Suspect) {
    const EvalResult &V = *R.Verification;
    Out << llvm::formatv("no verified improvement: the best candidate's "
                         "{0:f3}x by {1} is suspect ({2:f3}x by {3}), so it "
                         "is not applied; nothing changed\n",
                         V.RawRatio, Unit, V.CrossRatio, V.CrossMeasure);
    return ExitCode;
  }
  if (!Improved) {
    Out << "no verified improvement found";
    if (W && R.Verification && R.Verification->ok())
      Out << llvm::formatv(" (the best candidate re-measured at {0:f3}x, "
                           "inside the noise)",
                           R.Verification->RawRatio);
    else if (W && R.Verification)
      Out << " (the best candidate failed its verification, "
          << evalStatusName(R.Verification->Status) << ": "
          << R.Verification->Reason << ")";
    Out << "; nothing changed\n";
    return ExitCode;
  }
  std::string Summary = winnerSummary(R, S.T.Name);
  Out << llvm::formatv("verified speedup: {0:f3}x (noise {1:f1}%, {2}){3}\n",
                       Speedup, Noise * 100, Unit,
                       Summary.empty() ? " by " + winnerDescription(R)
                                       : ": " + Summary);
  // What a reviewer should look at before applying: calls the original does
  // not make that reach outside the program.
  for (const ApiUse &U : AddedCalls)
    Out << "warning: the winner adds " << U.Name << " ("
        << apiCategoryName(U.Category) << ") at line " << U.Line
        << "; review it before applying\n";
  std::string Rel = llvm::sys::path::filename(S.File).str();
  Out << unifiedDiff(S.Eval->originalText(), NewText, "a/" + Rel, "b/" + Rel);
  if (Written.Applied)
    Out << "applied to " << S.File << "\n";
  if (Written.Exported)
    Out << "fixes written to " << Opts.ExportFixes << "\n";
  return ExitCode;
}

int maxcode::trainRTGMain(const RunOptions &Opts, llvm::raw_ostream &Out,
                          llvm::raw_ostream &Err) {
  std::string Path =
      Opts.StorePath.empty() ? defaultStorePath(Opts) : Opts.StorePath;
  if (!llvm::sys::fs::exists(Path))
    return userError(Err, "no rollout store at '" + Path + "'");
  auto F = SQLiteFile::open(Path);
  if (!F)
    return userError(Err, llvm::toString(F.takeError()));
  auto Store = RolloutStore::open(*F);
  if (!Store)
    return userError(Err, llvm::toString(Store.takeError()));
  auto Examples = (*Store)->rtgExamples();
  if (!Examples)
    return userError(Err, llvm::toString(Examples.takeError()));
  auto T = trainRTG(*Examples);
  if (!T)
    return userError(Err, llvm::toString(T.takeError()));
  if (llvm::Error E =
          (*Store)->saveRTGModel(*T->Model, T->HeldOutSpearman,
                                 Examples->size()))
    return userError(Err, llvm::toString(std::move(E)));
  Out << llvm::formatv("trained the reward-to-go model on {0} nodes; rank "
                       "correlation on {1} held-out nodes: {2:f3}\n",
                       T->TrainCount, T->HeldOutCount, T->HeldOutSpearman);
  return 0;
}

int maxcode::exportRTGDatasetMain(const RunOptions &Opts,
                                  llvm::StringRef Path,
                                  llvm::raw_ostream &Err) {
  std::string StorePath =
      Opts.StorePath.empty() ? defaultStorePath(Opts) : Opts.StorePath;
  if (!llvm::sys::fs::exists(StorePath))
    return userError(Err, "no rollout store at '" + StorePath + "'");
  auto F = SQLiteFile::open(StorePath);
  if (!F)
    return userError(Err, llvm::toString(F.takeError()));
  auto Store = RolloutStore::open(*F);
  if (!Store)
    return userError(Err, llvm::toString(Store.takeError()));
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  if (EC)
    return userError(Err, "cannot write '" + Path + "': " + EC.message());
  if (llvm::Error E = (*Store)->exportRTGDataset(OS))
    return userError(Err, llvm::toString(std::move(E)));
  return 0;
}
