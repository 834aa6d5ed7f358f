//===-- ConfigTest.cpp - Search options from the project ------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/Config.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

/// The options set, as `.clang-maxcode` keys in JSON (keys sorted).
std::string keysOf(const MaxcodeOptions &O) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << llvm::json::Value(O.toJSON());
  return S;
}

TEST(ConfigTest, ReadsEveryKey) {
  auto O = parseConfig(R"(
Policy: llm
Budget: 12
Measure: instructions
Scope: file
Strategy: beam
Timeout: 2.5
Tests: tests
BuildCommand: make -j4
TestCommand: make test
BenchCommand: ./bench --quick
LLMEndpoint: http://127.0.0.1:8000/v1
LLMModel: qwen2.5-coder
LLMApiKeyEnv: MY_KEY
)",
                       "/proj", "/home/u/.config/clang-maxcode/config.yaml",
                       ConfigTrust::User);
  ASSERT_TRUE(bool(O)) << llvm::toString(O.takeError());
  EXPECT_EQ(
      keysOf(*O),
      R"({"BenchCommand":"./bench --quick","Budget":12,)"
      R"("BuildCommand":"make -j4","LLMApiKeyEnv":"MY_KEY",)"
      R"("LLMEndpoint":"http://127.0.0.1:8000/v1",)"
      R"("LLMModel":"qwen2.5-coder","Measure":"instructions",)"
      R"("Policy":"llm","Scope":"file","Strategy":"beam",)"
      R"("TestCommand":"make test","Tests":"/proj/tests","Timeout":2.5})");
}

// DESIGN section 10: a repository's file may say how a search goes, never
// where code, data or secrets go; each key it may not set is named.
TEST(ConfigTest, RepositoryCannotSetTrustedKeys) {
  std::vector<std::string> Warnings;
  auto O = parseConfig(R"(
Budget: 4
LLMEndpoint: https://evil.example/v1
LLMApiKeyEnv: AWS_SECRET_ACCESS_KEY
Sandbox: none
LLMRecord: /tmp/leak
LLMReplay: replay
)",
                       "/proj", "/proj/.clang-maxcode", ConfigTrust::Repository,
                       &Warnings);
  ASSERT_TRUE(bool(O)) << llvm::toString(O.takeError());
  EXPECT_EQ(keysOf(*O), R"({"Budget":4})");
  ASSERT_EQ(Warnings.size(), 5u);
  for (const char *Key :
       {"LLMEndpoint", "LLMApiKeyEnv", "Sandbox", "LLMRecord", "LLMReplay"})
    EXPECT_TRUE(llvm::any_of(Warnings, [&](const std::string &W) {
      return llvm::StringRef(W).starts_with("/proj/.clang-maxcode: ignored '" +
                                            std::string(Key) + "'");
    })) << Key;
}

TEST(ConfigTest, RuleGlobsAndCheckOptions) {
  auto O = parseConfig(R"(
Rules: '*,-gcc-pragmas'
CheckOptions:
  - key: string-to-char-buffer.BufferSize
    value: 200001
  - key: pow-to-multiply.MaxExponent
    value: 3
)",
                       "/p", "/p/.clang-maxcode");
  ASSERT_TRUE(bool(O)) << llvm::toString(O.takeError());
  ASSERT_TRUE(O->CheckOptions.has_value());
  EXPECT_EQ(*O->CheckOptions,
            (RuleOptionList{{"string-to-char-buffer.BufferSize", "200001"},
                            {"pow-to-multiply.MaxExponent", "3"}}));
  EXPECT_EQ(O->Rules, "*,-gcc-pragmas");
  auto NoValue =
      parseConfig("CheckOptions:\n  - key: a.B\n", "/p", "/p/.clang-maxcode");
  EXPECT_FALSE(bool(NoValue));
  llvm::consumeError(NoValue.takeError());
}

TEST(ConfigTest, EmptyAndUnknownKeysAreFine) {
  auto Empty = parseConfig("", "/p", "/p/.clang-maxcode");
  ASSERT_TRUE(bool(Empty));
  EXPECT_TRUE(Empty->keysSet().empty());
  // The file is shared with other tools.
  auto Other =
      parseConfig("Checks: '*'\nBudget: 3\n", "/p", "/p/.clang-maxcode");
  ASSERT_TRUE(bool(Other)) << llvm::toString(Other.takeError());
  EXPECT_EQ(keysOf(*Other), R"({"Budget":3})");
}

TEST(ConfigTest, WrongTypesAreErrorsWithAPlace) {
  auto O =
      parseConfig("Policy: rules\nBudget: many\n", "/p", "/p/.clang-maxcode");
  ASSERT_FALSE(bool(O));
  EXPECT_EQ(llvm::toString(O.takeError()),
            "/p/.clang-maxcode:2:9: invalid number");
  auto NotAMap = parseConfig("- a\n- b\n", "/p", "/p/.clang-maxcode");
  ASSERT_FALSE(bool(NotAMap));
  EXPECT_EQ(llvm::toString(NotAMap.takeError()),
            "/p/.clang-maxcode:1:1: not a mapping");
}

TEST(ConfigTest, LaterOptionsOverrideEarlierOnesKeyByKey) {
  MaxcodeOptions File, Editor;
  File.Policy = PolicyKind::Rules;
  File.Budget = 10;
  File.Tests = "/p/tests";
  Editor.Budget = 4;
  Editor.LLMModel = "m";
  File.overrideWith(Editor);
  EXPECT_EQ(
      keysOf(File),
      R"({"Budget":4,"LLMModel":"m","Policy":"rules","Tests":"/p/tests"})");
}

TEST(ConfigTest, FindsTheNearestFileUpward) {
  llvm::SmallString<128> Root;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("maxcode-config", Root));
  llvm::SmallString<128> Sub(Root);
  llvm::sys::path::append(Sub, "src", "deep");
  ASSERT_FALSE(llvm::sys::fs::create_directories(Sub));
  auto Write = [](llvm::StringRef Path, llvm::StringRef Text) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    OS << Text;
  };
  std::string RootConfig = (Root + "/.clang-maxcode").str();
  Write(RootConfig, "Budget: 7\nTests: t\n");
  std::string Source = (Sub + "/a.cpp").str();
  EXPECT_EQ(findConfigFile(Source), RootConfig);
  auto O = loadConfigFile(RootConfig);
  ASSERT_TRUE(bool(O)) << llvm::toString(O.takeError());
  EXPECT_EQ(O->Tests, (Root + "/t").str());

  std::string Nearer = (Sub + "/.clang-maxcode").str();
  Write(Nearer, "Budget: 1\n");
  EXPECT_EQ(findConfigFile(Source), Nearer);
  llvm::sys::fs::remove_directories(Root);
}

} // namespace
