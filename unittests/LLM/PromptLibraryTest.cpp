//===-- PromptLibraryTest.cpp - Prompt templates --------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/LLM/PromptLibrary.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <algorithm>

using namespace maxcode;

namespace {

using Values = std::map<std::string, std::string>;

PromptTemplate parse(llvm::StringRef Text) {
  auto T = PromptTemplate::parse("t", Text);
  EXPECT_TRUE(bool(T)) << llvm::toString(T.takeError());
  return T ? std::move(*T) : llvm::cantFail(PromptTemplate::parse("t", "x"));
}

std::string render(const PromptTemplate &T, const Values &V) {
  auto S = T.render(V);
  EXPECT_TRUE(bool(S)) << llvm::toString(S.takeError());
  return S ? *S : "";
}

TEST(PromptTemplateTest, ReplacesPlaceholders) {
  PromptTemplate T = parse("Make {{name}} faster; {{ name }} is {{kind}}.");
  EXPECT_EQ(T.placeholders(), (std::vector<std::string>{"kind", "name"}));
  EXPECT_EQ(render(T, {{"name", "f"}, {"kind", "hot"}}),
            "Make f faster; f is hot.\n");
}

TEST(PromptTemplateTest, MissingValueIsAnErrorNamingIt) {
  auto T = PromptTemplate::parse("critic", "{{a}} {{b}} {{c}}", "/p/critic.md");
  ASSERT_TRUE(bool(T));
  auto S = T->render({{"b", "x"}});
  ASSERT_FALSE(bool(S));
  EXPECT_EQ(llvm::toString(S.takeError()),
            "prompt template 'critic' (/p/critic.md) has no value for "
            "placeholders 'a', 'c'");
  auto One = T->render({{"a", "x"}, {"b", "y"}});
  ASSERT_FALSE(bool(One));
  EXPECT_EQ(llvm::toString(One.takeError()),
            "prompt template 'critic' (/p/critic.md) has no value for "
            "placeholder 'c'");
}

TEST(PromptTemplateTest, ExtraValuesAreFine) {
  EXPECT_EQ(render(parse("{{a}}"), {{"a", "1"}, {"unused", "2"}}), "1\n");
}

TEST(PromptTemplateTest, ValuesAreNotScannedAgain) {
  // Code often holds "{{": it must come out as it went in.
  EXPECT_EQ(render(parse("code: {{code}}"),
                   {{"code", "int a[2][2] = {{1, 2}, {3, 4}}; {{code}}"}}),
            "code: int a[2][2] = {{1, 2}, {3, 4}}; {{code}}\n");
}

TEST(PromptTemplateTest, OtherBracesAreText) {
  PromptTemplate T = parse("{{ not a name! }} {{1x}} {x} {{y}");
  EXPECT_TRUE(T.placeholders().empty());
  EXPECT_EQ(render(T, {}), "{{ not a name! }} {{1x}} {x} {{y}\n");
}

TEST(PromptTemplateTest, RolesAndComments) {
  PromptTemplate T = parse("<!-- a note\n spanning lines -->\n"
                           "<!-- role: system -->\n"
                           "You are {{who}}.\n"
                           "<!-- role: user -->\n"
                           "Do {{what}}. <!-- inline note -->Now.\n");
  auto M = T.renderMessages({{"who", "an expert"}, {"what", "this"}});
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  ASSERT_EQ(M->size(), 2u);
  EXPECT_EQ((*M)[0].Role, "system");
  EXPECT_EQ((*M)[0].Content, "You are an expert.");
  EXPECT_EQ((*M)[1].Role, "user");
  EXPECT_EQ((*M)[1].Content, "Do this. Now.");
  EXPECT_EQ(render(T, {{"who", "an expert"}, {"what", "this"}}),
            "You are an expert.\n\nDo this. Now.\n");
}

TEST(PromptTemplateTest, TextWithoutRolesIsOneUserMessage) {
  auto M = parse("just {{x}}").renderMessages({{"x", "this"}});
  ASSERT_TRUE(bool(M));
  ASSERT_EQ(M->size(), 1u);
  EXPECT_EQ((*M)[0].Role, "user");
  EXPECT_EQ((*M)[0].Content, "just this");
}

TEST(PromptTemplateTest, UnclosedCommentIsAnError) {
  auto T = PromptTemplate::parse("t", "a\nb <!-- oops\n");
  ASSERT_FALSE(bool(T));
  EXPECT_EQ(llvm::toString(T.takeError()),
            "prompt template 't': comment on line 2 is not closed with -->");
}

TEST(PromptTemplateTest, EmptyTemplateIsAnError) {
  auto T = PromptTemplate::parse("t", "<!-- only a note -->\n");
  EXPECT_FALSE(bool(T));
  llvm::consumeError(T.takeError());
}

// The shipped templates and the placeholders docs/LLM.md promises for them.
const std::map<std::string, std::vector<std::string>> &shipped() {
  static const std::map<std::string, std::vector<std::string>> Expected = {
      {"proposer-cpp",
       {"best_speedup", "build", "context", "critique", "current_code",
        "feedback", "gamma", "history", "measure", "original_code", "standard",
        "standard_note", "target_kind", "target_name", "target_signature", "u",
        "workload"}},
      {"proposer-cuda",
       {"best_speedup", "build", "context", "critique", "current_code",
        "feedback", "gamma", "history", "launch_sites", "measure",
        "original_code", "standard", "standard_note", "target_kind",
        "target_name", "target_signature", "u", "workload"}},
      {"critic",
       {"build", "feedback", "language", "measure", "original_code",
        "target_kind", "target_name", "target_signature", "variant_code"}},
      {"rtg",
       {"best_speedup", "bins", "current_code", "examples", "language",
        "original_code", "target_kind", "target_name", "target_signature", "u",
        "variant_code"}},
      {"simplify",
       {"build", "changed_lines", "language", "measure", "original_code",
        "speedup", "standard", "target_kind", "target_name", "winner_diff"}},
  };
  return Expected;
}

TEST(PromptLibraryTest, ShippedTemplatesRender) {
  PromptLibrary Lib({std::string(MAXCODE_SOURCE_DIR "/prompts")});
  for (const auto &[Name, Placeholders] : shipped()) {
    auto T = Lib.get(Name);
    ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
    EXPECT_EQ(T->placeholders(), Placeholders) << Name;
    Values V;
    for (const std::string &P : Placeholders)
      V[P] = "<" + P + " value>";
    auto M = Lib.renderMessages(Name, V);
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    ASSERT_EQ(M->size(), 2u) << Name;
    EXPECT_EQ((*M)[0].Role, "system");
    EXPECT_EQ((*M)[1].Role, "user");
    std::string All = (*M)[0].Content + (*M)[1].Content;
    for (const std::string &P : Placeholders)
      EXPECT_NE(All.find("<" + P + " value>"), std::string::npos)
          << Name << ": " << P;
    // Nothing meant for template authors reaches the model.
    for (const ChatMessage &Msg : *M) {
      EXPECT_EQ(Msg.Content.find("<!--"), std::string::npos) << Name;
      EXPECT_EQ(Msg.Content.find("{{"), std::string::npos) << Name;
    }
    // Leaving any one placeholder out is an error naming it.
    for (const std::string &P : Placeholders) {
      Values Less = V;
      Less.erase(P);
      auto S = Lib.render(Name, Less);
      ASSERT_FALSE(bool(S)) << Name << ": " << P;
      EXPECT_NE(llvm::toString(S.takeError()).find("placeholder '" + P + "'"),
                std::string::npos);
    }
  }
}

TEST(PromptLibraryTest, ProposersAskForOneFencedBlock) {
  PromptLibrary Lib({std::string(MAXCODE_SOURCE_DIR "/prompts")});
  for (llvm::StringRef Name : {"proposer-cpp", "proposer-cuda"}) {
    Values V;
    for (const std::string &P : shipped().at(Name.str()))
      V[P] = "";
    V["target_name"] = "histogram";
    auto S = Lib.render(Name, V);
    ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
    std::string OneLine = *S;
    std::replace(OneLine.begin(), OneLine.end(), '\n', ' ');
    EXPECT_NE(OneLine.find("exactly one fenced code block"), std::string::npos)
        << *S;
    EXPECT_NE(S->find("the full new definition of histogram"),
              std::string::npos);
  }
}

TEST(PromptLibraryTest, DefaultSearchPathStartsNextToTheBinary) {
  // The unit-test binary lives in <build>/unittests, as clang-maxcode lives
  // in <build>/bin: ../share/clang-maxcode/prompts is the build tree's copy.
  static int Anchor;
  std::vector<std::string> Path = PromptLibrary::defaultSearchPath(
      testing::internal::GetArgvs()[0].c_str(), &Anchor);
  ASSERT_EQ(Path.size(), 2u);
  EXPECT_TRUE(
      llvm::StringRef(Path[0]).ends_with("/share/clang-maxcode/prompts"))
      << Path[0];
  EXPECT_EQ(Path[1], MAXCODE_SOURCE_DIR "/prompts");
  llvm::SmallString<256> Copy(Path[0]);
  llvm::sys::path::append(Copy, "proposer-cpp.md");
  EXPECT_TRUE(llvm::sys::fs::exists(Copy)) << Copy.str().str();

  PromptLibrary Lib("", testing::internal::GetArgvs()[0].c_str(), &Anchor);
  auto T = Lib.get("critic");
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_EQ(llvm::sys::path::parent_path(T->path()), Path[0]);
}

TEST(PromptLibraryTest, ExplicitDirectoryIsTheOnlyOneSearched) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("maxcode-prompts", Dir));
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS((Dir + "/critic.md").str(), EC);
    ASSERT_FALSE(EC);
    OS << "My own critic for {{target_name}}.\n";
  }
  PromptLibrary Lib(Dir, nullptr, nullptr);
  auto S = Lib.render("critic", {{"target_name", "f"}});
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  EXPECT_EQ(*S, "My own critic for f.\n");
  auto Missing = Lib.get("rtg");
  ASSERT_FALSE(bool(Missing));
  EXPECT_EQ(llvm::toString(Missing.takeError()),
            "no prompt template 'rtg' (rtg.md) in " + std::string(Dir));
  auto Bad = Lib.get("../critic");
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(llvm::toString(Bad.takeError()).find("invalid prompt template"),
            std::string::npos);
  llvm::sys::fs::remove_directories(Dir);
}

} // namespace
