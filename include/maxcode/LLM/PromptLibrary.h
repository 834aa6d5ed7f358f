//===-- maxcode/LLM/PromptLibrary.h - Prompt templates ----------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Prompt templates are data files (prompts/*.md) with named placeholders,
/// `{{name}}`. They are loaded at run time, so a user can change what the
/// model is asked without rebuilding the tool (docs/LLM.md).
///
/// Template syntax:
///  - `{{name}}` (spaces inside the braces allowed; a name is letters,
///    digits and `_`, not starting with a digit) is replaced by the value
///    of `name`. Values are inserted as they are, never scanned again, so
///    code holding `{{` is safe. Braces around anything else are text.
///  - `<!-- role: system -->` and `<!-- role: user -->` (also `assistant`)
///    on a line of their own start a chat message with that role; text
///    before the first one is a user message.
///  - Any other `<!-- ... -->` is a note for template authors and is
///    removed before the template is used.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_LLM_PROMPTLIBRARY_H
#define MAXCODE_LLM_PROMPTLIBRARY_H

#include "maxcode/LLM/LLMClient.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace maxcode {

/// One parsed template.
class PromptTemplate {
public:
  /// Parses \p Text; \p Name and \p Path are used in error messages.
  static llvm::Expected<PromptTemplate>
  parse(llvm::StringRef Name, llvm::StringRef Text, llvm::StringRef Path = "");

  /// The text with every placeholder replaced and role markers removed.
  /// A placeholder without a value is an error naming it and the template;
  /// a value for no placeholder is ignored.
  llvm::Expected<std::string>
  render(const std::map<std::string, std::string> &Values) const;

  /// The same, as chat messages split at the role markers.
  llvm::Expected<std::vector<ChatMessage>>
  renderMessages(const std::map<std::string, std::string> &Values) const;

  /// Placeholder names, sorted, each once.
  std::vector<std::string> placeholders() const;
  const std::string &name() const { return Name; }
  /// The file it came from (empty when parsed from a string).
  const std::string &path() const { return Path; }

private:
  struct Piece {
    bool IsPlaceholder = false;
    std::string Text; ///< Literal text or the placeholder's name.
  };
  struct Section {
    std::string Role;
    std::vector<Piece> Pieces;
  };
  std::string Name, Path;
  std::vector<Section> Sections;
};

/// Finds and loads templates by name ("proposer-cpp" is proposer-cpp.md).
/// Thread-safe; a template is read from disk once.
class PromptLibrary {
public:
  /// Looks only in \p Dir, when given (--prompts-dir); else in
  /// defaultSearchPath(Argv0, MainAddr).
  PromptLibrary(llvm::StringRef Dir, const char *Argv0, void *MainAddr);
  /// Looks in these directories, in order.
  explicit PromptLibrary(std::vector<std::string> SearchPath);

  /// <dir of the executable>/../share/clang-maxcode/prompts, then the
  /// source tree's prompts/ folder.
  static std::vector<std::string> defaultSearchPath(const char *Argv0,
                                                    void *MainAddr);

  /// Loads (and caches) a template.
  llvm::Expected<const PromptTemplate &> get(llvm::StringRef Name);

  /// get(Name), then PromptTemplate::render / renderMessages.
  llvm::Expected<std::string>
  render(llvm::StringRef Name,
         const std::map<std::string, std::string> &Values);
  llvm::Expected<std::vector<ChatMessage>>
  renderMessages(llvm::StringRef Name,
                 const std::map<std::string, std::string> &Values);

  const std::vector<std::string> &searchPath() const { return SearchPath; }

private:
  std::vector<std::string> SearchPath;
  std::mutex Mutex;
  std::map<std::string, PromptTemplate, std::less<>> Cache;
};

} // namespace maxcode

#endif // MAXCODE_LLM_PROMPTLIBRARY_H
