//===-- Driver.cpp - One run of clang-maxcode -----------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Search/Driver.h"
#include "Session.h"
#include "maxcode/Eval/CuptiRun.h"
#include "maxcode/Eval/EvalCache.h"
#include "maxcode/Frontend/CompilationDatabase.h"
#include "maxcode/Frontend/Discovery.h"
#include "maxcode/Policy/RuleTool.h"
#include "maxcode/Policy/RulesCritic.h"
#include "maxcode/Policy/RulesPolicy.h"
#include "maxcode/Rewrite/Apply.h"
#include "maxcode/Rewrite/Review.h"
#include "maxcode/Rewrite/Simplify.h"
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
#include "llvm/Support/Format.h"
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

RunOptions maxcode::withBenchProfile(const RunOptions &Opts,
                                     llvm::raw_ostream &Diag) {
  RunOptions Cur = Opts;
  // Project mode with a bench and no target named: the bench, run on the
  // project as it is built (never the build itself, which under callgrind
  // would take hours), is the profile that chooses, and ranks the targets
  // to move on to; a bench that cannot be profiled (the tree not built)
  // leaves the static ranking, with a warning.
  if (runModeOf(Opts) == RunMode::Project && Opts.TargetNames.empty() &&
      Opts.Settings.ProfileCommand.empty() &&
      !Opts.Settings.BenchCommand.empty() && !Opts.Resume) {
    // Where the search runs it: the project's root.
    std::string Root =
        Opts.Settings.ProjectRoot.empty()
            ? defaultProjectRoot(makeAbsolutePath(Opts.Sources.front()),
                                 Opts.BuildPath)
            : makeAbsolutePath(Opts.Settings.ProjectRoot);
    Cur.Settings.ProfileCommand =
        "cd " + shellQuote(Root) + " && " + Opts.Settings.BenchCommand;
    Cur.ProfileIsImplicit = true;
    llvm::WithColor::note(Diag, "clang-maxcode")
        << "no target named: profiling the bench on the project as built to "
           "choose one (--target names one and skips this)\n";
  }
  return Cur;
}

llvm::Expected<std::string>
maxcode::searchedTargetName(const RunOptions &Opts, llvm::raw_ostream &Diag) {
  RunOptions Cur = withBenchProfile(Opts, Diag);
  if (!Cur.TargetNames.empty() || Cur.Settings.ProfileCommand.empty())
    return std::string();
  auto L = listTargets(Cur, Diag);
  if (!L)
    return L.takeError();
  return L->Targets.empty() ? std::string() : L->Targets.front().Name;
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
/// The CPU evidence of \p T (Evaluator::cpuEvidence), said in a note on
/// \p Diag with what could not be had; none for a kernel.
std::shared_ptr<const CpuEvidence> gatherEvidence(Evaluator &E, const Target &T,
                                                  llvm::raw_ostream &Diag) {
  if (T.Kind != TargetKind::CpuFunction)
    return nullptr;
  auto Ev = std::make_shared<CpuEvidence>(E.cpuEvidence(T));
  llvm::WithColor::note(Diag, "clang-maxcode") << llvm::formatv(
      "CPU evidence for {0}: {1} lines simulated, {2} "
      "compiler remarks ({3:f1} s)\n",
      T.Name, Ev->Lines.size(), Ev->Remarks.size(), Ev->Seconds);
  for (const std::string &N : Ev->Notes)
    llvm::WithColor::note(Diag, "clang-maxcode")
        << "CPU evidence: " << N << "\n";
  return Ev;
}

/// The evaluator as the engine's backend.
class EvaluatorBackend : public EvaluationBackend {
public:
  /// \p Evidence: gather the CPU evidence (--cpu-evidence), and say on
  /// \p Diag what it found.
  EvaluatorBackend(Evaluator &E, bool Evidence, llvm::raw_ostream &Diag)
      : E(E), Evidence(Evidence), Diag(Diag) {}
  std::shared_ptr<const CpuEvidence> evidence(const Target &T) override {
    return Evidence ? gatherEvidence(E, T, Diag) : nullptr;
  }
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
    return E.config().Settings.Measure != MeasureMode::Instructions;
  }
  SanitizerVerdict sanitize(const Variant &V) override { return E.sanitize(V); }
  std::optional<DeclSimplification>
  simplifyDeclarations(const Variant &V) override {
    const EvalConfig &C = E.config();
    auto S = maxcode::simplifyDeclarations(C.Command, C.File, C.Parse,
                                           E.originalText(), V.Text);
    if (!S) {
      llvm::Error Err = S.takeError();
      MAXCODE_DEBUG(llvm::dbgs()
                    << DEBUG_TYPE << ": no declaration-level "
                    << "simplification of '" << V.Description
                    << "': " << llvm::toString(std::move(Err)) << "\n");
      llvm::consumeError(std::move(Err));
      return std::nullopt;
    }
    return std::move(*S);
  }

private:
  Evaluator &E;
  bool Evidence;
  llvm::raw_ostream &Diag;
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

/// The identity the store keys this run by: the settings' Identity rows,
/// with the sandbox as it was resolved here (`auto` is bubblewrap on one
/// machine and none on another, which measure differently).
std::string configJSON(const RunOptions &Opts, SandboxMode Sandbox) {
  llvm::json::Object Identity = Opts.Identity;
  Identity["Sandbox"] = optionValueName(Sandbox);
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << llvm::json::Value(std::move(Identity));
  return OS.str();
}
} // namespace

namespace {
/// \p Path as the file system names it: absolute, links resolved where it
/// exists.
std::string realPathOf(llvm::StringRef Path) {
  llvm::SmallString<256> Real;
  std::string Abs = makeAbsolutePath(Path);
  if (llvm::sys::fs::real_path(Abs, Real))
    return Abs;
  return std::string(Real);
}

/// Whether \p Folder is part of the source tree rather than a build folder
/// of its own: it holds a file being optimised (a Make project whose
/// database sits beside its sources, an in-source CMake build).
bool isSourceFolder(llvm::StringRef Folder, const RunOptions &Opts) {
  std::string Real = realPathOf(Folder);
  return llvm::any_of(Opts.Sources, [&](const std::string &Source) {
    return llvm::StringRef(realPathOf(Source)).starts_with(Real + "/");
  });
}
} // namespace

std::string maxcode::defaultStorePath(const RunOptions &Opts) {
  llvm::SmallString<256> P;
  if (!Opts.BuildPath.empty() && !isSourceFolder(Opts.BuildPath, Opts)) {
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
  llvm::sys::path::append(P, "clang-maxcode");
  // A project whose database sits in its source tree keeps a store of its
  // own, named after its folder, as the build folder's would be.
  if (!Opts.BuildPath.empty()) {
    std::string Folder = realPathOf(Opts.BuildPath);
    std::string Hash =
        llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(Folder)),
                    /*LowerCase=*/true)
            .substr(0, 12);
    llvm::sys::path::append(P, "projects",
                            llvm::sys::path::filename(Folder) + "-" + Hash);
  }
  llvm::sys::path::append(P, "rollouts.sqlite");
  return std::string(P);
}

std::string maxcode::storePathOf(const RunOptions &Opts) {
  return Opts.Settings.Store.empty() ? defaultStorePath(Opts)
                                     : Opts.Settings.Store;
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
  return EvaluationOutcome{
      S.T, S.Eval->verify(V, S.T, Opts.Settings.Repetitions), S.Sandbox};
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

/// What every prompt of the run says about how the file is built, what is
/// measured and what the workload is (docs/LLM.md).
PromptFacts promptFactsOf(const RunOptions &Opts, const Session &S) {
  PromptFacts F;
  const EvalConfig &C = S.Eval->config();
  F.Build = describeBuild(variantCompileCommand(
      C.Command, C.File, C.File,
      C.programMode() ? "prog" : llvm::StringRef(C.Command.Output),
      C.programMode(), /*DebugInfo=*/false));
  F.Measure = describeMeasure(C.Settings.Measure, !C.programMode());
  F.Workload =
      describeWorkload(S.Eval->workload(), S.Eval->originalText(), S.T);
  F.Gamma = Opts.Settings.Gamma;
  F.ContextTokens = Opts.Settings.LLMContextTokens;
  return F;
}

llvm::Error createRoles(const RunOptions &Opts, const Session &S,
                        RolloutStore &Store, SearchRoles &R,
                        llvm::raw_ostream &Diag) {
  auto Selection = RuleSelection::parse(Opts.Settings.Rules);
  if (!Selection)
    return Selection.takeError();
  RuleOptions RO;
  // The compiler that builds the variants, not the command's first word:
  // the flags after `--` name none, and g++ builds them.
  RO.CompilerIsGCC = buildsWithGcc(S.RC.Command, S.File);
  RO.Scope = S.Eval->config().Scope;
  RO.HostFeatures = allowedPragmaFeatures(Opts.Settings.AllowIsa);
  RO.CheckOptions = Opts.RuleCheckOptions;
  R.Rules = std::make_unique<RulesProposer>(S.RC.Command, S.File, Opts.Parse,
                                            std::move(*Selection), RO,
                                            Opts.Settings.Seed);
  if (usesLLM(Opts)) {
    LLMProposerContext Ctx{S.RC.Command,      S.File,
                           S.T.Name,          S.Eval->config().Scope,
                           &R.TheRulesCritic, promptFactsOf(Opts, S)};
    auto Roles = createLLMRoles(Opts, Ctx, &Store, Diag);
    if (!Roles)
      return Roles.takeError();
    R.LLM = std::move(*Roles);
  }
  R.Prop = R.LLM.Proposer ? static_cast<Proposer *>(R.LLM.Proposer.get())
                          : R.Rules.get();

  switch (Opts.Settings.RTG) {
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
  switch (Opts.Settings.Critic) {
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

/// \p Value as a setting's value reads: strings bare, lists by commas.
std::string settingText(const llvm::json::Value *Value) {
  if (!Value)
    return "unset";
  if (std::optional<llvm::StringRef> S = Value->getAsString())
    return S->str();
  if (const llvm::json::Array *A = Value->getAsArray())
    return llvm::join(
        llvm::map_range(
            *A, [](const llvm::json::Value &E) { return settingText(&E); }),
        ",");
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  // Numbers as the help writes defaults (1e-06, 0.333333), not JSON's
  // seventeen digits.
  if (std::optional<int64_t> I = Value->getAsInteger())
    OS << *I;
  else if (std::optional<double> D = Value->getAsNumber())
    OS << llvm::format("%g", *D);
  else
    OS << *Value;
  return Text;
}

/// The settings in which the store's run identity \p Before differs from
/// \p Now, named by \p Names as the user sets them: "--warmups=1 (now 2)";
/// empty when \p Before is not an object of settings' keys (a store written
/// before the identity came from the options' rows).
std::string settingsChanged(llvm::StringRef Before, llvm::StringRef Now,
                            OptionNames Names) {
  auto B = llvm::json::parse(Before), N = llvm::json::parse(Now);
  if (!B || !N || !B->getAsObject() || !N->getAsObject()) {
    llvm::consumeError(B.takeError()); // Not ours to judge: no list then.
    llvm::consumeError(N.takeError());
    return "";
  }
  for (const auto &KV : *B->getAsObject())
    if (!findOption(KV.first))
      return ""; // Another spelling of the settings: nothing to compare.
  std::vector<std::string> Changed;
  for (const OptionInfo &Row : optionTable()) {
    const llvm::json::Value *Was = B->getAsObject()->get(Row.Key);
    const llvm::json::Value *Is = N->getAsObject()->get(Row.Key);
    if (!Was && !Is)
      continue;
    if (Was && Is && *Was == *Is)
      continue;
    Changed.push_back(Names(Row.Key) + "=" + settingText(Was) + " (now " +
                      settingText(Is) + ")");
  }
  return llvm::join(Changed, ", ");
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
  if (Opts.Resume && !Resumed) {
    std::optional<std::string> Other = Store.otherUnfinishedConfig(Info);
    std::string Changed =
        Other ? settingsChanged(*Other, Info.ConfigJSON, Opts.Names) : "";
    llvm::WithColor::note(Diag, "clang-maxcode")
        << (Changed.empty()
                ? "no unfinished run of this search in the store; starting "
                  "anew\n"
                : "the store's unfinished run of this search was made with " +
                      Changed + "; starting anew\n");
  }
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
  Sum.Policy = optionValueName(Opts.Settings.Policy).str();
  Sum.Strategy = optionValueName(Config.Settings.Strategy).str();
  // The unit a person reads: a bench's own figure is not time.
  Sum.Measure =
      runModeOf(Opts) == RunMode::Project && !Opts.Settings.BenchMetric.empty()
          ? "bench-metric"
          : optionValueName(Opts.Settings.Measure).str();
  Sum.Sandbox = optionValueName(S.Sandbox).str();
  Sum.Integrity = integrityOf(S.Sandbox).str();
  Sum.StopReason = R.StopReason;
  Sum.Evidence = R.Evidence;
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
  Sum.MinSpeedup = Opts.Settings.MinSpeedup;
  Sum.BelowMinSpeedup = Sum.Improved && Sum.Speedup < Opts.Settings.MinSpeedup;
  Sum.Noise = R.Verification ? R.Verification->Noise : 0.0;
  if (Sum.Improved) {
    const Node &W = R.Nodes[R.Winner];
    Sum.Winner = W.V;
    // The text verified, as the minimiser left it: what is applied.
    if (!R.WinnerText.empty())
      Sum.Winner->Text = R.WinnerText;
    Sum.Minimised = R.Minimised;
    Sum.Tidied = R.Tidied;
    Sum.Sanitizer = R.Sanitizer;
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
    // What a reviewer asks about that the tests cannot show.
    auto Notes = reviewWinner(S.RC.Command, S.File, Opts.Parse,
                              S.Eval->originalText(), R.WinnerText);
    if (Notes)
      Sum.Review = std::move(*Notes);
    else
      llvm::WithColor::warning(Diag, "clang-maxcode")
          << "the winner could not be reviewed for static state, leaks and "
             "extensions ("
          << llvm::toString(Notes.takeError()) << ")\n";
    Sum.StaticStateRefused = !Opts.Settings.AllowStaticState &&
                             llvm::any_of(Sum.Review, [](const auto &N) {
                               return N.Kind == ReviewKind::MutableState;
                             });
    Sum.Size = winnerSize(S.RC.Command, S.File, Opts.Parse,
                          S.Eval->originalText(), R.WinnerText);
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
                          Ledger ? Ledger->usage() : TokenUsage(),
                          Sum.Review,
                          Sum.Size,
                          Sum.StaticStateRefused};
  // An interrupt while the winner was reviewed writes and applies nothing.
  if (interrupted()) {
    O.Summary = std::move(Sum);
    O.InterruptSignal = interruptSignal();
    return O;
  }
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

RunMode maxcode::runModeOf(const RunOptions &Opts) {
  if (!Opts.Settings.Tests.empty())
    return RunMode::Program;
  if (!Opts.Settings.BuildCommand.empty() || !Opts.Settings.ProjectRoot.empty())
    return RunMode::Project;
  return RunMode::ReadOnly;
}

namespace {
/// One target's search, outputs written; \p Next gets the targets after it
/// by self cost, when the profile measured them.
llvm::Expected<SearchOutcome> searchTarget(const RunOptions &Opts,
                                           StatusLine &Diag,
                                           std::vector<std::string> &Next) {
  Session S;
  if (llvm::Error E = openSession(Opts, S, Diag, /*UseStore=*/true))
    return E;
  std::vector<const Target *> Ranked;
  for (const Target &T : S.Targets)
    if (T.Share && *T.Share > 0 && T.Name != S.T.Name)
      Ranked.push_back(&T);
  llvm::stable_sort(Ranked, [](const Target *A, const Target *B) {
    return *A->Share > *B->Share;
  });
  for (const Target *T : Ranked)
    if (!llvm::is_contained(Next, T->Name))
      Next.push_back(T->Name);
  auto Store = RolloutStore::open(S.StoreFile);
  if (!Store)
    return Store.takeError();
  SearchRoles Roles;
  if (llvm::Error E = createRoles(Opts, S, **Store, Roles, Diag))
    return E;

  SearchConfig Config;
  Config.Settings = Opts.Settings;
  Config.VerifyRepetitions = std::max(2 * Opts.Settings.Repetitions, 4u);
  if (Roles.LLM.Proposer)
    Config.ExpandFailures = true; // A model can repair a failed variant.
  RunInfo Info{S.File, S.T.Name, S.Eval->originalText().str(),
               configJSON(Opts, S.Sandbox)};
  auto Run = beginRun(Opts, S, **Store, Info, Diag);
  if (!Run)
    return Run.takeError();

  EvaluatorBackend Backend(*S.Eval, Opts.Settings.CpuEvidence, Diag);
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
  SearchOutcome O = finishSearch(Opts, S, Roles, R, std::move(Sum), Diag);
  // Interrupted while the winner was reviewed, nothing written: the run
  // stays unfinished, so that --resume (which replays every evaluation
  // from the store) reviews and writes it.
  if (O.InterruptSignal)
    return O;
  if (llvm::Error E = (*Store)->finishRun(R))
    llvm::WithColor::warning(Diag, "clang-maxcode")
        << llvm::toString(std::move(E)) << "\n";
  if (Roles.LLM.Ledger)
    if (llvm::Error E = Roles.LLM.Ledger->takeStoreError())
      llvm::WithColor::warning(Diag, "clang-maxcode")
          << "the store missed LLM calls: " << llvm::toString(std::move(E))
          << "\n";
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
  RunOptions Cur = withBenchProfile(Opts, Diag);
  // With a profile and no target named, a target that yields nothing worth
  // a reviewer's time gives way to the next by self cost, within the
  // budget: evaluations and wall time (docs/Search.md, "Across hot
  // functions").
  bool MovesOn = Cur.TargetNames.empty() &&
                 !Cur.Settings.ProfileCommand.empty() && !Opts.Resume;
  std::vector<std::string> Next;
  std::vector<TriedTarget> Tried;
  unsigned Spent = 0;
  double Seconds = 0;
  for (;;) {
    auto O = searchTarget(Cur, Diag, Next);
    if (!O)
      return O.takeError();
    const SearchSummary &Sum = O->Summary;
    Tried.push_back({Sum.Target, Sum.Evaluations,
                     Sum.Improved ? Sum.Speedup : 1.0,
                     Sum.Improved && !Sum.BelowMinSpeedup});
    Spent += Sum.Evaluations;
    Seconds += Sum.Seconds;
    llvm::erase(Next, Sum.Target);
    bool OutOfTime =
        Opts.Settings.MaxTime > 0 && Seconds >= Opts.Settings.MaxTime;
    bool Done = Tried.back().Kept || O->InterruptSignal || O->OutputError ||
                !MovesOn || Next.empty() || Spent >= Opts.Settings.Budget ||
                OutOfTime;
    if (Done) {
      if (Tried.size() > 1)
        O->Summary.TargetsTried = std::move(Tried);
      return O;
    }
    llvm::WithColor::note(Diag, "clang-maxcode") << llvm::formatv(
        "nothing at or above {0} {1:f2}x in {2}; searching "
        "{3}, the next by self cost ({4} evaluations left)\n",
        Opts.Names("MinSpeedup"), Opts.Settings.MinSpeedup, Sum.Target,
        Next.front(), Opts.Settings.Budget - Spent);
    // The profile ranked them once; the next session reads its target by
    // name, without profiling again.
    Cur.TargetNames = Next.front();
    Cur.Settings.ProfileCommand.clear();
    Cur.Settings.Budget = Opts.Settings.Budget - Spent;
    if (Opts.Settings.MaxTime > 0)
      Cur.Settings.MaxTime = Opts.Settings.MaxTime - Seconds;
  }
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

llvm::Expected<std::vector<PromptMessage>>
maxcode::firstProposerPrompt(const RunOptions &Opts, llvm::raw_ostream &Diag) {
  Session S;
  if (llvm::Error E = openSession(Opts, S, Diag, /*UseStore=*/false))
    return E;
  auto Prompts = openPromptLibrary(Opts);
  if (!Prompts)
    return Prompts.takeError();
  // The root's observation, as the engine makes it (SearchEngine::observe).
  Observation Obs;
  Obs.OriginalTarget = S.T;
  Obs.OriginalText = S.Eval->originalText().str();
  Obs.CurrentText = Obs.OriginalText;
  Obs.IncumbentText = Obs.OriginalText;
  if (Opts.Settings.CpuEvidence)
    Obs.Evidence = gatherEvidence(*S.Eval, S.T, Diag);
  PromptFacts Facts = promptFactsOf(Opts, S);
  const EvalConfig &C = S.Eval->config();
  auto Messages = renderProposerPrompt(
      **Prompts, {C.Command, C.File, C.Parse, Facts, {}}, Obs);
  if (!Messages)
    return Messages.takeError();
  std::vector<PromptMessage> Out;
  for (const ChatMessage &M : *Messages)
    Out.push_back({M.Role, M.Content});
  return Out;
}

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
