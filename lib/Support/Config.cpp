//===-- Config.cpp - .clang-maxcode and the user's configuration ---------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/Config.h"
#include "maxcode/Support/FindUpward.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdio>

using namespace maxcode;

LLVM_YAML_IS_SEQUENCE_VECTOR(maxcode::RuleOptionEntry)

namespace llvm {
namespace yaml {
template <> struct MappingTraits<RuleOptionEntry> {
  static void mapping(IO &IO, RuleOptionEntry &O) {
    IO.mapRequired("key", O.Key);
    IO.mapRequired("value", O.Value);
  }
};

// The keys of `.clang-maxcode`, spelled like those of `.clang-tidy`. Adding
// one means adding it to docs/Editors.md too.
template <> struct MappingTraits<SearchOptions> {
  static void mapping(IO &IO, SearchOptions &O) {
    IO.mapOptional("Policy", O.Policy);
    IO.mapOptional("Budget", O.Budget);
    IO.mapOptional("Measure", O.Measure);
    IO.mapOptional("Scope", O.Scope);
    IO.mapOptional("Strategy", O.Strategy);
    IO.mapOptional("Timeout", O.Timeout);
    IO.mapOptional("HeldOut", O.HeldOut);
    IO.mapOptional("Tests", O.Tests);
    IO.mapOptional("BuildCommand", O.BuildCommand);
    IO.mapOptional("TestCommand", O.TestCommand);
    IO.mapOptional("BenchCommand", O.BenchCommand);
    IO.mapOptional("LLMEndpoint", O.LLMEndpoint);
    IO.mapOptional("LLMModel", O.LLMModel);
    IO.mapOptional("LLMApiKeyEnv", O.LLMApiKeyEnv);
    IO.mapOptional("Sandbox", O.Sandbox);
    IO.mapOptional("LLMRecord", O.LLMRecord);
    IO.mapOptional("LLMReplay", O.LLMReplay);
    IO.mapOptional("Rules", O.Rules);
    IO.mapOptional("CheckOptions", O.CheckOptions);
  }
};
} // namespace yaml
} // namespace llvm

void SearchOptions::overrideWith(const SearchOptions &Other) {
  auto Take = [](auto &Mine, const auto &Theirs) {
    if (Theirs)
      Mine = Theirs;
  };
  Take(Policy, Other.Policy);
  Take(Budget, Other.Budget);
  Take(Measure, Other.Measure);
  Take(Scope, Other.Scope);
  Take(Strategy, Other.Strategy);
  Take(Timeout, Other.Timeout);
  Take(HeldOut, Other.HeldOut);
  Take(Tests, Other.Tests);
  Take(BuildCommand, Other.BuildCommand);
  Take(TestCommand, Other.TestCommand);
  Take(BenchCommand, Other.BenchCommand);
  Take(LLMEndpoint, Other.LLMEndpoint);
  Take(LLMModel, Other.LLMModel);
  Take(LLMApiKeyEnv, Other.LLMApiKeyEnv);
  Take(Sandbox, Other.Sandbox);
  Take(LLMRecord, Other.LLMRecord);
  Take(LLMReplay, Other.LLMReplay);
  Take(Rules, Other.Rules);
  Take(CheckOptions, Other.CheckOptions);
}

std::vector<std::pair<std::string, std::string>>
SearchOptions::toFlags() const {
  std::vector<std::pair<std::string, std::string>> Out;
  auto Add = [&](llvm::StringRef Flag, const std::optional<std::string> &V) {
    if (V)
      Out.push_back({Flag.str(), *V});
  };
  auto Number = [&](llvm::StringRef Flag, std::optional<double> V) {
    if (!V)
      return;
    char Buf[32];
    std::snprintf(Buf, sizeof(Buf), "%g", *V);
    Out.push_back({Flag.str(), Buf});
  };
  Add("policy", Policy);
  if (Budget)
    Out.push_back({"budget", std::to_string(*Budget)});
  Add("measure", Measure);
  Add("scope", Scope);
  Add("strategy", Strategy);
  Number("timeout", Timeout);
  Number("held-out", HeldOut);
  Add("tests", Tests);
  Add("build-cmd", BuildCommand);
  Add("test-cmd", TestCommand);
  Add("bench-cmd", BenchCommand);
  Add("llm-endpoint", LLMEndpoint);
  Add("llm-model", LLMModel);
  Add("llm-api-key-env", LLMApiKeyEnv);
  Add("sandbox", Sandbox);
  Add("llm-record", LLMRecord);
  Add("llm-replay", LLMReplay);
  Add("rules", Rules);
  if (CheckOptions)
    for (const RuleOptionEntry &E : *CheckOptions)
      Out.push_back({"rule-option", E.Key + "=" + E.Value});
  return Out;
}

std::vector<std::string> SearchOptions::toArguments() const {
  std::vector<std::string> Args;
  for (const auto &[Flag, Value] : toFlags())
    Args.push_back("--" + Flag + "=" + Value);
  return Args;
}

std::optional<std::string> maxcode::findConfigFile(llvm::StringRef File) {
  llvm::SmallString<256> Abs(File);
  llvm::sys::fs::make_absolute(Abs);
  return findUpward(llvm::sys::path::parent_path(Abs), {ConfigFileName});
}

namespace {
/// Keeps the first error yaml::Input reports; warnings (unknown keys) are
/// not errors here.
struct YAMLErrors {
  std::string First;
  static void handle(const llvm::SMDiagnostic &D, void *Context) {
    auto *Self = static_cast<YAMLErrors *>(Context);
    if (D.getKind() != llvm::SourceMgr::DK_Error || !Self->First.empty())
      return;
    llvm::raw_string_ostream OS(Self->First);
    OS << D.getFilename() << ":" << D.getLineNo() << ":"
       << (D.getColumnNo() + 1) << ": " << D.getMessage();
  }
};
} // namespace

std::string maxcode::userConfigPath() {
  llvm::SmallString<256> P;
  if (auto X = llvm::sys::Process::GetEnv("XDG_CONFIG_HOME"); X && !X->empty())
    P = *X;
  else if (auto H = llvm::sys::Process::GetEnv("HOME"); H && !H->empty())
    llvm::sys::path::append(P, *H, ".config");
  else
    return "";
  llvm::sys::path::append(P, "clang-maxcode", "config.yaml");
  return std::string(P);
}

llvm::Expected<SearchOptions>
maxcode::parseConfig(llvm::StringRef Text, llvm::StringRef Dir,
                     llvm::StringRef Origin, ConfigTrust Trust,
                     std::vector<std::string> *Warnings) {
  SearchOptions O;
  if (Text.trim().empty())
    return O;
  YAMLErrors Errors;
  llvm::yaml::Input In(llvm::MemoryBufferRef(Text, Origin), nullptr,
                       &YAMLErrors::handle, &Errors);
  // The file is shared with the command line and other tools.
  In.setAllowUnknownKeys(true);
  In >> O;
  if (In.error())
    return llvm::createStringError(Errors.First.empty()
                                       ? "cannot read '" + Origin.str() + "'"
                                       : Errors.First);
  // A repository's file never says where code, data or secrets go: a
  // hostile tree would send the key's variable to its own host.
  if (Trust == ConfigTrust::Repository) {
    std::pair<const char *, std::optional<std::string> *> Trusted[] = {
        {"LLMEndpoint", &O.LLMEndpoint},
        {"LLMApiKeyEnv", &O.LLMApiKeyEnv},
        {"Sandbox", &O.Sandbox},
        {"LLMRecord", &O.LLMRecord},
        {"LLMReplay", &O.LLMReplay}};
    for (auto &[Key, Value] : Trusted) {
      if (!*Value)
        continue;
      Value->reset();
      if (Warnings)
        Warnings->push_back(
            Origin.str() + ": ignored '" + Key +
            "': a repository's .clang-maxcode cannot set where code, data or "
            "secrets go; set it in " +
            (userConfigPath().empty() ? std::string("your own configuration")
                                      : userConfigPath()) +
            ", the editor's settings or on the command line");
    }
  }
  // Relative folders are the file's.
  for (std::optional<std::string> *P : {&O.Tests, &O.LLMRecord, &O.LLMReplay}) {
    if (!*P || (*P)->empty() || llvm::sys::path::is_absolute(**P))
      continue;
    llvm::SmallString<256> Abs(Dir);
    llvm::sys::path::append(Abs, **P);
    llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
    *P = std::string(Abs);
  }
  return O;
}

llvm::Expected<SearchOptions>
maxcode::loadConfigFile(llvm::StringRef Path, ConfigTrust Trust,
                        std::vector<std::string> *Warnings) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buffer)
    return llvm::createStringError("cannot read '" + Path.str() +
                                   "': " + Buffer.getError().message());
  return parseConfig((*Buffer)->getBuffer(), llvm::sys::path::parent_path(Path),
                     Path, Trust, Warnings);
}

llvm::Expected<SearchOptions>
maxcode::loadConfiguration(llvm::StringRef Source,
                           std::vector<std::string> &Warnings,
                           std::string *RepositoryFile) {
  SearchOptions O;
  std::string User = userConfigPath();
  if (!User.empty() && llvm::sys::fs::is_regular_file(User)) {
    auto U = loadConfigFile(User, ConfigTrust::User, &Warnings);
    if (!U)
      return U.takeError();
    O = std::move(*U);
  }
  if (std::optional<std::string> Repo = findConfigFile(Source)) {
    auto R = loadConfigFile(*Repo, ConfigTrust::Repository, &Warnings);
    if (!R)
      return R.takeError();
    O.overrideWith(*R);
    if (RepositoryFile)
      *RepositoryFile = *Repo;
  }
  return O;
}
