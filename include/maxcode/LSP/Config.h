//===-- maxcode/LSP/Config.h - Search options from the project --*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The options of a search that the editor starts: how variants are checked
/// (a tests folder, or build, test and bench commands), the policy, budget
/// and measure, the LLM endpoint. They come from a `.clang-maxcode` YAML file
/// found upward from the source (DESIGN section 10) and from the editor's
/// `initializationOptions`, which override the file key by key. The keys are
/// documented in docs/Editors.md.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_LSP_CONFIG_H
#define MAXCODE_LSP_CONFIG_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace maxcode {
namespace lsp {

/// Each option left unset is left to clang-maxcode's own default.
struct SearchOptions {
  std::optional<std::string> Policy;       ///< --policy=rules|llm
  std::optional<unsigned> Budget;          ///< --budget (evaluations)
  std::optional<std::string> Measure;      ///< --measure
  std::optional<std::string> Scope;        ///< --scope
  std::optional<std::string> Strategy;     ///< --strategy
  std::optional<double> Timeout;           ///< --timeout (seconds per run)
  std::optional<std::string> Tests;        ///< --tests (a folder)
  std::optional<std::string> BuildCommand; ///< --build-cmd
  std::optional<std::string> TestCommand;  ///< --test-cmd
  std::optional<std::string> BenchCommand; ///< --bench-cmd
  std::optional<std::string> LLMEndpoint;  ///< --llm-endpoint
  std::optional<std::string> LLMModel;     ///< --llm-model
  /// --llm-api-key-env: the name of the variable holding the key, never the
  /// key itself.
  std::optional<std::string> LLMApiKeyEnv;

  /// Takes every option \p Other sets, keeping the others.
  void overrideWith(const SearchOptions &Other);
  /// The clang-maxcode flags for the options that are set, in a fixed order.
  std::vector<std::string> toArguments() const;
};

/// Name of the project configuration file.
constexpr const char *ConfigFileName = ".clang-maxcode";

/// The nearest `.clang-maxcode` in the folder of \p File or above it.
std::optional<std::string> findConfigFile(llvm::StringRef File);

/// Reads `.clang-maxcode` text. \p Dir (the file's folder) anchors relative
/// paths, so `Tests: tests` means the folder beside the file. Keys this
/// server does not know are allowed (the file is shared with other tools);
/// a known key of the wrong type is an error naming it.
llvm::Expected<SearchOptions>
parseConfig(llvm::StringRef Text, llvm::StringRef Dir, llvm::StringRef Origin);

/// Reads and parses the file at \p Path.
llvm::Expected<SearchOptions> loadConfigFile(llvm::StringRef Path);

} // namespace lsp
} // namespace maxcode

#endif // MAXCODE_LSP_CONFIG_H
