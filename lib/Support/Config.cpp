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

/// The closed sets, read and written by their names in the options model.
template <typename E> struct OptionEnumTraits {
  static void output(const E &V, void *, raw_ostream &OS) {
    OS << optionValueName(V);
  }
  static StringRef input(StringRef S, void *, E &V) {
    auto Parsed = parseOptionValue<E>(S);
    if (!Parsed) {
      // The message must outlive this call; the names are few.
      static thread_local std::string Message;
      Message = toString(Parsed.takeError());
      return Message;
    }
    V = *Parsed;
    return StringRef();
  }
  static QuotingType mustQuote(StringRef) { return QuotingType::None; }
};
#define MAXCODE_YAML_ENUM(E)                                                   \
  template <> struct ScalarTraits<E> : OptionEnumTraits<E> {};
MAXCODE_YAML_ENUM(PolicyKind)
MAXCODE_YAML_ENUM(CriticKind)
MAXCODE_YAML_ENUM(RTGKind)
MAXCODE_YAML_ENUM(StrategyKind)
MAXCODE_YAML_ENUM(MeasureMode)
MAXCODE_YAML_ENUM(SandboxMode)
MAXCODE_YAML_ENUM(ExecutorKind)
MAXCODE_YAML_ENUM(ScopeSetting)
#undef MAXCODE_YAML_ENUM

// The keys of `.clang-maxcode` are the rows of Options.def, spelled like
// those of `.clang-tidy`.
template <> struct MappingTraits<MaxcodeOptions> {
  static void mapping(IO &IO, MaxcodeOptions &O) {
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)           \
  IO.mapOptional(#KEY, O.KEY);
#include "maxcode/Support/Options.def"
  }
};
} // namespace yaml
} // namespace llvm

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

llvm::Expected<MaxcodeOptions>
maxcode::parseConfig(llvm::StringRef Text, llvm::StringRef Dir,
                     llvm::StringRef Origin, ConfigTrust Trust,
                     std::vector<std::string> *Warnings) {
  MaxcodeOptions O;
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
    for (const OptionInfo &I : optionTable()) {
      if (!I.trusted() || !O.clear(I.Key))
        continue;
      if (Warnings)
        Warnings->push_back(
            Origin.str() + ": ignored '" + I.Key.str() +
            "': a repository's .clang-maxcode cannot set where code, data or "
            "secrets go; set it in " +
            (userConfigPath().empty() ? std::string("your own configuration")
                                      : userConfigPath()) +
            ", the editor's settings or on the command line");
    }
  }
  // Relative folders are the file's.
  O.resolvePaths(Dir);
  return O;
}

llvm::Expected<MaxcodeOptions>
maxcode::loadConfigFile(llvm::StringRef Path, ConfigTrust Trust,
                        std::vector<std::string> *Warnings) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buffer)
    return llvm::createStringError("cannot read '" + Path.str() +
                                   "': " + Buffer.getError().message());
  return parseConfig((*Buffer)->getBuffer(), llvm::sys::path::parent_path(Path),
                     Path, Trust, Warnings);
}

llvm::Expected<MaxcodeOptions>
maxcode::loadConfiguration(llvm::StringRef Source,
                           std::vector<std::string> &Warnings,
                           std::string *RepositoryFile) {
  MaxcodeOptions O;
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

std::string maxcode::writeConfig(const EffectiveOptions &E) {
  MaxcodeOptions O;
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)           \
  O.KEY = E.KEY;
#include "maxcode/Support/Options.def"
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  llvm::yaml::Output Out(OS);
  Out << O;
  return Text;
}
