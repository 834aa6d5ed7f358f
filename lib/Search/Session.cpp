//===-- Session.cpp - What every mode that evaluates needs ----------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A run's setup, in the order it happens: the executor, the database, the
// targets (ranked by a profile when asked, which runs in a copy of the
// project), the sandbox, the evaluator and the store.
//
//===----------------------------------------------------------------------===//

#include "Session.h"
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
#include "maxcode/Support/Options.h"
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
using namespace maxcode::driver;

llvm::Expected<LoadedDatabase> driver::loadDatabase(const RunOptions &Opts) {
  return loadCompilationDatabase(Opts.BuildPath, Opts.FlagsAfterDashDash,
                                 Opts.Sources);
}

/// The tree project mode copies (DESIGN section 7): the source's git root,
/// else the compile database's folder or the folder one or two above it,
/// the first that holds the source (a build folder inside the project:
/// `proj/build`, `proj/out/release`), else the source's folder. It always
/// holds the source.
std::string driver::defaultProjectRoot(llvm::StringRef File,
                                       llvm::StringRef Build) {
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

namespace {

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
    llvm::StringRef Above =
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(Parent));
    if (llvm::sys::path::filename(Parent) == ".clang-maxcode" ||
        llvm::sys::path::filename(Parent) == "clang-maxcode" ||
        (llvm::sys::path::filename(Above) == "clang-maxcode" &&
         llvm::sys::path::filename(llvm::sys::path::parent_path(Parent)) ==
             "projects"))
      Out.push_back(Parent.str());
  }
  for (const std::string *D :
       {&Opts.Settings.LLMRecord, &Opts.Settings.LLMReplay, &Opts.ReportPath,
        &Opts.ProgressFile, &Opts.ExportFixes})
    if (!D->empty())
      Out.push_back(makeAbsolutePath(*D));
  return Out;
}
/// Where program mode keeps the inputs it derives for \p File (rule 13):
/// beside the store, one folder per source file, so that a user can find
/// the one a variant failed and add it to the tests.
std::string derivedInputsDir(llvm::StringRef File, llvm::StringRef StorePath) {
  llvm::SmallString<256> Dir(
      llvm::sys::path::parent_path(makeAbsolutePath(StorePath)));
  std::string Hash =
      llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(File)), true)
          .substr(0, 8);
  llvm::sys::path::append(Dir, "derived-inputs",
                          llvm::sys::path::stem(File) + "-" + Hash);
  return std::string(Dir);
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
/// it and removed after; otherwise (program mode, whose profile runs a
/// program built elsewhere, and the modes that only read code) with the
/// machine read-only. A tree too large to copy (--max-tree-size), or one
/// that holds the scratch folder, is shown read-only, with a note. Without
/// bubblewrap nothing can be read-only: the profile then runs in a copy in
/// every mode (from the same folder of the copy when it is started inside
/// the tree), and is refused when the tree cannot be copied.
class ProfilePlace {
public:
  static llvm::Expected<ProfilePlace> make(const RunOptions &Opts,
                                           llvm::raw_ostream &Err) {
    ProfilePlace P;
    P.Names = Opts.Names;
    bool Project = runModeOf(Opts) == RunMode::Project;
    std::string First = Opts.Sources.empty()
                            ? makeAbsolutePath(".")
                            : makeAbsolutePath(Opts.Sources.front());
    P.View.Tree = Opts.Settings.ProjectRoot.empty()
                      ? defaultProjectRoot(First, Opts.BuildPath)
                      : makeAbsolutePath(Opts.Settings.ProjectRoot);
    auto Mode = resolveSandboxMode(Opts.Settings.Sandbox, Opts.Names);
    P.View.Bwrap = Mode && *Mode == SandboxMode::Bwrap;
    if (!Mode)
      llvm::consumeError(Mode.takeError());
    if (!Project && P.View.Bwrap)
      return P;
    auto Dir = ScratchDir::create("maxcode-profile-tree",
                                  Opts.Settings.ScratchDir, int(geteuid()));
    if (!Dir)
      return Dir.takeError();
    P.Dir.emplace(std::move(*Dir));
    llvm::SmallString<256> Copy(P.Dir->path());
    llvm::sys::path::append(Copy, "tree");
    std::vector<std::string> Excluded =
        protectedPaths(Opts, Opts.Settings.Store);
    Excluded.push_back(P.Dir->path());
    bool HoldsScratch =
        llvm::StringRef(P.Dir->path()).starts_with(P.View.Tree + "/");
    auto Size = HoldsScratch
                    ? llvm::Expected<TreeStats>(llvm::createStringError(
                          "it holds the scratch folder"))
                    : measureTree(P.View.Tree, Excluded,
                                  *parseByteSize(Opts.Settings.MaxTreeSize));
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
            "shown read-only; give a smaller " +
            Opts.Names("ProjectRoot"));
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
        "write to the temporary folder; with " +
        Names("ProjectRoot") +
        " it runs in a "
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
  OptionNames Names;
};

} // namespace

namespace {
/// Sets \p Targets' shares from a run of --profile-cmd: GPU time for a file
/// with kernels, callgrind's counts otherwise.
llvm::Error profileTargets(const RunOptions &Opts, std::vector<Target> &Targets,
                           const DiscoveryOptions &D, llvm::raw_ostream &Err) {
  auto Place = ProfilePlace::make(Opts, Err);
  if (!Place)
    return Place.takeError();
  if (llvm::any_of(Targets, [](const Target &T) {
        return T.Kind == TargetKind::CudaKernel;
      })) {
    auto Times =
        profileKernels(Opts.Settings.ProfileCommand, Place->placement(),
                       cuptiLibraryPath(Opts), D.ProfileTimeoutSeconds);
    if (!Times)
      return Place->explain(Times.takeError());
    attributeKernelTimes(*Times, Targets);
    return llvm::Error::success();
  }
  auto Profile = runUnderCallgrind(Opts.Settings.ProfileCommand,
                                   Place->placement(), D.ProfileTimeoutSeconds);
  if (!Profile)
    return Place->explain(Profile.takeError());
  attributeProfile(*Profile, Targets);
  return llvm::Error::success();
}
} // namespace

llvm::Expected<std::vector<Target>>
driver::discoverTargetsFor(const RunOptions &Opts, const LoadedDatabase &DB,
                           llvm::raw_ostream &Err, DiscoveryReport *Report) {
  DiscoveryOptions D;
  D.Settings = Opts.Parse;
  auto Targets = discoverAndRank(DB, Opts.Sources, D, Err, Report);
  if (!Targets || Opts.Settings.ProfileCommand.empty())
    return Targets;
  if (llvm::Error E = profileTargets(Opts, *Targets, D, Err)) {
    if (!Opts.ProfileIsImplicit)
      return E;
    // Its first line: the rest is valgrind's banner and the bench's stderr.
    std::string Why = llvm::toString(std::move(E));
    llvm::WithColor::warning(Err, "clang-maxcode")
        << "the bench could not be profiled ("
        << llvm::StringRef(Why).split('\n').first.rtrim()
        << "); the targets are ranked by a static estimate: "
        << "--target or " << Opts.Names("ProfileCommand") << " chooses\n";
    return Targets;
  }
  rankTargets(*Targets);
  return Targets;
}
namespace {

/// The executor --executor asks for, checked and ready.
llvm::Expected<std::unique_ptr<Executor>> createExecutor(const RunOptions &Opts,
                                                         unsigned Jobs) {
  const EffectiveOptions &Settings = Opts.Settings;
  std::vector<std::string> SlurmArgs = splitCommandLine(Settings.SlurmArgs);
  if (Settings.Executor == ExecutorKind::Local) {
    if (!Settings.SharedDir.empty() || !SlurmArgs.empty() ||
        Settings.SlurmBuilds)
      return llvm::createStringError(Opts.Names("SharedDir") + ", " +
                                     Opts.Names("SlurmArgs") + " and " +
                                     Opts.Names("SlurmBuilds") + " need " +
                                     Opts.Names("Executor") + "=slurm");
    return createLocalExecutor(Jobs);
  }
  SlurmOptions Slurm;
  Slurm.ExtraArgs = std::move(SlurmArgs);
  Slurm.Builds = Settings.SlurmBuilds;
  Slurm.Names = Opts.Names;
  if (!Settings.SharedDir.empty())
    Slurm.SharedDir = makeAbsolutePath(Settings.SharedDir);
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
  auto Mode = resolveSandboxMode(Opts.Settings.Sandbox, Opts.Names);
  if (!Mode)
    return Mode.takeError();
  if (Opts.Settings.Sandbox == SandboxMode::Auto)
    llvm::WithColor::note(Err, "clang-maxcode")
        << "sandbox: " << optionValueName(*Mode)
        << (*Mode == SandboxMode::Bwrap
                ? " (bubblewrap: no network, nothing of the machine but the "
                  "toolchain)\n"
                : " (bubblewrap does not work here: limits only, and a "
                  "variant can read what you can; see docs/Security.md)\n");
  if (*Mode == SandboxMode::None &&
      Opts.Settings.Sandbox != SandboxMode::None && usesLLM(Opts))
    return llvm::createStringError(
        "an LLM's code runs only in a working bubblewrap sandbox, and "
        "bubblewrap does not work here; install it (package 'bubblewrap') or "
        "say " +
        Opts.Names("Sandbox") + "=none to run it with limits only");
  return *Mode;
}

/// The tree project mode copies, said aloud with its size; refused when it
/// is larger than --max-tree-size.
llvm::Error checkProjectTree(const RunOptions &Opts, const EvalConfig &C,
                             llvm::raw_ostream &Err) {
  std::vector<std::string> Excluded = C.Protected;
  if (!C.Settings.ScratchDir.empty())
    Excluded.push_back(makeAbsolutePath(C.Settings.ScratchDir));
  llvm::SmallString<256> Tmp;
  llvm::sys::path::system_temp_directory(true, Tmp);
  if (llvm::StringRef(C.Settings.ProjectRoot) == Tmp.str() ||
      llvm::StringRef(Tmp).starts_with(C.Settings.ProjectRoot + "/"))
    return llvm::createStringError(
        "the project root '" + C.Settings.ProjectRoot +
        "' holds the scratch folder '" + Tmp.str() + "'; give " +
        Opts.Names("ProjectRoot") + " or " + Opts.Names("ScratchDir") +
        " outside it");
  auto Stats = measureTree(C.Settings.ProjectRoot, Excluded,
                           *parseByteSize(Opts.Settings.MaxTreeSize));
  if (!Stats)
    return llvm::createStringError(
        "the project root '" + C.Settings.ProjectRoot +
        "' is too large to copy for every variant (" +
        llvm::toString(Stats.takeError()) + "); give a smaller " +
        Opts.Names("ProjectRoot") + " or a larger " +
        Opts.Names("MaxTreeSize"));
  llvm::WithColor::note(Err, "clang-maxcode")
      << "project root: " << C.Settings.ProjectRoot << " (" << Stats->Files
      << " files, " << formatBytes(Stats->Bytes)
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
  C.Names = Opts.Names;
  C.Mode = runModeOf(Opts);
  // The settings as the evaluator reads them: its paths absolute, the
  // defaults that depend on the run filled in.
  C.Settings = Opts.Settings;
  EffectiveOptions &Settings = C.Settings;
  if (!Settings.Tests.empty())
    Settings.Tests = makeAbsolutePath(Settings.Tests);
  Settings.ProjectRoot = Settings.ProjectRoot.empty()
                             ? defaultProjectRoot(S.File, Opts.BuildPath)
                             : makeAbsolutePath(Settings.ProjectRoot);
  if (Settings.ScratchDir.empty() && Settings.Executor == ExecutorKind::Slurm)
    Settings.ScratchDir = makeAbsolutePath(Settings.SharedDir);
  // --allow-isa lets the screen pass what ties the program to an
  // instruction set, from any proposer.
  if (!Settings.AllowIsa.empty())
    Settings.AllowApi.push_back(
        apiCategoryKey(ApiCategory::InstructionSet).str());
  // Beside the store, or where the store would be when this run has none
  // (--evaluate).
  std::string DerivedBeside =
      StorePath.empty() ? defaultStorePath(Opts) : StorePath.str();
  C.DerivedDir = derivedInputsDir(S.File, DerivedBeside);
  // Program mode owns its file (its tests are outside it); in project mode
  // and for CUDA the harness may share the file (DESIGN section 2).
  C.Scope = scopeOf(Settings.Scope, C.programMode(), S.T.Cuda);
  C.Sandbox = Mode;
  C.CuptiLibrary = cuptiLibraryPath(Opts);
  if (!Opts.ToolDir.empty()) {
    llvm::SmallString<256> Timer(Opts.ToolDir);
    llvm::sys::path::append(Timer, "maxcode-timer");
    C.TimerPath = std::string(Timer);
  }
  C.Protected = protectedPaths(Opts, StorePath);
  // The kept derived inputs and the program's answers to them: hidden with
  // the store's own folder where that is ours, else on their own.
  llvm::append_range(C.Protected, protectedPaths(Opts, DerivedBeside));
  C.Protected.push_back(llvm::sys::path::parent_path(C.DerivedDir).str());
  return C;
}

} // namespace

llvm::Error driver::openSession(const RunOptions &Opts, Session &S,
                                llvm::raw_ostream &Err, bool UseStore) {
  if (Opts.Sources.size() != 1)
    return llvm::createStringError("give exactly one source file: the file "
                                   "holding the target");
  // The executor comes first: a cluster that does not answer is an error
  // before anything is parsed, built or written (docs/Slurm.md).
  unsigned Jobs = Opts.Settings.Jobs
                      ? Opts.Settings.Jobs
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

  std::string StorePath = UseStore ? storePathOf(Opts) : Opts.Settings.Store;
  EvalConfig C = makeEvalConfig(Opts, S, *Mode, StorePath);
  if (runModeOf(Opts) == RunMode::Project &&
      !Opts.Settings.BuildCommand.empty())
    if (llvm::Error E = checkProjectTree(Opts, C, Err))
      return E;
  // Before the store is created: a run that cannot measure writes nothing.
  if (C.Settings.Measure == MeasureMode::CudaKernel)
    if (llvm::Error E = checkCudaMeasurable(C.CuptiLibrary, C.Names))
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
