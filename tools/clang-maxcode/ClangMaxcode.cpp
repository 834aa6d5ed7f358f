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

#include "maxcode/Frontend/CompilationDatabase.h"
#include "maxcode/Policy/RuleTool.h"
#include "maxcode/Report/EvalOutput.h"
#include "maxcode/Report/RuleOutput.h"
#include "maxcode/Report/SearchSummary.h"
#include "maxcode/Report/TargetList.h"
#include "maxcode/Search/Driver.h"
#include "maxcode/Support/Config.h"
#include "maxcode/Support/Debug.h"
#include "maxcode/Support/Error.h"
#include "maxcode/Support/OptionFlags.h"
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

// The settings of a search: one flag per row of the options model
// (include/maxcode/Support/Options.def), whose keys `.clang-maxcode` and the
// editor share. --executor is clang::tooling::ExecutorName, which
// libclang-cpp already registers (for its ToolExecutor plugins, which this
// tool does not use); the model takes it over rather than registering the
// name twice. What follows them are the actions and outputs of one run.
static OptionFlags Settings(MaxcodeCategory, {&clang::tooling::ExecutorName});
static cl::opt<std::string> ConfigText(
    "config",
    cl::desc("Settings as .clang-maxcode keys (YAML or JSON), trusted as the "
             "user's own; given, no configuration file is read (the editor "
             "passes its merged settings so)"),
    cl::value_desc("yaml"), cl::cat(MaxcodeCategory));
static cl::opt<bool> DumpConfig(
    "dump-config",
    cl::desc("Print every setting with the value a run of the source would "
             "take (files, --config and flags merged), as .clang-maxcode "
             "YAML, and exit"),
    cl::cat(MaxcodeCategory));

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
static cl::opt<std::string> TargetNames(
    "target",
    cl::desc("Qualified names of the targets, comma-separated (default: the "
             "hottest)"),
    cl::value_desc("name[,...]"), cl::cat(MaxcodeCategory));

static cl::opt<std::string> Evaluate(
    "evaluate",
    cl::desc("Evaluate one variant: a full edited copy of the source file"),
    cl::value_desc("file"), cl::cat(MaxcodeCategory));

static cl::opt<bool> ListRules("list-rules",
                               cl::desc("List the rewrite rules and exit"),
                               cl::cat(MaxcodeCategory));
static cl::opt<bool> ListVariants(
    "list-variants",
    cl::desc("Print the variants the rules propose for the target, as "
             "unified diffs, and exit"),
    cl::cat(MaxcodeCategory));
static cl::opt<bool> PrintPrompt(
    "print-prompt",
    cl::desc("Print the prompt the LLM proposer would send first for the "
             "target (after building and running the baseline), and exit; "
             "nothing is sent"),
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

static cl::opt<OptionNames::Style> Naming(
    "option-names", cl::desc("How messages name settings"),
    cl::values(clEnumValN(OptionNames::Flags, "flags", "--held-out"),
               clEnumValN(OptionNames::Settings, "settings",
                          "heldOut, as an editor's initializationOptions do")),
    cl::init(OptionNames::Flags), cl::Hidden, cl::cat(MaxcodeCategory));

static int userError(const Twine &Message) {
  return reportError(createStringError(Message), "clang-maxcode", errs());
}

/// The exit code of a mode that failed: 1 for the user's error, 2 for the
/// tool's (DESIGN section 11), having said it.
static int fail(Error E) {
  return reportError(spellOptionErrors(std::move(E), Naming.getValue()),
                     "clang-maxcode", errs());
}

/// The settings of this run: the configuration files (or --config), then
/// the command line over them (Options.h has the whole order).
static Expected<EffectiveOptions> mergeSettings() {
  auto FromFlags = Settings.collect();
  if (!FromFlags)
    return FromFlags.takeError();
  std::vector<std::string> Warnings;
  auto FromFiles = [&]() -> Expected<MaxcodeOptions> {
    if (ConfigText.getNumOccurrences()) {
      SmallString<256> Cwd;
      sys::fs::current_path(Cwd);
      return parseConfig(ConfigText, Cwd, "--config", ConfigTrust::User);
    }
    if (Sources.empty())
      return MaxcodeOptions();
    return loadConfiguration(Sources.front(), Warnings);
  }();
  if (!FromFiles)
    return FromFiles.takeError();
  for (const std::string &W : Warnings)
    WithColor::warning(errs(), "clang-maxcode") << W << "\n";
  FromFiles->overrideWith(*FromFlags);
  return resolveOptions(*FromFiles);
}

/// RunOptions from the settings and the parsed flags, for the modes that
/// take sources.
static Expected<RunOptions> runOptionsFromFlags(
    const char *Argv0, const EffectiveOptions &Effective,
    std::unique_ptr<clang::tooling::CompilationDatabase> Fixed) {
  RunOptions Opts;
  if (Error E = applyOptions(Effective, Opts))
    return E;
  Opts.BuildPath = BuildPath;
  Opts.Sources = Sources;
  Opts.Names = Naming.getValue();
  Opts.FlagsAfterDashDash = std::move(Fixed);
  Opts.JSON = Format == OutputFormat::JSON;
  void *Anchor = reinterpret_cast<void *>(&userError);
  Opts.Parse = getDefaultParseSettings(Argv0, Anchor);
  Opts.ToolDir = std::string(
      sys::path::parent_path(sys::fs::getMainExecutable(Argv0, Anchor)));
  Opts.TargetNames = TargetNames;
  Opts.Resume = Resume;
  Opts.ProgressFile = ProgressFile;
  Opts.Apply = Apply;
  Opts.ExportFixes = ExportFixes;
  Opts.ReportPath = Report;
  return Opts;
}

static int listTargetsMode(const RunOptions &Opts) {
  // Reading modes hold nothing an interrupt must see finished: one ends
  // the process within a second (installInterruptHandlers), non-zero.
  BlockingWork Reading;
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
  BlockingWork Reading; // As listTargetsMode.
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
  BlockingWork Reading; // As listTargetsMode.
  ListVariantsOptions LV;
  LV.Sources = Opts.Sources;
  LV.BuildPath = Opts.BuildPath;
  LV.FlagsAfterDashDash = Opts.FlagsAfterDashDash;
  LV.Parse = Opts.Parse;
  LV.TargetNames = Opts.TargetNames;
  // The target the search would start with: with a profile to run (a bench
  // in project mode, --profile-cmd), the profile's first, not the static
  // estimate's.
  auto Searched = searchedTargetName(Opts, errs());
  if (!Searched)
    return fail(Searched.takeError());
  if (!Searched->empty())
    LV.TargetNames = *Searched;
  LV.Rules = Opts.Settings.Rules;
  LV.CheckOptions = Opts.RuleCheckOptions;
  LV.Scope = Opts.Settings.Scope;
  LV.ProjectMode = runModeOf(Opts) == RunMode::Project;
  LV.AllowIsa = Opts.Settings.AllowIsa;
  auto L = listVariants(LV, errs());
  // Its compile checks stop their nvcc at once; what they left unchecked is
  // not listed.
  if (interrupted())
    return 128 + interruptSignal();
  if (!L)
    return fail(L.takeError());
  if (!WriteVariants.empty())
    if (Error E = writeVariantFiles(*L, WriteVariants))
      return fail(std::move(E));
  if (Opts.JSON)
    printVariantListingJSON(*L, Opts.Sources.front(), outs());
  else
    printVariantListing(*L, Opts.Sources.front(), outs());
  return 0;
}

static int printPromptMode(const RunOptions &Opts) {
  BlockingWork Reading; // As listTargetsMode.
  auto P = firstProposerPrompt(Opts, errs());
  if (!P)
    return fail(P.takeError());
  if (Opts.JSON)
    printPromptJSON(*P, outs());
  else
    printPromptText(*P, outs());
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
  // Its builds and runs were stopped, so what it measured is no verdict.
  if (interrupted()) {
    if (!O)
      consumeError(O.takeError());
    WithColor::note(errs(), "clang-maxcode")
        << "interrupted: the evaluation of '" << Evaluate
        << "' was stopped; nothing is reported\n";
    return 128 + interruptSignal();
  }
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
    printSearchSummaryText(O->Summary, Opts.Names, outs());
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
      loadFlagsAfterDashDash(argc, argv, FixedError);
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
  auto Effective = mergeSettings();
  if (!Effective)
    return fail(Effective.takeError());
  if (DumpConfig) {
    outs() << writeConfig(*Effective);
    return 0;
  }
  // The key lives in this process only (DESIGN section 7).
  (void)takeApiKey(Effective->LLMApiKeyEnv);
  if (ListRules) {
    auto Selection = RuleSelection::parse(Effective->Rules);
    if (!Selection)
      return fail(Selection.takeError());
    printRuleList(*Selection, outs());
    return 0;
  }
  if (!CritiqueJSON.empty())
    return critiqueMode();
  auto Opts = runOptionsFromFlags(argv[0], *Effective, std::move(Fixed));
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
  if (PrintPrompt)
    return printPromptMode(*Opts);
  return searchMode(*Opts);
}
