//===-- Options.cpp - The options model -----------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Everything here is written once per type and then applied to every row of
// Options.def; no option is spelled twice.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/Options.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <climits>
#include <cmath>
#include <cstdio>
#include <type_traits>

using namespace maxcode;

//===----------------------------------------------------------------------===//
// The closed sets
//===----------------------------------------------------------------------===//

namespace {
/// The names of an enum's values, in the enum's order.
template <typename E> struct EnumNames;
#define MAXCODE_ENUM_NAMES(E, ...)                                             \
  template <> struct EnumNames<E> {                                            \
    static constexpr llvm::StringLiteral Names[] = {__VA_ARGS__};              \
  };
MAXCODE_ENUM_NAMES(PolicyKind, "rules", "llm")
MAXCODE_ENUM_NAMES(CriticKind, "rules", "llm", "none")
MAXCODE_ENUM_NAMES(RTGKind, "none", "learned", "llm")
MAXCODE_ENUM_NAMES(StrategyKind, "best-of-n", "refine", "beam", "tree")
MAXCODE_ENUM_NAMES(MeasureMode, "time", "instructions", "cuda-kernel")
MAXCODE_ENUM_NAMES(SandboxMode, "auto", "bwrap", "none")
MAXCODE_ENUM_NAMES(ExecutorKind, "local", "slurm")
// "default": by mode (DESIGN section 2), what leaving it unset means.
MAXCODE_ENUM_NAMES(ScopeSetting, "default", "target", "file")
#undef MAXCODE_ENUM_NAMES

/// The names a value of \p T may have: none for a type that is no enum.
template <typename T> std::vector<llvm::StringRef> namesOf() {
  std::vector<llvm::StringRef> Out;
  if constexpr (std::is_enum_v<T>)
    for (llvm::StringRef N : EnumNames<T>::Names)
      if (!N.empty())
        Out.push_back(N);
  return Out;
}
} // namespace

#define MAXCODE_ENUM_FUNCTIONS(E)                                              \
  llvm::StringRef maxcode::optionValueName(E V) {                              \
    return EnumNames<E>::Names[static_cast<size_t>(V)];                        \
  }                                                                            \
  template <>                                                                  \
  llvm::Expected<E> maxcode::parseOptionValue<E>(llvm::StringRef N) {          \
    for (size_t I = 0; I < std::size(EnumNames<E>::Names); ++I)                \
      if (!N.empty() && EnumNames<E>::Names[I] == N)                           \
        return static_cast<E>(I);                                              \
    return llvm::createStringError(N + " is not one of " +                     \
                                   llvm::join(namesOf<E>(), ", "));            \
  }
MAXCODE_ENUM_FUNCTIONS(PolicyKind)
MAXCODE_ENUM_FUNCTIONS(CriticKind)
MAXCODE_ENUM_FUNCTIONS(RTGKind)
MAXCODE_ENUM_FUNCTIONS(StrategyKind)
MAXCODE_ENUM_FUNCTIONS(MeasureMode)
MAXCODE_ENUM_FUNCTIONS(SandboxMode)
MAXCODE_ENUM_FUNCTIONS(ExecutorKind)
MAXCODE_ENUM_FUNCTIONS(ScopeSetting)
#undef MAXCODE_ENUM_FUNCTIONS

//===----------------------------------------------------------------------===//
// One type's spellings: text, JSON, the words of its errors
//===----------------------------------------------------------------------===//

namespace {
template <typename T> constexpr OptionType typeOf() {
  if constexpr (std::is_same_v<T, bool>)
    return OptionType::Bool;
  else if constexpr (std::is_same_v<T, unsigned>)
    return OptionType::Unsigned;
  else if constexpr (std::is_same_v<T, uint64_t>)
    return OptionType::UInt64;
  else if constexpr (std::is_same_v<T, double>)
    return OptionType::Number;
  else if constexpr (std::is_same_v<T, std::string>)
    return OptionType::String;
  else if constexpr (std::is_enum_v<T>)
    return OptionType::Enum;
  else if constexpr (std::is_same_v<T, StringList>)
    return OptionType::List;
  else
    return OptionType::RuleOptions;
}

/// What a value of the type must be, for errors.
llvm::StringRef typeWords(OptionType T) {
  switch (T) {
  case OptionType::Bool:
    return "must be true or false";
  case OptionType::Unsigned:
  case OptionType::UInt64:
    return "must be a non-negative integer";
  case OptionType::Number:
    return "must be a number";
  case OptionType::String:
  case OptionType::Enum:
    return "must be a string";
  case OptionType::List:
    return "must be a list of strings";
  case OptionType::RuleOptions:
    return "must be a list of {key, value} objects";
  }
  llvm_unreachable("unknown option type");
}

std::string numberText(double D) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%g", D);
  return Buf;
}

template <typename T> std::string textOf(const T &V) {
  if constexpr (std::is_same_v<T, bool>)
    return V ? "true" : "false";
  else if constexpr (std::is_same_v<T, unsigned> || std::is_same_v<T, uint64_t>)
    return std::to_string(V);
  else if constexpr (std::is_same_v<T, double>)
    return numberText(V);
  else if constexpr (std::is_same_v<T, std::string>)
    return V;
  else if constexpr (std::is_enum_v<T>)
    return optionValueName(V).str();
  else if constexpr (std::is_same_v<T, StringList>)
    return llvm::join(V, ",");
  else {
    std::vector<std::string> Parts;
    for (const RuleOptionEntry &E : V)
      Parts.push_back(E.Key + "=" + E.Value);
    return llvm::join(Parts, ",");
  }
}

llvm::Error typeError(llvm::StringRef Key, OptionType T,
                      std::optional<std::string> Value = std::nullopt) {
  return llvm::make_error<OptionError>(Key, std::move(Value), typeWords(T));
}

/// One value from its command-line spelling.
template <typename T>
llvm::Error parseText(llvm::StringRef Key, llvm::StringRef S, T &Out) {
  constexpr OptionType Ty = typeOf<T>();
  if constexpr (std::is_same_v<T, bool>) {
    if (S == "true" || S == "1")
      Out = true;
    else if (S == "false" || S == "0")
      Out = false;
    else
      return typeError(Key, Ty, S.str());
  } else if constexpr (std::is_same_v<T, unsigned> ||
                       std::is_same_v<T, uint64_t>) {
    unsigned long long N;
    if (S.trim().getAsInteger(10, N) || N > std::numeric_limits<T>::max())
      return typeError(Key, Ty, S.str());
    Out = static_cast<T>(N);
  } else if constexpr (std::is_same_v<T, double>) {
    double D;
    if (!llvm::to_float(S.trim(), D) || !std::isfinite(D))
      return typeError(Key, Ty, S.str());
    Out = D;
  } else if constexpr (std::is_same_v<T, std::string>) {
    Out = S.str();
  } else if constexpr (std::is_enum_v<T>) {
    auto V = parseOptionValue<T>(S);
    if (!V)
      return llvm::make_error<OptionError>(
          Key, S.str(), "is not one of " + llvm::join(namesOf<T>(), ", "));
    llvm::consumeError(V.takeError());
    Out = *V;
  }
  return llvm::Error::success();
}

/// The values of \p Key from a command line: one for a scalar, each item
/// for a list.
template <typename T>
llvm::Error parseTexts(llvm::StringRef Key, llvm::ArrayRef<std::string> Vs,
                       std::optional<T> &Out) {
  if constexpr (std::is_same_v<T, StringList>) {
    Out = T(Vs.begin(), Vs.end());
  } else if constexpr (std::is_same_v<T, RuleOptionList>) {
    T L;
    for (llvm::StringRef A : Vs) {
      // Which rules and options there are is the rule library's to say
      // (parseRuleOptionAssignment); the form is the model's.
      if (!A.contains('='))
        return llvm::createStringError("rule option '" + A +
                                       "' is not key=value");
      auto [K, V] = A.split('=');
      L.push_back({K.trim().str(), V.trim().str()});
    }
    Out = std::move(L);
  } else {
    if (Vs.size() != 1)
      return llvm::make_error<OptionError>(Key, std::nullopt,
                                           "takes one value");
    T V{};
    if (llvm::Error E = parseText(Key, Vs.front(), V))
      return E;
    Out = std::move(V);
  }
  return llvm::Error::success();
}

template <typename T> llvm::json::Value jsonOf(const T &V) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, unsigned> ||
                std::is_same_v<T, uint64_t> || std::is_same_v<T, double> ||
                std::is_same_v<T, std::string>)
    return V;
  else if constexpr (std::is_enum_v<T>)
    return optionValueName(V).str();
  else if constexpr (std::is_same_v<T, StringList>)
    return llvm::json::Array(V);
  else {
    llvm::json::Array A;
    for (const RuleOptionEntry &E : V)
      A.push_back(llvm::json::Object{{"key", E.Key}, {"value", E.Value}});
    return A;
  }
}

/// One value from the editor's settings.
template <typename T>
llvm::Error parseJSON(llvm::StringRef Key, const llvm::json::Value &J,
                      std::optional<T> &Out) {
  constexpr OptionType Ty = typeOf<T>();
  if constexpr (std::is_same_v<T, bool>) {
    if (!J.getAsBoolean())
      return typeError(Key, Ty);
    Out = *J.getAsBoolean();
  } else if constexpr (std::is_same_v<T, unsigned> ||
                       std::is_same_v<T, uint64_t>) {
    std::optional<int64_t> N = J.getAsInteger();
    if (!N || *N < 0 ||
        static_cast<uint64_t>(*N) > std::numeric_limits<T>::max())
      return typeError(Key, Ty);
    Out = static_cast<T>(*N);
  } else if constexpr (std::is_same_v<T, double>) {
    std::optional<double> D = J.getAsNumber();
    if (!D || !std::isfinite(*D))
      return typeError(Key, Ty);
    Out = *D;
  } else if constexpr (std::is_same_v<T, std::string> || std::is_enum_v<T>) {
    std::optional<llvm::StringRef> S = J.getAsString();
    if (!S)
      return typeError(Key, Ty);
    T V{};
    if (llvm::Error E = parseText(Key, *S, V))
      return E;
    Out = std::move(V);
  } else if constexpr (std::is_same_v<T, StringList>) {
    const llvm::json::Array *A = J.getAsArray();
    if (!A)
      return typeError(Key, Ty);
    T L;
    for (const llvm::json::Value &Item : *A) {
      if (!Item.getAsString())
        return typeError(Key, Ty);
      L.push_back(Item.getAsString()->str());
    }
    Out = std::move(L);
  } else {
    const llvm::json::Array *A = J.getAsArray();
    if (!A)
      return typeError(Key, Ty);
    T L;
    for (const llvm::json::Value &Item : *A) {
      const llvm::json::Object *O = Item.getAsObject();
      std::optional<llvm::StringRef> K = O ? O->getString("key") : std::nullopt;
      std::optional<llvm::StringRef> V =
          O ? O->getString("value") : std::nullopt;
      if (!K || !V)
        return typeError(Key, Ty);
      L.push_back({K->str(), V->str()});
    }
    Out = std::move(L);
  }
  return llvm::Error::success();
}
} // namespace

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

namespace {
using namespace optattr;
constexpr OptionInfo Table[] = {
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)           \
  {#KEY, FLAG, typeOf<TYPE>(), ATTRS, VALUE, HELP},
#include "maxcode/Support/Options.def"
};
} // namespace

llvm::ArrayRef<OptionInfo> maxcode::optionTable() { return Table; }

const OptionInfo *maxcode::findOption(llvm::StringRef Key) {
  for (const OptionInfo &I : Table)
    if (I.Key == Key)
      return &I;
  return nullptr;
}

std::string OptionInfo::setting() const {
  // "LLMApiKeyEnv" -> "llmApiKeyEnv": the leading capitals, but for the one
  // that starts the next word, in lower case.
  std::string S = Key.str();
  size_t Caps = 0;
  while (Caps < S.size() && llvm::isUpper(S[Caps]))
    ++Caps;
  size_t Lower = Caps > 1 && Caps < S.size() ? Caps - 1 : Caps;
  for (size_t I = 0; I < Lower; ++I)
    S[I] = llvm::toLower(S[I]);
  return S;
}

std::string OptionInfo::defaultText() const {
  EffectiveOptions D;
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)           \
  if (Key == #KEY)                                                             \
    return textOf(D.KEY);
#include "maxcode/Support/Options.def"
  llvm_unreachable("an option not in the table");
}

std::vector<llvm::StringRef> OptionInfo::valueNames() const {
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)           \
  if (Key == #KEY)                                                             \
    return namesOf<TYPE>();
#include "maxcode/Support/Options.def"
  return {};
}

//===----------------------------------------------------------------------===//
// MaxcodeOptions
//===----------------------------------------------------------------------===//

void MaxcodeOptions::overrideWith(const MaxcodeOptions &Other) {
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)           \
  if (Other.KEY)                                                               \
    KEY = Other.KEY;
#include "maxcode/Support/Options.def"
}

bool MaxcodeOptions::clear(llvm::StringRef Key) {
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)           \
  if (Key == #KEY) {                                                           \
    bool Was = KEY.has_value();                                                \
    KEY.reset();                                                               \
    return Was;                                                                \
  }
#include "maxcode/Support/Options.def"
  return false;
}

std::vector<llvm::StringRef> MaxcodeOptions::keysSet() const {
  std::vector<llvm::StringRef> Keys;
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)           \
  if (KEY)                                                                     \
    Keys.push_back(#KEY);
#include "maxcode/Support/Options.def"
  return Keys;
}

llvm::Error MaxcodeOptions::setFromStrings(llvm::StringRef Key,
                                           llvm::ArrayRef<std::string> Values) {
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)           \
  if (Key == #KEY)                                                             \
    return parseTexts(Key, Values, KEY);
#include "maxcode/Support/Options.def"
  return llvm::createStringError("no option '" + Key + "'");
}

void MaxcodeOptions::resolvePaths(llvm::StringRef Dir) {
  auto Resolve = [&](auto &P) {
    if constexpr (std::is_same_v<std::decay_t<decltype(P)>,
                                 std::optional<std::string>>) {
      if (!P || P->empty() || llvm::sys::path::is_absolute(*P) || Dir.empty())
        return;
      llvm::SmallString<256> Abs(Dir);
      llvm::sys::path::append(Abs, *P);
      llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
      *P = std::string(Abs);
    }
  };
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)           \
  if ((ATTRS) & optattr::Path)                                                 \
    Resolve(KEY);
  using namespace optattr;
#include "maxcode/Support/Options.def"
}

llvm::json::Object MaxcodeOptions::toJSON() const {
  llvm::json::Object O;
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)           \
  if (KEY)                                                                     \
    O[#KEY] = jsonOf(*KEY);
#include "maxcode/Support/Options.def"
  return O;
}

llvm::json::Object MaxcodeOptions::toSettings() const {
  llvm::json::Object O;
  for (auto &KV : toJSON())
    O[findOption(KV.first.str())->setting()] = KV.second;
  return O;
}

bool MaxcodeOptions::operator==(const MaxcodeOptions &O) const {
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)           \
  if (KEY != O.KEY)                                                            \
    return false;
#include "maxcode/Support/Options.def"
  return true;
}

EffectiveOptions maxcode::resolveOptions(const MaxcodeOptions &O) {
  EffectiveOptions R;
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)           \
  if (O.KEY)                                                                   \
    R.KEY = *O.KEY;
#include "maxcode/Support/Options.def"
  return R;
}

llvm::json::Object maxcode::runIdentity(const EffectiveOptions &E) {
  MaxcodeOptions O;
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)           \
  if ((ATTRS) & optattr::Identity)                                             \
    O.KEY = E.KEY;
  using namespace optattr;
#include "maxcode/Support/Options.def"
  return O.toJSON();
}

llvm::Expected<MaxcodeOptions>
maxcode::optionsFromSettings(const llvm::json::Object &S) {
  MaxcodeOptions O;
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)           \
  if (const llvm::json::Value *V = S.get(findOption(#KEY)->setting()))         \
    if (llvm::Error E = parseJSON(#KEY, *V, O.KEY))                            \
      return E;
#include "maxcode/Support/Options.def"
  return O;
}

std::optional<uint64_t> maxcode::parseByteSize(llvm::StringRef S) {
  S = S.trim();
  uint64_t Scale = 1;
  if (S.consume_back_insensitive("kib") || S.consume_back_insensitive("k"))
    Scale = 1ull << 10;
  else if (S.consume_back_insensitive("mib") || S.consume_back_insensitive("m"))
    Scale = 1ull << 20;
  else if (S.consume_back_insensitive("gib") || S.consume_back_insensitive("g"))
    Scale = 1ull << 30;
  uint64_t N;
  if (S.getAsInteger(10, N) || N > UINT64_MAX / Scale)
    return std::nullopt;
  return N * Scale;
}

/// The text of a number that is infinite or not a number; none otherwise.
template <typename T>
static std::optional<std::string> nonFiniteText(const T &V) {
  if constexpr (std::is_same_v<T, double>)
    if (!std::isfinite(V))
      return numberText(V);
  return std::nullopt;
}

/// The first text in \p V that is not UTF-8, made printable; none if all are.
template <typename T>
static std::optional<std::string> nonUTF8Text(const T &V) {
  auto Check = [](const std::string &S) -> std::optional<std::string> {
    if (llvm::json::isUTF8(S))
      return std::nullopt;
    return llvm::json::fixUTF8(S);
  };
  if constexpr (std::is_same_v<T, std::string>) {
    return Check(V);
  } else if constexpr (std::is_same_v<T, StringList>) {
    for (const std::string &S : V)
      if (std::optional<std::string> Bad = Check(S))
        return Bad;
  } else if constexpr (std::is_same_v<T, RuleOptionList>) {
    for (const RuleOptionEntry &E : V)
      for (const std::string *S : {&E.Key, &E.Value})
        if (std::optional<std::string> Bad = Check(*S))
          return Bad;
  }
  return std::nullopt;
}

bool OptionBound::admits(double X) const {
  switch (K) {
  case None:
    return true;
  case AtLeast:
    return X >= Value;
  case Above:
    return X > Value;
  case AtMost:
    return X <= Value;
  case Below:
    return X < Value;
  }
  llvm_unreachable("bad bound");
}

std::string OptionBound::text() const {
  static const char *Words[] = {"", "at least ", "above ", "at most ",
                                "below "};
  return K == None ? std::string() : Words[K] + numberText(Value);
}

/// Row \p Key's value \p V against its range: "--held-out=1.5 must be at
/// least 0 and below 1".
static llvm::Error checkRange(llvm::StringRef Key, double V, OptionBound Low,
                              OptionBound High, llvm::StringRef Why) {
  if (Low.admits(V) && High.admits(V))
    return llvm::Error::success();
  std::string Range = Low.text();
  if (High.K != OptionBound::None)
    Range += (Range.empty() ? "" : " and ") + High.text();
  std::string Message = "must be " + Range;
  if (!Why.empty())
    Message += ": " + Why.str();
  return llvm::make_error<OptionError>(Key, numberText(V), Message);
}

llvm::Error maxcode::validateOptions(const EffectiveOptions &O) {
  auto Bad = [](llvm::StringRef Key, std::optional<std::string> Value,
                const llvm::Twine &Message) {
    return llvm::make_error<OptionError>(Key, std::move(Value), Message.str());
  };
  // A file's YAML reads "inf" and "nan" as numbers; no setting means them.
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)           \
  if (std::optional<std::string> Text = nonFiniteText(O.KEY))                  \
    return Bad(#KEY, Text, "is not a finite number");
#include "maxcode/Support/Options.def"
  // Settings travel as JSON (--config, the editor's settings, the store's
  // job files), which holds only UTF-8; a byte that is not would be changed
  // on the way, so a different value would run than the one given.
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)           \
  if (std::optional<std::string> Text = nonUTF8Text(O.KEY))                    \
    return Bad(#KEY, Text, "is not valid UTF-8");
#include "maxcode/Support/Options.def"
  // Each number's range, from its row.
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)
#define MAXCODE_OPTION_RANGE(KEY, LOW, HIGH, WHY)                              \
  if (llvm::Error E = checkRange(#KEY, O.KEY, LOW, HIGH, WHY))                 \
    return E;
#include "maxcode/Support/Options.def"
  if (!parseByteSize(O.MaxTreeSize))
    return Bad("MaxTreeSize", O.MaxTreeSize,
               "is not a size: give one such as 500M or 2G");
  if (llvm::is_contained(O.PassEnv, O.LLMApiKeyEnv))
    return Bad("PassEnv", std::nullopt,
               "may not name " + O.LLMApiKeyEnv + ", the API key's variable");
  return llvm::Error::success();
}

char OptionError::ID;

void OptionError::log(llvm::raw_ostream &OS) const {
  OS << Key;
  if (Value)
    OS << "=" << *Value;
  OS << " " << Message;
}

std::error_code OptionError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

std::string OptionNames::operator()(const OptionInfo &I) const {
  return S == Flags ? ("--" + I.Flag).str() : I.setting();
}

std::string OptionNames::operator()(llvm::StringRef Key) const {
  const OptionInfo *I = findOption(Key);
  assert(I && "OptionNames of a key not in Options.def");
  return I ? (*this)(*I) : Key.str();
}

llvm::Error maxcode::spellOptionErrors(llvm::Error E, OptionNames Names) {
  return llvm::handleErrors(
      std::move(E), [&](const OptionError &O) -> llvm::Error {
        const OptionInfo *I = findOption(O.Key);
        std::string Name = I ? Names(*I) : O.Key;
        if (O.Value)
          Name += "=" + *O.Value;
        return llvm::createStringError(Name + " " + O.Message);
      });
}
