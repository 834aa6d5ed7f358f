//===-- maxcode/Support/Options.h - The options model -----------*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// clang-maxcode's settings as one typed model, the way ClangTidyOptions is
/// one: every key is a row of Options.def, from which the command-line flags
/// (OptionFlags.h), the `.clang-maxcode` keys (Config.h), the editor's
/// settings and the checks all derive. Sources are merged key by key in one
/// order, each over the one before:
///
///   defaults < the user's file < the repository's file < the editor (or
///   --config) < the command line
///
/// and the result is validated once (validateOptions). Errors about a value
/// are OptionErrors naming the key; whoever shows them spells the key in its
/// own words (a flag, a YAML key, an editor setting).
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_SUPPORT_OPTIONS_H
#define MAXCODE_SUPPORT_OPTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace maxcode {

// The closed sets among the options. Each has one table of names
// (Options.cpp), shared by the command line, the files, the editor and the
// outputs.

/// Who proposes variants (DESIGN section 3).
enum class PolicyKind { Rules, LLM };
/// Who explains evaluations.
enum class CriticKind { Rules, LLM, None };
/// The reward-to-go model that reranks proposals.
enum class RTGKind { None, Learned, LLM };
/// Which nodes the search expands.
enum class StrategyKind { BestOfN, Refine, Beam, Tree };
/// What a speedup is measured in.
enum class MeasureMode { Time, Instructions, CudaKernel };
/// How builds and runs are isolated.
enum class SandboxMode { Auto, Bwrap, None };
/// Which executor runs the evaluator's jobs.
enum class ExecutorKind { Local, Slurm };
/// What a variant may edit; Default leaves it to the mode (DESIGN
/// section 2).
enum class ScopeSetting { Default, Target, File };

/// The name of a value of a closed set ("rules", "best-of-n", ...).
llvm::StringRef optionValueName(PolicyKind V);
llvm::StringRef optionValueName(CriticKind V);
llvm::StringRef optionValueName(RTGKind V);
llvm::StringRef optionValueName(StrategyKind V);
llvm::StringRef optionValueName(MeasureMode V);
llvm::StringRef optionValueName(SandboxMode V);
llvm::StringRef optionValueName(ExecutorKind V);
llvm::StringRef optionValueName(ScopeSetting V);

/// The value of closed set \p E named \p Name; otherwise an error listing
/// the names ("gpt is not one of rules, llm").
template <typename E> llvm::Expected<E> parseOptionValue(llvm::StringRef Name);
template <>
llvm::Expected<PolicyKind> parseOptionValue<PolicyKind>(llvm::StringRef);
template <>
llvm::Expected<CriticKind> parseOptionValue<CriticKind>(llvm::StringRef);
template <> llvm::Expected<RTGKind> parseOptionValue<RTGKind>(llvm::StringRef);
template <>
llvm::Expected<StrategyKind> parseOptionValue<StrategyKind>(llvm::StringRef);
template <>
llvm::Expected<MeasureMode> parseOptionValue<MeasureMode>(llvm::StringRef);
template <>
llvm::Expected<SandboxMode> parseOptionValue<SandboxMode>(llvm::StringRef);
template <>
llvm::Expected<ExecutorKind> parseOptionValue<ExecutorKind>(llvm::StringRef);
template <>
llvm::Expected<ScopeSetting> parseOptionValue<ScopeSetting>(llvm::StringRef);

/// One rule option, as clang-tidy's CheckOptions spell it.
struct RuleOptionEntry {
  std::string Key; ///< "rule-id.Key".
  std::string Value;
  bool operator==(const RuleOptionEntry &O) const {
    return Key == O.Key && Value == O.Value;
  }
};
using RuleOptionList = std::vector<RuleOptionEntry>;
using StringList = std::vector<std::string>;

/// What an option is besides its type (the Attributes column of
/// Options.def).
namespace optattr {
enum : unsigned {
  None = 0,
  /// Where code, data or secrets go: never from a repository's file.
  Trusted = 1,
  /// A path: relative to the folder of the file that gives it.
  Path = 2,
  TrustedPath = Trusted | Path,
  /// Part of a search's identity (runIdentity): a setting that changes what
  /// the search proposes, evaluates or credits, so that --resume never
  /// continues a run made under another value. Budgets of the session
  /// (time, tokens), parallelism and where files go are not.
  Identity = 4,
};
} // namespace optattr

/// The shape of an option's values.
enum class OptionType {
  Bool,
  Unsigned,
  UInt64,
  Number,
  String,
  Enum,
  List,
  RuleOptions
};

/// One end of a number's range (MAXCODE_OPTION_RANGE in Options.def).
struct OptionBound {
  enum Kind : uint8_t { None, AtLeast, Above, AtMost, Below };
  Kind K = None;
  double Value = 0;
  static constexpr OptionBound none() { return {}; }
  static constexpr OptionBound atLeast(double V) { return {AtLeast, V}; }
  static constexpr OptionBound above(double V) { return {Above, V}; }
  static constexpr OptionBound atMost(double V) { return {AtMost, V}; }
  static constexpr OptionBound below(double V) { return {Below, V}; }
  /// Whether \p X is on the admitted side (None admits everything).
  bool admits(double X) const;
  /// "at least 0", "below 1"; empty for None.
  std::string text() const;
};

/// One row of Options.def.
struct OptionInfo {
  llvm::StringLiteral Key;  ///< The `.clang-maxcode` key: "HeldOut".
  llvm::StringLiteral Flag; ///< The command-line flag: "held-out".
  OptionType Type;
  unsigned Attributes;
  llvm::StringLiteral ValueName; ///< For help: "seconds"; enums list names.
  llvm::StringLiteral Help;
  /// The editor's setting: the key in camelCase ("heldOut", "llmEndpoint").
  std::string setting() const;
  /// The default as the command line would spell it ("0.333333", "rules").
  std::string defaultText() const;
  /// The names an Enum option takes, empty otherwise.
  std::vector<llvm::StringRef> valueNames() const;
  bool trusted() const { return Attributes & optattr::Trusted; }
  bool isPath() const { return Attributes & optattr::Path; }
  bool identity() const { return Attributes & optattr::Identity; }
};

/// Every option, in the table's order.
llvm::ArrayRef<OptionInfo> optionTable();
/// The option whose key is \p Key, if any.
const OptionInfo *findOption(llvm::StringRef Key);

/// Options as one source gives them: each one it does not set is unset.
struct MaxcodeOptions {
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)           \
  std::optional<TYPE> KEY;
#include "maxcode/Support/Options.def"

  /// Takes every option \p Other sets, keeping the others.
  void overrideWith(const MaxcodeOptions &Other);
  /// Unsets option \p Key; true if it was set.
  bool clear(llvm::StringRef Key);
  /// The keys set, in the table's order.
  std::vector<llvm::StringRef> keysSet() const;
  /// Sets option \p Key from its spelling on a command line: one value, or
  /// the values of a list. An OptionError when a value is not of its type.
  llvm::Error setFromStrings(llvm::StringRef Key,
                             llvm::ArrayRef<std::string> Values);
  /// Makes the relative paths of Path options absolute against \p Dir.
  void resolvePaths(llvm::StringRef Dir);
  /// The options set, as `.clang-maxcode` keys in JSON (JSON is YAML; this
  /// is what the editor hands clang-maxcode as --config).
  llvm::json::Object toJSON() const;
  /// The same as the editor's settings (camelCase keys).
  llvm::json::Object toSettings() const;
  bool operator==(const MaxcodeOptions &O) const;
};

/// Each option's default, from its row: what the structs the libraries take
/// (RunOptions, EvalConfig, SearchConfig, LLMOptions) start from, so that a
/// default is written once, in Options.def.
namespace optdefault {
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)           \
  inline const TYPE KEY = DEFAULT;
#include "maxcode/Support/Options.def"
} // namespace optdefault

/// Every option with a value: what was set, else the table's default.
struct EffectiveOptions {
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)           \
  TYPE KEY = DEFAULT;
#include "maxcode/Support/Options.def"
};

/// \p O over the defaults.
EffectiveOptions resolveOptions(const MaxcodeOptions &O);

/// The values of \p O's Identity rows, as `.clang-maxcode` keys in JSON:
/// what the rollout store keys a run by, so that --resume continues only a
/// search made under the same settings.
llvm::json::Object runIdentity(const EffectiveOptions &O);

/// The checks no type can say (ranges, sizes, a key's variable passed to
/// runs), done once on the merged options; the first failure as an
/// OptionError.
llvm::Error validateOptions(const EffectiveOptions &O);

/// The editor's settings: the keys of optionTable() in camelCase, with JSON
/// values of the option's type. Settings that are no option are left to the
/// editor; a setting of the wrong type is an OptionError.
llvm::Expected<MaxcodeOptions> optionsFromSettings(const llvm::json::Object &S);

/// "2G", "500M", "4096": bytes.
std::optional<uint64_t> parseByteSize(llvm::StringRef S);

/// A value that does not do for option Key. Its text reads after the
/// option's name: "must be at least 1", "is not one of rules, llm".
class OptionError : public llvm::ErrorInfo<OptionError> {
public:
  static char ID;
  OptionError(llvm::StringRef Key, std::optional<std::string> Value,
              llvm::StringRef Message)
      : Key(Key.str()), Value(std::move(Value)), Message(Message.str()) {}
  std::string Key;
  /// The value, when the message needs it to be understood.
  std::optional<std::string> Value;
  std::string Message;
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;
};

/// How a front end names the settings in what it shows: the command line's
/// flags ("--held-out") or the editor's settings ("heldOut"). A library that
/// mentions a setting in text it writes (an error, a verdict's reason, a
/// warning, a report) is handed the run's names with the rest of its
/// configuration, so the text reads the same wherever it goes (the store,
/// a report, the editor); nothing process-wide decides them.
class OptionNames {
public:
  enum Style : uint8_t { Flags, Settings };
  constexpr OptionNames(Style S = Flags) : S(S) {}
  /// The name of row \p Key, which must be one of Options.def's: "--scope"
  /// or "scope".
  std::string operator()(llvm::StringRef Key) const;
  std::string operator()(const OptionInfo &I) const;
  Style style() const { return S; }

private:
  Style S;
};

/// \p E with each OptionError said with \p Names' name for its option:
/// "--held-out must be at least 0 and below 1". The checks of the settings
/// (validateOptions and the parsers) run before a front end has chosen how
/// it shows them, so their errors carry the row's key and are named where
/// they are shown.
llvm::Error spellOptionErrors(llvm::Error E, OptionNames Names);

} // namespace maxcode

#endif // MAXCODE_SUPPORT_OPTIONS_H
