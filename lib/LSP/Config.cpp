//===-- Config.cpp - Search options from the project ----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/LSP/Config.h"
#include "maxcode/Frontend/CompilationDatabase.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdio>

using namespace maxcode;
using namespace maxcode::lsp;

namespace llvm {
namespace yaml {
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
    IO.mapOptional("Tests", O.Tests);
    IO.mapOptional("BuildCommand", O.BuildCommand);
    IO.mapOptional("TestCommand", O.TestCommand);
    IO.mapOptional("BenchCommand", O.BenchCommand);
    IO.mapOptional("LLMEndpoint", O.LLMEndpoint);
    IO.mapOptional("LLMModel", O.LLMModel);
    IO.mapOptional("LLMApiKeyEnv", O.LLMApiKeyEnv);
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
  Take(Tests, Other.Tests);
  Take(BuildCommand, Other.BuildCommand);
  Take(TestCommand, Other.TestCommand);
  Take(BenchCommand, Other.BenchCommand);
  Take(LLMEndpoint, Other.LLMEndpoint);
  Take(LLMModel, Other.LLMModel);
  Take(LLMApiKeyEnv, Other.LLMApiKeyEnv);
}

std::vector<std::string> SearchOptions::toArguments() const {
  std::vector<std::string> Args;
  auto Add = [&](llvm::StringRef Flag, const std::optional<std::string> &V) {
    if (V)
      Args.push_back(("--" + Flag + "=").str() + *V);
  };
  Add("policy", Policy);
  if (Budget)
    Args.push_back("--budget=" + std::to_string(*Budget));
  Add("measure", Measure);
  Add("scope", Scope);
  Add("strategy", Strategy);
  if (Timeout) {
    char Buf[32];
    std::snprintf(Buf, sizeof(Buf), "%g", *Timeout);
    Args.push_back(std::string("--timeout=") + Buf);
  }
  Add("tests", Tests);
  Add("build-cmd", BuildCommand);
  Add("test-cmd", TestCommand);
  Add("bench-cmd", BenchCommand);
  Add("llm-endpoint", LLMEndpoint);
  Add("llm-model", LLMModel);
  Add("llm-api-key-env", LLMApiKeyEnv);
  return Args;
}

std::optional<std::string> lsp::findConfigFile(llvm::StringRef File) {
  std::string Abs = makeAbsolutePath(File);
  for (llvm::StringRef Dir = llvm::sys::path::parent_path(Abs); !Dir.empty();
       Dir = llvm::sys::path::parent_path(Dir)) {
    llvm::SmallString<256> Candidate(Dir);
    llvm::sys::path::append(Candidate, ConfigFileName);
    if (llvm::sys::fs::is_regular_file(Candidate))
      return std::string(Candidate);
  }
  return std::nullopt;
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

llvm::Expected<SearchOptions> lsp::parseConfig(llvm::StringRef Text,
                                               llvm::StringRef Dir,
                                               llvm::StringRef Origin) {
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
  if (O.Tests && !O.Tests->empty() && !llvm::sys::path::is_absolute(*O.Tests)) {
    llvm::SmallString<256> Abs(Dir);
    llvm::sys::path::append(Abs, *O.Tests);
    llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
    O.Tests = std::string(Abs);
  }
  return O;
}

llvm::Expected<SearchOptions> lsp::loadConfigFile(llvm::StringRef Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buffer)
    return llvm::createStringError("cannot read '" + Path.str() +
                                   "': " + Buffer.getError().message());
  return parseConfig((*Buffer)->getBuffer(), llvm::sys::path::parent_path(Path),
                     Path);
}
