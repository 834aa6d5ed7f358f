//===-- RuleTool.cpp - Command-line modes for rules -----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Policy/RuleTool.h"
#include "maxcode/Eval/EvalCache.h"
#include "maxcode/Eval/Evaluator.h"
#include "maxcode/Frontend/CompilationDatabase.h"
#include "maxcode/Policy/RulesCritic.h"
#include "maxcode/Policy/RulesProposer.h"
#include "maxcode/Support/Diff.h"
#include "clang/Frontend/ASTUnit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

using namespace maxcode;

void maxcode::printRuleList(const RuleSelection &Selection,
                            llvm::raw_ostream &OS) {
  size_t Width = 0;
  for (const std::unique_ptr<Rule> &R : getAllRules())
    Width = std::max(Width, R->getId().size());
  for (const std::unique_ptr<Rule> &R : getAllRules()) {
    OS << R->getId();
    OS.indent(Width - R->getId().size() + 2);
    OS << R->getSummary();
    if (!Selection.isEnabled(R->getId()))
      OS << " (off)";
    OS << "\n";
  }
}

std::vector<std::string> maxcode::getHostPragmaFeatures() {
  std::vector<std::string> Out;
  llvm::StringMap<bool> Features = llvm::sys::getHostCPUFeatures();
  // Only extensions GCC's target pragma names the same way, in a fixed
  // order.
  for (const char *F : {"avx", "avx2", "bmi", "bmi2", "fma", "lzcnt",
                        "popcnt"}) {
    auto It = Features.find(F);
    if (It != Features.end() && It->second)
      Out.push_back(F);
  }
  return Out;
}

bool maxcode::buildsWithGcc(const clang::tooling::CompileCommand &Command,
                            llvm::StringRef File) {
  return isGccCommand(variantCompileCommand(Command, File, File, "a.out",
                                            /*Link=*/false,
                                            /*DebugInfo=*/false));
}

namespace {
int userError(llvm::raw_ostream &Err, const llvm::Twine &Message) {
  llvm::WithColor::error(Err, "clang-maxcode") << Message << "\n";
  return 1;
}
} // namespace

int maxcode::listVariantsMain(const ListVariantsOptions &Opts,
                              llvm::raw_ostream &Out, llvm::raw_ostream &Err) {
  if (Opts.Sources.size() != 1)
    return userError(Err, "--list-variants takes exactly one source");
  auto Selection = RuleSelection::parse(Opts.Rules);
  if (!Selection)
    return userError(Err, llvm::toString(Selection.takeError()));
  auto DB = loadCompilationDatabase(Opts.BuildPath, Opts.FlagsAfterDashDash,
                                    Opts.Sources);
  if (!DB)
    return userError(Err, llvm::toString(DB.takeError()));
  std::string File = makeAbsolutePath(Opts.Sources.front());
  ResolvedCommand RC = resolveCompileCommand(*DB, File);
  if (!RC.Fallback.empty())
    llvm::WithColor::warning(Err, "clang-maxcode")
        << "'" << Opts.Sources.front() << "' is not in " << DB->Origin
        << "; using " << RC.Fallback << "\n";
  auto Parsed = parseFile(RC.Command, File, Opts.Parse, Err, std::nullopt,
                          nullptr, ParseErrors::BlockTheirTargets);
  if (!Parsed)
    return userError(Err, llvm::toString(Parsed.takeError()));
  std::vector<BlockedTarget> Blocked;
  std::vector<Target> Targets = discoverTargets(*Parsed, &Blocked);
  rankTargets(Targets);
  auto Chosen = selectTargets(Targets, Opts.TargetNames, Blocked);
  if (!Chosen)
    return userError(Err, llvm::toString(Chosen.takeError()));
  const Target &T = Chosen->front();

  RuleRequest R;
  R.Parsed = &*Parsed;
  R.T = &T;
  R.Selection = std::move(*Selection);
  bool Cuda = Parsed->AST->getLangOpts().CUDA;
  R.Options.Scope = Opts.Scope ? *Opts.Scope
                               : (Cuda ? EditScope::Target : EditScope::File);
  R.Options.CompilerIsGCC = buildsWithGcc(RC.Command, File);
  R.Options.HostFeatures = getHostPragmaFeatures();
  R.Options.CheckOptions = Opts.CheckOptions;
  R.MaxCount = Opts.MaxCount;
  R.Seed = Opts.Seed;
  std::vector<Variant> All = proposeWithRules(R);

  // What touches the target first; under --scope=file, what touches only
  // the rest of the file after it, as a section of its own.
  auto TouchesTarget = [&](const Variant &V) {
    return llvm::any_of(
        V.Changes, [&](const VariantChange &C) { return C.Where == T.Name; });
  };
  std::vector<const Variant *> Mine, Rest;
  for (const Variant &V : All)
    (TouchesTarget(V) ? Mine : Rest).push_back(&V);
  if (R.Options.Scope == EditScope::Target)
    Rest.clear();

  const clang::SourceManager &SM = Parsed->AST->getSourceManager();
  llvm::StringRef Code = SM.getBufferData(SM.getMainFileID());
  unsigned N = 0;
  auto Print = [&](const Variant &V) -> int {
    ++N;
    Out << "variant " << N << " [";
    for (size_t J = 0; J < V.Rules.size(); ++J)
      Out << (J ? "," : "") << V.Rules[J];
    Out << "]: " << V.Description << "\n";
    if (!Opts.WriteDir.empty()) {
      llvm::SmallString<256> Path(Opts.WriteDir);
      llvm::sys::path::append(Path, "variant-" + llvm::Twine(N) +
                                        llvm::sys::path::extension(File));
      std::error_code EC = llvm::sys::fs::create_directories(Opts.WriteDir);
      if (!EC) {
        llvm::raw_fd_ostream OS(Path, EC);
        if (!EC)
          OS << V.Text;
      }
      if (EC)
        return userError(Err, "cannot write '" + Path + "': " + EC.message());
    }
    llvm::StringRef Shown = llvm::StringRef(Opts.Sources.front()).ltrim('/');
    Out << unifiedDiff(Code, V.Text, ("a/" + Shown).str(),
                       ("b/" + Shown).str());
    return 0;
  };
  auto Count = [](size_t K) {
    return std::to_string(K) + (K == 1 ? " variant" : " variants");
  };
  Out << "target " << T.Name << " (" << targetKindName(T.Kind) << ", "
      << llvm::sys::path::filename(File) << ":" << T.Line << "-" << T.EndLine
      << "): " << Count(Mine.size()) << "\n";
  for (const Variant *V : Mine)
    if (int RC = Print(*V))
      return RC;
  if (!Rest.empty()) {
    Out << "elsewhere in the file: " << Count(Rest.size()) << "\n";
    for (const Variant *V : Rest)
      if (int RC = Print(*V))
        return RC;
  }
  return 0;
}

int maxcode::critiqueMain(const CritiqueOptions &Opts, llvm::raw_ostream &Out,
                          llvm::raw_ostream &Err) {
  auto Read = [&](llvm::StringRef Path,
                  std::string &Into) -> std::optional<int> {
    auto Buf = llvm::MemoryBuffer::getFile(Path);
    if (!Buf)
      return userError(Err, "cannot read '" + Path +
                                "': " + Buf.getError().message());
    Into = (*Buf)->getBuffer().str();
    return std::nullopt;
  };
  std::string JSONText, Base;
  Variant V;
  if (auto RC = Read(Opts.EvaluationJSON, JSONText))
    return *RC;
  if (auto RC = Read(Opts.VariantFile, V.Text))
    return *RC;
  if (!Opts.BaseFile.empty())
    if (auto RC = Read(Opts.BaseFile, Base))
      return *RC;
  llvm::Expected<llvm::json::Value> J = llvm::json::parse(JSONText);
  if (!J)
    return userError(Err, "'" + Opts.EvaluationJSON +
                              "' is not JSON: " + llvm::toString(J.takeError()));
  EvalResult R;
  llvm::json::Path::Root Root("evaluation");
  if (!fromJSON(*J, R, Root))
    return userError(Err, "'" + Opts.EvaluationJSON +
                              "' is not an evaluation: " +
                              llvm::toString(Root.getError()));
  llvm::SmallVector<llvm::StringRef, 4> Ids;
  llvm::StringRef(Opts.Rules).split(Ids, ',', -1, false);
  for (llvm::StringRef Id : Ids)
    V.Rules.push_back(Id.trim().str());
  Critique C = critiqueByRules(R, V, Base);
  Out << C.Text << "tags:";
  for (CritiqueTag T : C.Tags)
    Out << " " << critiqueTagName(T);
  Out << "\nblamed:";
  for (const std::string &Id : C.BlamedRules)
    Out << " " << Id;
  Out << "\n";
  return 0;
}
