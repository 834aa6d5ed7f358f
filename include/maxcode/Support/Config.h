//===-- maxcode/Support/Config.h - .clang-maxcode and the user's config -*- C++
//-*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Options of a search from configuration files (DESIGN section 10), read
/// alike by the command line and the language server:
///
///  - the repository's `.clang-maxcode`, found upward from the source as
///    clang-tidy finds `.clang-tidy`. It is untrusted: it may set how a
///    search goes (tests, commands, policy, budget, measure, strategy), never
///    where code, data or secrets go (the LLM endpoint, the name of the key's
///    variable, the sandbox, record/replay folders); such keys are ignored
///    with a warning naming the file and the key;
///  - the user's own `$XDG_CONFIG_HOME/clang-maxcode/config.yaml` (default
///    `~/.config/clang-maxcode/config.yaml`), trusted: every key.
///
/// Command-line options and the editor's settings override both, key by
/// key. The keys are documented in docs/Editors.md.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_SUPPORT_CONFIG_H
#define MAXCODE_SUPPORT_CONFIG_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace maxcode {

/// One rule option, as clang-tidy's CheckOptions spell it.
struct RuleOptionEntry {
  std::string Key; ///< "rule-id.Key".
  std::string Value;
};

/// Each option left unset is left to clang-maxcode's own default.
struct SearchOptions {
  std::optional<std::string> Policy;       ///< --policy=rules|llm
  std::optional<unsigned> Budget;          ///< --budget (evaluations)
  std::optional<std::string> Measure;      ///< --measure
  std::optional<std::string> Scope;        ///< --scope
  std::optional<std::string> Strategy;     ///< --strategy
  std::optional<double> Timeout;           ///< --timeout (seconds per run)
  std::optional<double> HeldOut;           ///< --held-out (a fraction)
  std::optional<std::string> Tests;        ///< --tests (a folder)
  std::optional<std::string> BuildCommand; ///< --build-cmd
  std::optional<std::string> TestCommand;  ///< --test-cmd
  std::optional<std::string> BenchCommand; ///< --bench-cmd
  std::optional<std::string> LLMModel;     ///< --llm-model
  std::optional<std::string> Rules;        ///< --rules (globs)
  /// --rule-option key=value, one per entry (docs/rules/<id>.md).
  std::optional<std::vector<RuleOptionEntry>> CheckOptions;
  // Trusted keys: only from the user's file, the editor or the command line.
  std::optional<std::string> LLMEndpoint; ///< --llm-endpoint
  /// --llm-api-key-env: the name of the variable holding the key, never the
  /// key itself.
  std::optional<std::string> LLMApiKeyEnv;
  std::optional<std::string> Sandbox;   ///< --sandbox
  std::optional<std::string> LLMRecord; ///< --llm-record (a folder)
  std::optional<std::string> LLMReplay; ///< --llm-replay (a folder)

  /// Takes every option \p Other sets, keeping the others.
  void overrideWith(const SearchOptions &Other);
  /// The options that are set as (flag name, value) pairs, in a fixed
  /// order: "policy", "llm".
  std::vector<std::pair<std::string, std::string>> toFlags() const;
  /// The same as clang-maxcode arguments: "--policy=llm".
  std::vector<std::string> toArguments() const;
};

/// Where a configuration comes from, which decides what it may set.
enum class ConfigTrust {
  Repository, ///< A `.clang-maxcode` in the user's tree.
  User,       ///< The user's own configuration file.
};

/// Name of the project configuration file.
constexpr const char *ConfigFileName = ".clang-maxcode";

/// The nearest `.clang-maxcode` in the folder of \p File or above it.
std::optional<std::string> findConfigFile(llvm::StringRef File);

/// `$XDG_CONFIG_HOME/clang-maxcode/config.yaml`, else
/// `$HOME/.config/clang-maxcode/config.yaml`; empty without either.
std::string userConfigPath();

/// Reads configuration text. \p Dir (the file's folder) anchors relative
/// paths, so `Tests: tests` means the folder beside the file. Keys this
/// tool does not know are allowed (the file is shared with other tools); a
/// known key of the wrong type is an error naming it. Under
/// ConfigTrust::Repository the trusted keys are dropped, and a warning for
/// each is appended to \p Warnings ("<file>: ignored 'LLMEndpoint': ...").
llvm::Expected<SearchOptions>
parseConfig(llvm::StringRef Text, llvm::StringRef Dir, llvm::StringRef Origin,
            ConfigTrust Trust = ConfigTrust::Repository,
            std::vector<std::string> *Warnings = nullptr);

/// Reads and parses the file at \p Path.
llvm::Expected<SearchOptions>
loadConfigFile(llvm::StringRef Path,
               ConfigTrust Trust = ConfigTrust::Repository,
               std::vector<std::string> *Warnings = nullptr);

/// What the files say for a search of \p Source: the user's file, then the
/// repository's nearest `.clang-maxcode` over it (its search keys only).
/// \p RepositoryFile is set to the repository file read, if any.
llvm::Expected<SearchOptions>
loadConfiguration(llvm::StringRef Source, std::vector<std::string> &Warnings,
                  std::string *RepositoryFile = nullptr);

} // namespace maxcode

#endif // MAXCODE_SUPPORT_CONFIG_H
