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
#include "maxcode/Rewrite/Apply.h"
#include "maxcode/Search/LLMRoles.h"
#include "maxcode/Search/RolloutStore.h"
#include "maxcode/Search/RunOutput.h"
#include "maxcode/Support/Debug.h"
#include "maxcode/Support/Diff.h"
#include "maxcode/Support/Process.h"
#include "maxcode/Support/StatusLine.h"
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

#define DEBUG_TYPE "maxcode-search"

using namespace maxcode;

namespace {
llvm::Expected<LoadedDatabase> loadDatabase(const RunOptions &Opts) {
  return loadCompilationDatabase(Opts.BuildPath, Opts.FlagsAfterDashDash,
                                 Opts.Sources);
}

/// The tree project mode copies (DESIGN section 7): the source's git root,
/// else the compile database's folder or the folder one or two above it,
/// the first that holds the source (a build folder inside the project:
/// `proj/build`, `proj/out/release`), else the source's folder. It always
/// holds the source.
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
    if (llvm::sys::fs::is_regular_file(Clean))
      llvm::sys::path::remove_filename(Clean); // -p named the JSON file.
    llvm::StringRef D = llvm::StringRef(Clean).rtrim('/');
    for (int Up = 0; Up < 3 && !D.empty();
         ++Up, D = llvm::sys::path::parent_path(D))
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

/// Where --profile-cmd runs (DESIGN section 7; inTreeCopy): in project
/// mode, or with --project-root, in a copy of the project's tree, made for
/// it and removed after; in program mode (whose profile runs a program
/// built elsewhere) with the machine read-only. A tree too large to copy
/// (--max-tree-size), or one that holds the scratch folder, is shown
/// read-only, with a note. Without bubblewrap nothing can be read-only:
/// program mode's profile then runs where it is started, as the user would
/// run it.
class ProfilePlace {
public:
  static llvm::Expected<ProfilePlace> make(const RunOptions &Opts,
                                           llvm::raw_ostream &Err) {
    ProfilePlace P;
    bool Project = !Opts.BuildCmd.empty() || !Opts.ProjectRoot.empty();
    std::string First = Opts.Sources.empty()
                            ? makeAbsolutePath(".")
                            : makeAbsolutePath(Opts.Sources.front());
    P.View.Tree = Opts.ProjectRoot.empty()
                      ? defaultProjectRoot(First, Opts.BuildPath)
                      : makeAbsolutePath(Opts.ProjectRoot);
    auto Mode = resolveSandboxMode(Opts.Sandbox);
    P.View.Bwrap = Mode && *Mode == SandboxMode::Bwrap;
    if (!Mode)
      llvm::consumeError(Mode.takeError());
    if (!Project)
      return P;
    auto Dir = ScratchDir::create("maxcode-profile-tree", Opts.ScratchRoot,
                                  int(geteuid()));
    if (!Dir)
      return Dir.takeError();
    P.Dir.emplace(std::move(*Dir));
    llvm::SmallString<256> Copy(P.Dir->path());
    llvm::sys::path::append(Copy, "tree");
    std::vector<std::string> Excluded = protectedPaths(Opts, Opts.StorePath);
    Excluded.push_back(P.Dir->path());
    bool HoldsScratch =
        llvm::StringRef(P.Dir->path()).starts_with(P.View.Tree + "/");
    auto Size = HoldsScratch
                    ? llvm::Expected<TreeStats>(llvm::createStringError(
                          "it holds the scratch folder"))
                    : measureTree(P.View.Tree, Excluded, Opts.MaxTreeBytes);
    if (Size)
      Size = copyTree(P.View.Tree, Copy, Excluded);
    if (!Size) {
      llvm::WithColor::note(Err, "clang-maxcode")
          << "the profile command sees '" << P.View.Tree
          << "' read-only, not a copy (" << llvm::toString(Size.takeError())
          << ")\n";
      if (!P.View.Bwrap)
        return llvm::createStringError(
            "the profile command would run in your tree '" + P.View.Tree +
            "': it cannot be copied, and without bubblewrap it cannot be "
            "shown read-only; give a smaller --project-root");
      return P;
    }
    P.View.Copy = std::string(Copy);
    return P;
  }

  /// \p E, a failure of the command, with what it may write.
  llvm::Error explain(llvm::Error E) const {
    if (!View.Bwrap || !View.Copy.empty())
      return E;
    return llvm::createStringError(
        llvm::toString(std::move(E)) +
        "\n(the profile command runs with your files read-only: it may "
        "write to the temporary folder; with --project-root it runs in a "
        "writable copy of that folder)");
  }

  /// Places a command in the view, the folder \p Writable writable.
  CommandPlacement placement() const {
    return [this](ProcessSpec Spec, llvm::StringRef Writable) {
      TreeCopyView V = View;
      V.Writable.push_back(Writable.str());
      return inTreeCopy(std::move(Spec), V);
    };
  }

private:
  std::optional<ScratchDir> Dir;
  TreeCopyView View;
};

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
  auto Place = ProfilePlace::make(Opts, Err);
  if (!Place)
    return Place.takeError();
  if (llvm::any_of(*Targets, [](const Target &T) {
        return T.Kind == TargetKind::CudaKernel;
      })) {
    auto Times =
        profileKernels(Opts.ProfileCmd, Place->placement(),
                       cuptiLibraryPath(Opts), D.ProfileTimeoutSeconds);
    if (!Times)
      return Place->explain(Times.takeError());
    attributeKernelTimes(*Times, *Targets);
  } else {
    auto Profile = runUnderCallgrind(Opts.ProfileCmd, Place->placement(),
                                     D.ProfileTimeoutSeconds);
    if (!Profile)
      return Place->explain(Profile.takeError());
    attributeProfile(*Profile, *Targets);
  }
  rankTargets(*Targets);
  return Targets;
}
} // namespace

llvm::Expected<TargetListing> maxcode::listTargets(const RunOptions &Opts,
                                                   llvm::raw_ostream &Diag) {
  auto DB = loadDatabase(Opts);
  if (!DB)
    return DB.takeError();
  TargetListing L;
  auto Targets = discoverTargetsFor(Opts, *DB, Diag, &L.Report);
  if (!Targets)
    return Targets.takeError();
  L.Targets = std::move(*Targets);
  return L;
}

llvm::Expected<std::vector<clang::tooling::CompileCommand>>
maxcode::parseCommands(const RunOptions &Opts, llvm::raw_ostream &Diag) {
  auto DB = loadDatabase(Opts);
  if (!DB)
    return DB.takeError();
  std::vector<clang::tooling::CompileCommand> Out;
  for (const std::string &Source : Opts.Sources) {
    std::string File = makeAbsolutePath(Source);
    if (!llvm::sys::fs::exists(File))
      return llvm::createStringError("source file '" + Source +
                                     "' does not exist");
    ResolvedCommand RC = resolveCompileCommand(*DB, File);
    warnIfFallback(RC, Source, *DB, Diag);
    Out.emplace_back(RC.Command.Directory, File,
                     adjustForParsing(RC.Command.CommandLine, File,
                                      RC.Command.Directory, Opts.Parse),
                     RC.Command.Output);
  }
  return Out;
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
  warnIfFallback(S.RC, Opts.Sources.front(), *S.DB, Err);
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
      << formatBytes(Stats->Bytes)
      << (C.Sandbox == SandboxMode::Bwrap
              ? ", copied and built once per build worker, then rebuilt "
                "incrementally for each variant)\n"
              : ", copied for every variant, each built in full: without "
                "bubblewrap the copy is not at the project's own path)\n");
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
  C.HoldoutBenchCmd = Opts.HoldoutBenchCmd;
  C.BenchMetric = Opts.BenchMetric;
  C.MaxTreeBytes = Opts.MaxTreeBytes;
  C.ProjectRoot = Opts.ProjectRoot.empty()
                      ? defaultProjectRoot(S.File, Opts.BuildPath)
                      : makeAbsolutePath(Opts.ProjectRoot);
  // Program mode owns its file (its tests are outside it); in project mode
  // and for CUDA the harness may share the file (DESIGN section 2).
  bool Cuda = S.T.Kind != TargetKind::CpuFunction ||
              compilesAsCuda(S.RC.Command.CommandLine, S.File);
  C.Scope = Opts.Scope ? *Opts.Scope : defaultScope(C.programMode(), Cuda);
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
  // --allow-isa lets the screen pass what ties the program to an
  // instruction set, from any proposer.
  if (!Opts.AllowIsa.empty())
    C.AllowApis.push_back(apiCategoryKey(ApiCategory::InstructionSet).str());
  C.PassEnv = Opts.PassEnv;
  C.Protected = protectedPaths(Opts, StorePath);
  return C;
}

/// Loads, parses, discovers and ranks; picks the target; makes the
/// evaluator and checks the baseline.
llvm::Error openSession(const RunOptions &Opts, Session &S,
                        llvm::raw_ostream &Err, bool UseStore) {
  if (Opts.Sources.size() != 1)
    return llvm::createStringError("give exactly one source file: the file "
                                   "holding the target");
  if (!(Opts.TimeoutSeconds > 0 && Opts.TimeoutSeconds <= 86400))
    return llvm::createStringError(
        "--timeout=" + std::to_string(Opts.TimeoutSeconds) +
        ": give a number of seconds above 0 (at most 86400); a run without a "
        "limit is never safe");
  // The executor comes first: a cluster that does not answer is an error
  // before anything is parsed, built or written (docs/Slurm.md).
  unsigned Jobs = Opts.Jobs
                      ? Opts.Jobs
                      : llvm::hardware_concurrency().compute_thread_count();
  auto Exec = createExecutor(Opts, Jobs);
  if (!Exec)
    return Exec.takeError();
  S.Exec = std::move(*Exec);
  if (llvm::Error E = pickTarget(Opts, S, Err))
    return E;
  auto Mode = chooseSandbox(Opts, Err);
  if (!Mode)
    return Mode.takeError();
  S.Sandbox = *Mode;

  std::string StorePath = UseStore ? storePathOf(Opts) : Opts.StorePath;
  EvalConfig C = makeEvalConfig(Opts, S, *Mode, StorePath);
  if (!C.programMode() && !Opts.BuildCmd.empty())
    if (llvm::Error E = checkProjectTree(Opts, C, Err))
      return E;
  // Before the store is created: a run that cannot measure writes nothing.
  if (C.Measure == MeasureMode::CudaKernel)
    if (llvm::Error E = checkCudaMeasurable(C.CuptiLibrary))
      return E;
  if (!StorePath.empty()) {
    auto F = SQLiteFile::open(StorePath);
    if (!F)
      return F.takeError();
    S.StoreFile = *F;
    auto EC = EvalCache::open(S.StoreFile);
    if (!EC)
      return EC.takeError();
    S.Cache = std::move(*EC);
  }
  auto E = Evaluator::create(C, *S.Exec, S.Cache.get());
  if (!E)
    return E.takeError();
  S.Eval = std::move(*E);
  return S.Eval->prepareBaseline(&S.T);
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
      // Verified as it was written, then; --apply formats it the same way
      // and says so if that fails.
      llvm::Error E = F.takeError();
      MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": node '" << V.Description
                                 << "' is verified unformatted: "
                                 << llvm::toString(std::move(E)) << "\n");
      llvm::consumeError(std::move(E));
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
/// The search's progress: a status line on a terminal (StatusLine), and
/// --progress-file's lines. The time left is the measured wall time of an
/// evaluation the store did not answer (its build, checks and timed runs,
/// as many at once as the search runs) times the evaluations left: of the
/// batches after the first when there are any (the first also copies and
/// prepares the build workers' trees), else of the first.
class ProgressReporter : public SearchObserver {
public:
  ProgressReporter(StatusLine &Line, std::string File)
      : Line(Line), File(std::move(File)) {}
  void nodeAdded(const Node &N) override {
    if (N.Parent >= 0 && !N.Result.FromCache)
      ++Fresh;
  }
  void progress(unsigned Done, unsigned Budget, double Best,
                double Elapsed) override {
    double Batch = Elapsed - LastElapsed;
    LastElapsed = Elapsed;
    if (Fresh) {
      (Batches++ ? Later : First).add(Batch, Fresh);
      Fresh = 0;
    }
    const Rate &R = Later.Evaluations ? Later : First;
    double Each = R.Evaluations ? R.Seconds / R.Evaluations : 0;
    double Left = Each * (Budget > Done ? Budget - Done : 0);
    Line.show(
        Done >= Budget
            ? llvm::formatv("[{0}/{1}] best {2:f3}x  {3:f0} s elapsed; "
                            "verifying the best",
                            Done, Budget, Best, Elapsed)
                  .str()
            : llvm::formatv("[{0}/{1}] best {2:f3}x  {3:f0} s elapsed, ~{4:f0} "
                            "s left, then the verification",
                            Done, Budget, Best, Elapsed, Left)
                  .str());
    if (!File.empty()) {
      std::error_code EC;
      llvm::raw_fd_ostream OS(File, EC, llvm::sys::fs::OF_Append);
      if (!EC)
        OS << llvm::json::Value(llvm::json::Object{{"evaluations", Done},
                                                   {"budget", Budget},
                                                   {"best_speedup", Best},
                                                   {"elapsed_seconds", Elapsed},
                                                   {"seconds_left", Left}})
           << "\n";
    }
  }

private:
  struct Rate {
    double Seconds = 0;
    unsigned Evaluations = 0;
    void add(double S, unsigned N) {
      Seconds += S;
      Evaluations += N;
    }
  };
  StatusLine &Line;
  std::string File;
  unsigned Fresh = 0, Batches = 0;
  double LastElapsed = 0;
  Rate First, Later;
};

std::string configJSON(const RunOptions &Opts, const SearchConfig &C,
                       SandboxMode Sandbox) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << llvm::json::Value(
      llvm::json::Object{{"policy", roleName(Opts.Policy)},
                         {"critic", roleName(Opts.Critic)},
                         {"rtg", roleName(Opts.RTG)},
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

std::string maxcode::storePathOf(const RunOptions &Opts) {
  return Opts.StorePath.empty() ? defaultStorePath(Opts) : Opts.StorePath;
}

llvm::Expected<EvaluationOutcome>
maxcode::evaluateEditedCopy(const RunOptions &Opts, llvm::StringRef EditedCopy,
                            llvm::raw_ostream &Diag) {
  auto Edited = llvm::MemoryBuffer::getFile(EditedCopy);
  if (!Edited)
    return llvm::createStringError("cannot read '" + EditedCopy +
                                   "': " + Edited.getError().message());
  Session S;
  if (llvm::Error E = openSession(Opts, S, Diag, /*UseStore=*/false))
    return E;
  Variant V;
  V.Text = (*Edited)->getBuffer().str();
  V.Description = "the edited copy " + EditedCopy.str();
  V.Rules = {"user"};
  // Every test, held-out ones included, and the cross-check of a large
  // speedup: what a winner goes through.
  return EvaluationOutcome{S.T, S.Eval->verify(V, S.T, Opts.Repetitions),
                           S.Sandbox};
}

namespace {
/// Who proposes, who explains and who reranks in one search, as the
/// options choose them (docs/Search.md).
struct SearchRoles {
  std::unique_ptr<RulesProposer> Rules;
  RulesCritic TheRulesCritic;
  LLMRoles LLM;
  std::unique_ptr<LearnedRTG> Learned;
  Proposer *Prop = nullptr;
  Critic *Crit = nullptr;
  RTGModel *RTG = nullptr;
};

llvm::Error createRoles(const RunOptions &Opts, const Session &S,
                        RolloutStore &Store, SearchRoles &R,
                        llvm::raw_ostream &Diag) {
  auto Selection = RuleSelection::parse(Opts.Rules);
  if (!Selection)
    return Selection.takeError();
  RuleOptions RO;
  // The compiler that builds the variants, not the command's first word:
  // the flags after `--` name none, and g++ builds them.
  RO.CompilerIsGCC = buildsWithGcc(S.RC.Command, S.File);
  RO.Scope = S.Eval->config().Scope;
  RO.HostFeatures = allowedPragmaFeatures(Opts.AllowIsa);
  RO.CheckOptions = Opts.RuleCheckOptions;
  R.Rules = std::make_unique<RulesProposer>(S.RC.Command, S.File, Opts.Parse,
                                            std::move(*Selection), RO,
                                            Opts.Search.Seed);
  if (usesLLM(Opts)) {
    LLMProposerContext Ctx{S.RC.Command, S.File, S.T.Name,
                           S.Eval->config().Scope, &R.TheRulesCritic};
    auto Roles = createLLMRoles(Opts, Ctx, &Store, Diag);
    if (!Roles)
      return Roles.takeError();
    R.LLM = std::move(*Roles);
  }
  R.Prop = R.LLM.Proposer ? static_cast<Proposer *>(R.LLM.Proposer.get())
                          : R.Rules.get();

  switch (Opts.RTG) {
  case RTGKind::Learned: {
    auto M = Store.latestRTGModel();
    if (!M)
      return M.takeError();
    R.Learned = std::move(*M);
    R.RTG = R.Learned.get();
    break;
  }
  case RTGKind::LLM:
    R.RTG = R.LLM.RTG.get();
    break;
  case RTGKind::None:
    break;
  }
  switch (Opts.Critic) {
  case CriticKind::Rules:
    R.Crit = &R.TheRulesCritic;
    break;
  case CriticKind::LLM:
    R.Crit = R.LLM.Critic.get();
    break;
  case CriticKind::None:
    break;
  }
  return llvm::Error::success();
}

/// Starts (or, with --resume, continues) the run in the store, and names
/// the run's jobs after the store and the run, so that a resumed run finds
/// those its interrupted process left running.
llvm::Expected<int64_t> beginRun(const RunOptions &Opts, Session &S,
                                 RolloutStore &Store, const RunInfo &Info,
                                 llvm::raw_ostream &Diag) {
  bool Resumed = false;
  auto Run = Store.beginRun(Info, Opts.Resume, Resumed);
  if (!Run)
    return Run.takeError();
  if (Opts.Resume && !Resumed)
    llvm::WithColor::note(Diag, "clang-maxcode")
        << "no unfinished run of this search in the store; starting anew\n";
  llvm::SmallString<256> Abs(storePathOf(Opts));
  (void)llvm::sys::fs::make_absolute(Abs);
  llvm::SHA256 H;
  H.update(Abs.str());
  S.Exec->attachRun(llvm::toHex(H.final(), true).substr(0, 16) + "-run" +
                        std::to_string(*Run),
                    Resumed);
  return *Run;
}

/// What the store and the LLM ledger could not keep, said once the search
/// is over; none of it changes the outcome.
void warnAboutLosses(RolloutStore &Store, const SearchResult &R,
                     llvm::raw_ostream &Diag) {
  if (llvm::Error E = Store.takeError())
    llvm::WithColor::warning(Diag, "clang-maxcode")
        << "the store missed nodes: " << llvm::toString(std::move(E)) << "\n";
  for (const std::string &PE : R.ProposerErrors)
    llvm::WithColor::warning(Diag, "clang-maxcode")
        << "the proposer gave nothing: " << PE << "\n";
}

/// The summary's account of the search itself, whatever its outcome.
SearchSummary summarizeSearch(const RunOptions &Opts, const Session &S,
                              const SearchConfig &Config, const SearchResult &R,
                              int64_t Run) {
  SearchSummary Sum;
  Sum.Target = S.T.Name;
  Sum.File = S.File;
  Sum.Policy = roleName(Opts.Policy).str();
  Sum.Strategy = strategyName(Config.Strategy).str();
  // The unit a person reads: a bench's own figure is not time.
  Sum.Measure = Opts.BenchMetric.empty() || !Opts.TestsDir.empty()
                    ? measureModeName(Opts.Measure).str()
                    : "bench-metric";
  Sum.Sandbox = sandboxModeName(S.Sandbox).str();
  Sum.Integrity = integrityOf(S.Sandbox).str();
  Sum.StopReason = R.StopReason;
  Sum.Evaluations = R.Evaluations;
  Sum.FromStore = R.FromCache;
  Sum.Seconds = R.Seconds;
  Sum.Run = Run;
  Sum.StorePath = storePathOf(Opts);
  Sum.Candidate = R.Winner >= 0;
  Sum.Verification = R.Verification;
  Sum.SuspectCandidates = llvm::count_if(
      R.Rejected, [](const auto &X) { return X.second.Suspect; });
  Sum.Improved = Sum.Candidate && R.Verified;
  Sum.Speedup = Sum.Improved ? R.Verification->Ratio : 1.0;
  Sum.MinSpeedup = Opts.MinSpeedup;
  Sum.BelowMinSpeedup = Sum.Improved && Sum.Speedup < Opts.MinSpeedup;
  Sum.Noise = R.Verification ? R.Verification->Noise : 0.0;
  if (Sum.Improved) {
    const Node &W = R.Nodes[R.Winner];
    Sum.Winner = W.V;
    // The text verified, as the minimiser left it: what is applied.
    if (!R.WinnerText.empty())
      Sum.Winner->Text = R.WinnerText;
    Sum.Minimised = R.Minimised;
    Sum.WinnerNode = W.Id;
    Sum.WinnerSummary = winnerSummary(R, S.T.Name);
    Sum.WinnerDescription = winnerDescription(R);
  }
  return Sum;
}

/// Writes what the options ask for (DESIGN section 1, step 5) and fills in
/// what was written.
SearchOutcome finishSearch(const RunOptions &Opts, const Session &S,
                           const SearchRoles &Roles, const SearchResult &R,
                           SearchSummary Sum, llvm::raw_ostream &Diag) {
  SearchOutcome O;
  if (Sum.Improved) {
    auto Added = S.Eval->addedCalls(R.WinnerText, S.T);
    if (Added)
      Sum.AddedCalls = std::move(*Added);
    else
      llvm::WithColor::warning(Diag, "clang-maxcode")
          << "the calls the winner adds could not be listed ("
          << llvm::toString(Added.takeError())
          << "); review it for file, process and network calls before "
             "applying\n";
  }
  const LLMLedger *Ledger = Roles.LLM.Ledger.get();
  FinishedSearch Finished{Opts,
                          R,
                          S.T,
                          S.Targets,
                          S.File,
                          S.Eval->originalText().str(),
                          S.Eval->config().Scope,
                          Sum.Sandbox,
                          Sum.Integrity,
                          Sum.StorePath,
                          Sum.Run,
                          Sum.Improved,
                          Sum.BelowMinSpeedup,
                          Ledger ? Ledger->calls() : 0,
                          Ledger ? Ledger->usage() : TokenUsage()};
  WrittenOutput Written;
  O.OutputError = writeRunOutputs(Finished, Written);
  // What is shown is what --apply writes: the winner as it was verified.
  std::string NewText = Written.Fixes  ? Written.Fixes->Result
                        : Sum.Improved ? R.WinnerText
                                       : S.Eval->originalText().str();
  std::string Rel = llvm::sys::path::filename(S.File).str();
  Sum.Diff =
      unifiedDiff(S.Eval->originalText(), NewText, "a/" + Rel, "b/" + Rel);
  if (Sum.Minimised && !Sum.Minimised->UnminimisedText.empty())
    Sum.UnminimisedDiff =
        unifiedDiff(S.Eval->originalText(), Sum.Minimised->UnminimisedText,
                    "a/" + Rel, "b/" + Rel);
  if (Ledger)
    Sum.LLM = Ledger->toJSON();
  Sum.Applied = Written.Applied;
  if (Written.Exported)
    Sum.FixesPath = Opts.ExportFixes;
  Sum.ReportPath = Opts.ReportPath;
  O.Summary = std::move(Sum);
  return O;
}
} // namespace

llvm::Expected<SearchOutcome> maxcode::runSearch(const RunOptions &Opts,
                                                 llvm::raw_ostream &Err) {
  // Everything said while the search runs goes above its progress line.
  StatusLine Diag(Err, llvm::sys::Process::StandardErrIsDisplayed());
  // A missing endpoint is said before anything is built.
  if (llvm::Error E = checkLLMOptions(Opts))
    return E;
  Session S;
  if (llvm::Error E = openSession(Opts, S, Diag, /*UseStore=*/true))
    return E;
  auto Store = RolloutStore::open(S.StoreFile);
  if (!Store)
    return Store.takeError();
  SearchRoles Roles;
  if (llvm::Error E = createRoles(Opts, S, **Store, Roles, Diag))
    return E;

  SearchConfig Config = Opts.Search;
  Config.VerifyRepetitions = std::max(2 * Opts.Repetitions, 4u);
  if (Roles.LLM.Proposer)
    Config.ExpandFailures = true; // A model can repair a failed variant.
  RunInfo Info{S.File, S.T.Name, S.Eval->originalText().str(),
               configJSON(Opts, Config, S.Sandbox)};
  auto Run = beginRun(Opts, S, **Store, Info, Diag);
  if (!Run)
    return Run.takeError();

  EvaluatorBackend Backend(*S.Eval);
  SearchEngine Engine(Config, *Roles.Prop, Backend, Roles.Crit, Roles.RTG);
  if (LLMLedger *Ledger = Roles.LLM.Ledger.get())
    Engine.setTokenCounter([Ledger] { return Ledger->totalTokens(); });
  Engine.setInterruptCheck([] { return interrupted(); });
  ProgressReporter Progress(Diag, Opts.ProgressFile);
  Engine.addObserver(Store->get());
  Engine.addObserver(&Progress);
  SearchResult R = Engine.run(S.T, S.Eval->originalText());
  Diag.keep();
  warnAboutLosses(**Store, R, Diag);
  SearchSummary Sum = summarizeSearch(Opts, S, Config, R, *Run);
  if (R.StopReason == "interrupted") {
    // The run stays unfinished in the store: --resume continues it. Every
    // child is gone and every scratch folder removed by now.
    SearchOutcome O;
    O.Summary = std::move(Sum);
    O.InterruptSignal = interruptSignal() ? interruptSignal() : SIGINT;
    return O;
  }
  if (llvm::Error E = (*Store)->finishRun(R))
    llvm::WithColor::warning(Diag, "clang-maxcode")
        << llvm::toString(std::move(E)) << "\n";
  if (Roles.LLM.Ledger)
    if (llvm::Error E = Roles.LLM.Ledger->takeStoreError())
      llvm::WithColor::warning(Diag, "clang-maxcode")
          << "the store missed LLM calls: " << llvm::toString(std::move(E))
          << "\n";
  return finishSearch(Opts, S, Roles, R, std::move(Sum), Diag);
}

namespace {
/// The store of \p Opts, which must exist: the modes that only read it.
llvm::Expected<std::unique_ptr<RolloutStore>>
openExistingStore(const RunOptions &Opts) {
  std::string Path = storePathOf(Opts);
  if (!llvm::sys::fs::exists(Path))
    return llvm::createStringError("no rollout store at '" + Path + "'");
  auto F = SQLiteFile::open(Path);
  if (!F)
    return F.takeError();
  return RolloutStore::open(*F);
}
} // namespace

llvm::Expected<RTGTraining> maxcode::trainRTGOnStore(const RunOptions &Opts) {
  auto Store = openExistingStore(Opts);
  if (!Store)
    return Store.takeError();
  auto Examples = (*Store)->rtgExamples();
  if (!Examples)
    return Examples.takeError();
  auto T = trainRTG(*Examples);
  if (!T)
    return T.takeError();
  if (llvm::Error E = (*Store)->saveRTGModel(*T->Model, T->HeldOutSpearman,
                                             Examples->size()))
    return E;
  return T;
}

llvm::Error maxcode::exportStoreRTGDataset(const RunOptions &Opts,
                                           llvm::StringRef Path) {
  auto Store = openExistingStore(Opts);
  if (!Store)
    return Store.takeError();
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  if (EC)
    return llvm::createStringError("cannot write '" + Path +
                                   "': " + EC.message());
  return (*Store)->exportRTGDataset(OS);
}
