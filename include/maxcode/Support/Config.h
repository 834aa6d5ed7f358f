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
/// The keys are the rows of Options.def (Options.h says in which order the
/// sources are merged); docs/Editors.md lists them.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_SUPPORT_CONFIG_H
#define MAXCODE_SUPPORT_CONFIG_H

#include "maxcode/Support/Options.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace maxcode {

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

/// Reads configuration text (YAML; JSON is YAML, so --config may be either).
/// \p Dir (the file's folder) anchors relative
/// paths, so `Tests: tests` means the folder beside the file. Keys this
/// tool does not know are allowed (the file is shared with other tools); a
/// known key of the wrong type is an error naming it. Under
/// ConfigTrust::Repository the trusted keys are dropped, and a warning for
/// each is appended to \p Warnings ("<file>: ignored 'LLMEndpoint': ...").
llvm::Expected<MaxcodeOptions>
parseConfig(llvm::StringRef Text, llvm::StringRef Dir, llvm::StringRef Origin,
            ConfigTrust Trust = ConfigTrust::Repository,
            std::vector<std::string> *Warnings = nullptr);

/// Reads and parses the file at \p Path.
llvm::Expected<MaxcodeOptions>
loadConfigFile(llvm::StringRef Path,
               ConfigTrust Trust = ConfigTrust::Repository,
               std::vector<std::string> *Warnings = nullptr);

/// What the files say for a search of \p Source: the user's file, then the
/// repository's nearest `.clang-maxcode` over it (its search keys only).
/// \p RepositoryFile is set to the repository file read, if any.
llvm::Expected<MaxcodeOptions>
loadConfiguration(llvm::StringRef Source, std::vector<std::string> &Warnings,
                  std::string *RepositoryFile = nullptr);

/// Every key with its value, as a `.clang-maxcode` file (YAML) that set them
/// all would say them (--dump-config).
std::string writeConfig(const EffectiveOptions &O);

} // namespace maxcode

#endif // MAXCODE_SUPPORT_CONFIG_H
