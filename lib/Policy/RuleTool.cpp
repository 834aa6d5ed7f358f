//===-- RuleTool.cpp - The rules, for the tool ----------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Policy/RuleTool.h"
#include "maxcode/Eval/EvalCache.h"
#include "maxcode/Eval/Evaluator.h"
#include "maxcode/Frontend/CompilationDatabase.h"
#include "maxcode/Frontend/Discovery.h"
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

std::vector<std::string>
maxcode::allowedPragmaFeatures(llvm::ArrayRef<std::string> AllowIsa) {
  std::vector<std::string> Out;
  if (AllowIsa.empty())
    return Out;
  bool Native = llvm::is_contained(AllowIsa, "native");
  llvm::StringMap<bool> Features = llvm::sys::getHostCPUFeatures();
  // Only extensions GCC's target pragma names the same way, in a fixed
  // order.
  for (const char *F :
       {"avx", "avx2", "bmi", "bmi2", "fma", "lzcnt", "popcnt"}) {
    auto It = Features.find(F);
    if (It != Features.end() && It->second &&
        (Native || llvm::is_contained(AllowIsa, F)))
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

llvm::Expected<VariantListing>
maxcode::listVariants(const ListVariantsOptions &Opts,
                      llvm::raw_ostream &Diag) {
  if (Opts.Sources.size() != 1)
    return llvm::createStringError("--list-variants takes exactly one source");
  auto Selection = RuleSelection::parse(Opts.Rules);
  if (!Selection)
    return Selection.takeError();
  auto DB = loadCompilationDatabase(Opts.BuildPath, Opts.FlagsAfterDashDash,
                                    Opts.Sources);
  if (!DB)
    return DB.takeError();
  VariantListing L;
  L.File = makeAbsolutePath(Opts.Sources.front());
  ResolvedCommand RC = resolveCompileCommand(*DB, L.File);
  warnIfFallback(RC, Opts.Sources.front(), *DB, Diag);
  auto Parsed = parseTargets(RC.Command, L.File, Opts.Parse, Diag);
  if (!Parsed)
    return Parsed.takeError();
  std::vector<Target> Targets = Parsed->Targets;
  rankTargets(Targets);
  auto Chosen = selectTargets(Targets, Opts.TargetNames, Parsed->Blocked);
  if (!Chosen)
    return Chosen.takeError();
  L.T = Chosen->front();

  // A target only the device pass sees is read and edited through it.
  ParsedFile &Seen = Parsed->parseOf(L.T);
  RuleRequest R;
  R.Parsed = &Seen;
  R.T = &L.T;
  R.Selection = std::move(*Selection);
  R.Options.Scope = scopeOf(Opts.Scope, !Opts.ProjectMode, L.T.Cuda);
  R.Options.CompilerIsGCC = buildsWithGcc(RC.Command, L.File);
  R.Options.HostFeatures = allowedPragmaFeatures(Opts.AllowIsa);
  R.Options.CheckOptions = Opts.CheckOptions;
  R.MaxCount = Opts.MaxCount;
  R.Seed = Opts.Seed;
  // What touches the target first; under --scope=file, what touches only
  // the rest of the file after it, as a section of its own.
  std::vector<Variant> Proposed = proposeWithRules(R);
  dropVariantsTheCompilerRejects(Seen, Proposed, L.Rejected, Diag,
                                 &L.Unchanged);
  for (Variant &V : Proposed) {
    bool OfTarget = llvm::any_of(
        V.Changes, [&](const VariantChange &C) { return C.Where == L.T.Name; });
    if (OfTarget)
      L.OfTarget.push_back(std::move(V));
    else if (R.Options.Scope == EditScope::File)
      L.Elsewhere.push_back(std::move(V));
  }
  const clang::SourceManager &SM = Seen.AST->getSourceManager();
  L.Code = SM.getBufferData(SM.getMainFileID()).str();
  return L;
}

llvm::Expected<Critique>
maxcode::critiqueEvaluation(const CritiqueOptions &Opts) {
  auto Read = [](llvm::StringRef Path) -> llvm::Expected<std::string> {
    auto Buf = llvm::MemoryBuffer::getFile(Path);
    if (!Buf)
      return llvm::createStringError("cannot read '" + Path +
                                     "': " + Buf.getError().message());
    return (*Buf)->getBuffer().str();
  };
  auto JSONText = Read(Opts.EvaluationJSON);
  if (!JSONText)
    return JSONText.takeError();
  Variant V;
  auto VariantText = Read(Opts.VariantFile);
  if (!VariantText)
    return VariantText.takeError();
  V.Text = std::move(*VariantText);
  std::string Base;
  if (!Opts.BaseFile.empty()) {
    auto BaseText = Read(Opts.BaseFile);
    if (!BaseText)
      return BaseText.takeError();
    Base = std::move(*BaseText);
  }
  llvm::Expected<llvm::json::Value> J = llvm::json::parse(*JSONText);
  if (!J)
    return llvm::createStringError(
        "'" + Opts.EvaluationJSON +
        "' is not JSON: " + llvm::toString(J.takeError()));
  EvalResult R;
  llvm::json::Path::Root Root("evaluation");
  if (!fromJSON(*J, R, Root))
    return llvm::createStringError(
        "'" + Opts.EvaluationJSON +
        "' is not an evaluation: " + llvm::toString(Root.getError()));
  llvm::SmallVector<llvm::StringRef, 4> Ids;
  llvm::StringRef(Opts.Rules).split(Ids, ',', -1, false);
  for (llvm::StringRef Id : Ids)
    V.Rules.push_back(Id.trim().str());
  return critiqueByRules(R, V, Base);
}
