//===-- OptionsTest.cpp - The options model -------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/Options.h"
#include "maxcode/Support/Config.h"
#include "maxcode/Support/OptionFlags.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstdio>
#include <limits>

using namespace maxcode;

namespace {

llvm::cl::OptionCategory TestCategory("options test");

/// The flags of the model, registered once for the whole test program.
OptionFlags &flags() {
  static OptionFlags F(TestCategory);
  return F;
}

/// A value of option \p I's type other than its default, as a command line,
/// a `.clang-maxcode` file and an editor spell it.
struct Sample {
  std::string Flag;
  std::string YAML;
  llvm::json::Value Setting = nullptr;
};

Sample sampleOf(const OptionInfo &I) {
  std::string D = I.defaultText();
  switch (I.Type) {
  case OptionType::Bool:
    return {D == "true" ? "false" : "true", D == "true" ? "false" : "true",
            D != "true"};
  case OptionType::Unsigned:
  case OptionType::UInt64: {
    unsigned long long N = std::stoull(D) + 3;
    return {std::to_string(N), std::to_string(N), static_cast<int64_t>(N)};
  }
  case OptionType::Number: {
    char Buf[32];
    std::snprintf(Buf, sizeof(Buf), "%g", std::stod(D) + 0.5);
    return {Buf, Buf, std::stod(Buf)};
  }
  case OptionType::String:
    // Absolute, so that a path means the same from a file and a flag.
    return {"/a b/c", "'/a b/c'", "/a b/c"};
  case OptionType::Enum:
    for (llvm::StringRef N : I.valueNames())
      if (N != D)
        return {N.str(), N.str(), N.str()};
    break;
  case OptionType::List:
    return {"x,y", "[x, y]", llvm::json::Array{"x", "y"}};
  case OptionType::RuleOptions:
    return {
        "r.K=v", "[{key: r.K, value: v}]",
        llvm::json::Array{llvm::json::Object{{"key", "r.K"}, {"value", "v"}}}};
  }
  ADD_FAILURE() << "no sample for " << I.Key.str();
  return {};
}

std::string keysOf(const MaxcodeOptions &O) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << llvm::json::Value(O.toJSON());
  return S;
}

// Must show 1 of issue 28: every key has a command-line spelling, a YAML key
// and an editor setting, and the three agree on its type and its default.
TEST(OptionsTest, EveryKeyIsAFlagAFileKeyAndASettingThatAgree) {
  OptionFlags &Flags = flags();
  auto &Registered = llvm::cl::getRegisteredOptions();
  llvm::StringSet<> Keys, FlagNames, Settings;
  for (const OptionInfo &I : optionTable()) {
    SCOPED_TRACE(I.Key.str());
    EXPECT_TRUE(Keys.insert(I.Key).second) << "key twice";
    EXPECT_TRUE(FlagNames.insert(I.Flag).second) << "flag twice";
    EXPECT_TRUE(Settings.insert(I.setting()).second) << "setting twice";
    ASSERT_TRUE(Registered.count(I.Flag)) << "no flag --" << I.Flag.str();
    EXPECT_EQ(Registered[I.Flag]->HelpStr.empty(), false);
    ASSERT_TRUE(llvm::isLower(I.setting().front()));

    Sample S = sampleOf(I);
    llvm::cl::ResetAllOptionOccurrences();
    std::string Arg = "--" + I.Flag.str() + "=" + S.Flag;
    const char *Argv[] = {"options-test", Arg.c_str()};
    std::string Errors;
    llvm::raw_string_ostream ErrOS(Errors);
    ASSERT_TRUE(llvm::cl::ParseCommandLineOptions(2, Argv, "", &ErrOS))
        << Errors;
    auto FromFlags = Flags.collect();
    ASSERT_TRUE(bool(FromFlags)) << llvm::toString(FromFlags.takeError());

    auto FromFile = parseConfig(I.Key.str() + ": " + S.YAML + "\n", "/p",
                                "/p/config.yaml", ConfigTrust::User);
    ASSERT_TRUE(bool(FromFile)) << llvm::toString(FromFile.takeError());

    auto FromEditor =
        optionsFromSettings(llvm::json::Object{{I.setting(), S.Setting}});
    ASSERT_TRUE(bool(FromEditor)) << llvm::toString(FromEditor.takeError());

    // One key set, to one value, whoever gave it.
    EXPECT_EQ(FromFlags->keysSet(), std::vector<llvm::StringRef>{I.Key});
    EXPECT_EQ(keysOf(*FromFlags), keysOf(*FromFile));
    EXPECT_EQ(keysOf(*FromFile), keysOf(*FromEditor));
    EXPECT_TRUE(*FromFlags == *FromEditor);
    // The model's own forms read back as they were written.
    auto Back = optionsFromSettings(FromFlags->toSettings());
    ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
    EXPECT_TRUE(*Back == *FromFlags);
  }
  // With nothing given, nothing is set, and every key has its one default.
  llvm::cl::ResetAllOptionOccurrences();
  const char *Argv[] = {"options-test"};
  ASSERT_TRUE(llvm::cl::ParseCommandLineOptions(1, Argv, "", &llvm::errs()));
  auto None = Flags.collect();
  ASSERT_TRUE(bool(None));
  EXPECT_TRUE(None->keysSet().empty());
  auto Empty = parseConfig("", "/p", "/p/config.yaml");
  ASSERT_TRUE(bool(Empty));
  EXPECT_TRUE(Empty->keysSet().empty());
  auto NoSettings = optionsFromSettings(llvm::json::Object{});
  ASSERT_TRUE(bool(NoSettings));
  EXPECT_TRUE(NoSettings->keysSet().empty());
  EXPECT_EQ(findOption("Budget")->defaultText(), "32");
  EXPECT_EQ(findOption("Policy")->defaultText(), "rules");
  EXPECT_EQ(findOption("HeldOut")->defaultText(), "0.333333");
  EXPECT_EQ(resolveOptions(*None).Budget, 32u);
}

// A search's identity in the store is its Identity rows, every one of them
// and nothing else: a row marked so changes the identity whatever its value,
// any other row never does.
TEST(OptionsTest, TheRunIdentityIsTheIdentityRows) {
  EffectiveOptions Defaults;
  llvm::json::Object Base = runIdentity(Defaults);
  unsigned IdentityRows = 0;
  for (const OptionInfo &I : optionTable()) {
    SCOPED_TRACE(I.Key.str());
    EXPECT_EQ(Base.get(I.Key) != nullptr, I.identity());
    IdentityRows += I.identity();
    auto One = optionsFromSettings(
        llvm::json::Object{{I.setting(), sampleOf(I).Setting}});
    ASSERT_TRUE(bool(One)) << llvm::toString(One.takeError());
    llvm::json::Object Changed = runIdentity(resolveOptions(*One));
    EXPECT_EQ(Changed != Base, I.identity());
  }
  EXPECT_EQ(Base.size(), IdentityRows);
  // What changes the measurement or the proposals is part of it; where the
  // work runs and how long the session may take are not.
  for (llvm::StringRef Key : {"Measure", "Budget", "Seed", "Warmups",
                              "Tolerance", "Scope", "LLMModel", "Sandbox"})
    EXPECT_TRUE(findOption(Key)->identity()) << Key.str();
  for (llvm::StringRef Key : {"Jobs", "MaxTime", "MaxTokens", "Store",
                              "ScratchDir", "Executor", "LLMEndpoint"})
    EXPECT_FALSE(findOption(Key)->identity()) << Key.str();
}

TEST(OptionsTest, SettingsAreTheKeysInCamelCase) {
  EXPECT_EQ(findOption("LLMApiKeyEnv")->setting(), "llmApiKeyEnv");
  EXPECT_EQ(findOption("HeldOut")->setting(), "heldOut");
  EXPECT_EQ(findOption("RTG")->setting(), "rtg");
  EXPECT_EQ(findOption("BuildCommand")->setting(), "buildCommand");
  EXPECT_EQ(findOption("Budget")->setting(), "budget");
}

// The checks of the settings name the key; each front end says it in its
// own words where it shows the error.
TEST(OptionsTest, ErrorsNameTheKey) {
  auto Spell = [](llvm::Error E, OptionNames Names) {
    return llvm::toString(spellOptionErrors(std::move(E), Names));
  };
  MaxcodeOptions O;
  EXPECT_EQ(Spell(O.setFromStrings("Policy", {"gpt"}), OptionNames::Flags),
            "--policy=gpt is not one of rules, llm");
  EXPECT_EQ(
      Spell(O.setFromStrings("Budget", {"twenty"}), OptionNames::Settings),
      "budget=twenty must be a non-negative integer");
  EXPECT_EQ(Spell(O.setFromStrings("CheckOptions", {"no-equals"}),
                  OptionNames::Flags),
            "rule option 'no-equals' is not key=value");
  auto Bad = optionsFromSettings(llvm::json::Object{{"budget", "twenty"}});
  ASSERT_FALSE(bool(Bad));
  // Any other error passes through as it was written.
  EXPECT_EQ(Spell(llvm::createStringError("make ${Tests} {HeldOut}"),
                  OptionNames::Settings),
            "make ${Tests} {HeldOut}");
}

/// Row \p Key's range, tried at each bound and just past it: a value the
/// range admits passes validateOptions, one it does not fails naming the row
/// and saying the range.
static void checkRangeRow(llvm::StringRef Key, OptionBound Low,
                          OptionBound High,
                          llvm::function_ref<llvm::Error(double)> Validate) {
  SCOPED_TRACE(Key.str());
  std::vector<std::pair<double, bool>> Tries; // Value, admitted.
  for (OptionBound B : {Low, High}) {
    double Inf = std::numeric_limits<double>::infinity();
    bool Upward = B.K == OptionBound::AtLeast || B.K == OptionBound::Above;
    double Past = std::nextafter(B.Value, Upward ? -Inf : Inf);
    double Within = std::nextafter(B.Value, Upward ? Inf : -Inf);
    switch (B.K) {
    case OptionBound::None:
      continue;
    case OptionBound::AtLeast:
    case OptionBound::AtMost:
      Tries.push_back({B.Value, true});
      Tries.push_back({Past, false});
      break;
    case OptionBound::Above:
    case OptionBound::Below:
      Tries.push_back({B.Value, false});
      Tries.push_back({Within, true});
      break;
    }
  }
  ASSERT_FALSE(Tries.empty()) << "a range row with no bound";
  for (auto [V, Admitted] : Tries) {
    SCOPED_TRACE(V);
    llvm::Error E = Validate(V);
    if (Admitted) {
      EXPECT_FALSE(bool(E)) << llvm::toString(std::move(E));
      continue;
    }
    ASSERT_TRUE(bool(E));
    std::string Key2, Message;
    llvm::handleAllErrors(std::move(E), [&](const OptionError &OE) {
      Key2 = OE.Key;
      Message = OE.Message;
    });
    EXPECT_EQ(Key2, Key.str());
    for (OptionBound B : {Low, High})
      EXPECT_NE(Message.find(B.text()), std::string::npos) << Message;
  }
}

// A number's range is on its row (MAXCODE_OPTION_RANGE): every range is
// checked, at both ends, and its error names the row.
TEST(OptionsTest, RangesAreCheckedOnTheirRows) {
  unsigned Rows = 0;
#define MAXCODE_OPTION(KEY, FLAG, TYPE, DEFAULT, ATTRS, VALUE, HELP)
#define MAXCODE_OPTION_RANGE(KEY, LOW, HIGH, WHY)                              \
  ++Rows;                                                                      \
  EXPECT_TRUE(findOption(#KEY));                                               \
  checkRangeRow(#KEY, LOW, HIGH, [](double V) {                                \
    EffectiveOptions O;                                                        \
    O.KEY = V;                                                                 \
    return validateOptions(O);                                                 \
  });
#include "maxcode/Support/Options.def"
  EXPECT_GE(Rows, 8u);
  EXPECT_EQ(
      llvm::toString(spellOptionErrors(
          [] {
            EffectiveOptions O;
            O.Timeout = 0;
            return validateOptions(O);
          }(),
          OptionNames::Flags)),
      "--timeout=0 must be above 0 and at most 86400: a run without a limit "
      "is never safe");
}

// What a library writes about a setting names it with the names it was
// handed: a flag for the command line, a setting for the editor, for every
// row of the table.
TEST(OptionsTest, OptionNamesAreTheFlagsOrTheSettings) {
  for (const OptionInfo &I : optionTable()) {
    EXPECT_EQ(OptionNames(OptionNames::Flags)(I.Key), "--" + I.Flag.str());
    EXPECT_EQ(OptionNames(OptionNames::Settings)(I.Key), I.setting());
    EXPECT_EQ(OptionNames(OptionNames::Settings)(I), I.setting());
  }
  EXPECT_EQ(OptionNames()("HeldOut"), "--held-out");
  EXPECT_EQ(OptionNames(OptionNames::Settings)("LLMEndpoint"), "llmEndpoint");
}

// DESIGN section 10, from the table: every key marked Trusted is dropped
// from a repository's file, and no other.
TEST(OptionsTest, RepositoryFilesSetNoTrustedKey) {
  std::string Text;
  for (const OptionInfo &I : optionTable())
    Text += I.Key.str() + ": " + sampleOf(I).YAML + "\n";
  std::vector<std::string> Warnings;
  auto O = parseConfig(Text, "/p", "/p/.clang-maxcode", ConfigTrust::Repository,
                       &Warnings);
  ASSERT_TRUE(bool(O)) << llvm::toString(O.takeError());
  size_t Trusted = 0;
  std::vector<llvm::StringRef> Set = O->keysSet();
  for (const OptionInfo &I : optionTable()) {
    Trusted += I.trusted();
    EXPECT_EQ(llvm::is_contained(Set, I.Key), !I.trusted()) << I.Key.str();
  }
  EXPECT_EQ(Warnings.size(), Trusted);
  for (const char *Key : {"LLMEndpoint", "LLMApiKeyEnv", "Sandbox", "PassEnv",
                          "AllowApi", "Store", "Executor", "SharedDir"})
    EXPECT_TRUE(findOption(Key)->trusted()) << Key;
}

TEST(OptionsTest, FilesNameBadValuesWithTheirPlace) {
  auto O = parseConfig("Budget: 3\nPolicy: gpt\n", "/p", "/p/.clang-maxcode");
  ASSERT_FALSE(bool(O));
  EXPECT_EQ(llvm::toString(O.takeError()),
            "/p/.clang-maxcode:2:9: gpt is not one of rules, llm");
}

// What --dump-config prints is a file that says the same.
TEST(OptionsTest, DumpedConfigurationReadsBack) {
  MaxcodeOptions Set;
  for (const OptionInfo &I : optionTable())
    ASSERT_FALSE(bool(Set.setFromStrings(I.Key, {sampleOf(I).Flag})))
        << I.Key.str();
  for (const EffectiveOptions &E :
       {resolveOptions(MaxcodeOptions()), resolveOptions(Set)}) {
    std::string Text = writeConfig(E);
    auto Back = parseConfig(Text, "/p", "/p/dump.yaml", ConfigTrust::User);
    ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError()) << Text;
    EXPECT_EQ(Back->keysSet().size(), optionTable().size());
    EXPECT_EQ(writeConfig(resolveOptions(*Back)), Text);
  }
}

TEST(OptionsTest, SizesAndPaths) {
  EXPECT_EQ(parseByteSize("2G"), 2ull << 30);
  EXPECT_EQ(parseByteSize("500M"), 500ull << 20);
  EXPECT_EQ(parseByteSize("4096"), 4096u);
  EXPECT_FALSE(parseByteSize("lots"));
  MaxcodeOptions O;
  O.Tests = "tests";
  O.BuildCommand = "make";
  O.Store = "/abs/store.sqlite";
  O.resolvePaths("/p/q");
  EXPECT_EQ(O.Tests, "/p/q/tests");
  EXPECT_EQ(O.BuildCommand, "make"); // A command is no path.
  EXPECT_EQ(O.Store, "/abs/store.sqlite");
}

} // namespace
