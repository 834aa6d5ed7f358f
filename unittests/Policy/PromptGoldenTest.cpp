//===-- PromptGoldenTest.cpp - Every prompt, as it is sent ----------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Each prompt rendered for one fixed search state and compared with the text
// checked in under Inputs/prompts: a change to what a model is told, from a
// template or from the code that fills it, is a change of those files, seen
// in review. MAXCODE_UPDATE_GOLDEN=1 writes them anew.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/Discovery.h"
#include "maxcode/Policy/LLMPolicy.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

const char *Path = "/golden/prog.cpp";

const char *Original = R"(#include <cstdio>
#include <cstdlib>

#define MAXN 100000

struct Pair {
  int Key;
  int Value;
};

static int scale(int X) { return X * 3; }

long total(const Pair *P, int N) {
  long S = 0;
  for (int I = 0; I < N; ++I)
    S += scale(P[I].Value) % MAXN;
  return S;
}

int main() {
  static Pair P[MAXN];
  int N;
  if (scanf("%d", &N) != 1)
    return 1;
  for (int I = 0; I < N; ++I)
    if (scanf("%d %d", &P[I].Key, &P[I].Value) != 2)
      return 1;
  for (int Round = 0; Round < 3; ++Round)
    printf("%ld\n", total(P, N));
}
)";

const char *Current = R"(#include <cstdio>
#include <cstdlib>

#define MAXN 100000

struct Pair {
  int Key;
  int Value;
};

static int scale(int X) { return X * 3; }

static inline long addScaled(long S, int V) { return S + scale(V) % MAXN; }

long total(const Pair *P, int N) {
  long S = 0;
  for (int I = 0; I < N; ++I)
    S = addScaled(S, P[I].Value);
  return S;
}

int main() {
  static Pair P[MAXN];
  int N;
  if (scanf("%d", &N) != 1)
    return 1;
  for (int I = 0; I < N; ++I)
    if (scanf("%d %d", &P[I].Key, &P[I].Value) != 2)
      return 1;
  for (int Round = 0; Round < 3; ++Round)
    printf("%ld\n", total(P, N));
}
)";

clang::tooling::CompileCommand command() {
  clang::tooling::CompileCommand C;
  C.Directory = "/";
  C.Filename = Path;
  C.CommandLine = {"g++", "-std=c++17", "-O2", Path};
  return C;
}

ParseSettings settings() {
  ParseSettings S;
  S.ResourceDir = MAXCODE_CLANG_RESOURCE_DIR;
  return S;
}

/// The target in \p Text.
Target targetIn(llvm::StringRef Text) {
  auto F = parseTargets(command(), Path, settings(), llvm::nulls(), Text);
  EXPECT_TRUE(bool(F)) << llvm::toString(F.takeError());
  if (!F)
    return Target();
  const Target *T = F->find("total");
  EXPECT_NE(T, nullptr);
  return T ? *T : Target();
}

PromptFacts facts() {
  WorkloadFacts W;
  InputFacts A;
  A.Name = "big.in";
  A.Bytes = 1288890;
  A.Lines = 100001;
  A.Numbers = 200001;
  A.Largest = "99999";
  A.Timed = true;
  InputFacts B = A;
  B.Name = "small.in";
  B.Bytes = 37;
  B.Lines = 4;
  B.Numbers = 7;
  B.Largest = "40";
  W.Inputs = {A, B};
  W.HeldOutInputs = 1;
  W.Head = "100000\n1 31\n2 27\n3 99999";
  W.CostUnit = "instructions";
  W.BaselineCost = 91234567;
  W.BaselineHotLines = {{16, 0.612}, {15, 0.201}, {27, 0.0004}};
  PromptFacts F;
  F.Build = "g++ -std=c++17 -O2";
  F.Measure = describeMeasure(MeasureMode::Instructions, /*Bench=*/false);
  F.Workload = describeWorkload(W, Original, targetIn(Original));
  F.Gamma = 0.9;
  F.ContextTokens = 3000;
  return F;
}

/// The search state: the root expanded once, its child (Current) evaluated,
/// faster, critiqued; one reply for it did not compile.
Observation observation() {
  Observation O;
  O.OriginalTarget = targetIn(Original);
  O.OriginalText = Original;
  O.CurrentText = Current;
  EvalResult R;
  R.Status = EvalStatus::Ok;
  R.Reason = "faster";
  R.TestsPassed = R.TestsTotal = 2;
  R.CostUnit = "instructions";
  R.BaselineCost = 91234567;
  R.VariantCost = 70111222;
  R.Ratio = R.RawRatio = 91234567.0 / 70111222;
  R.Noise = 0.002;
  R.HotLines = {{18, 0.40}, {13, 0.31}, {17, 0.12}};
  R.Notes = {"the build is not incremental: a note of the tool's own"};
  O.Feedback = R;
  Critique C;
  C.Text = "[faster] 1.30x faster than the baseline.\n[hot-loop] the loop at "
           "line 17 holds half the cost.";
  C.Tags = {CritiqueTag::Faster, CritiqueTag::HotLoop};
  O.Critiques = {C};
  Attempt A{"llm sample 1 of expansion 1 (a helper for the scaled sum)",
            {"llm"},
            EvalStatus::Ok,
            R.Ratio};
  O.CritiquedAttempts = {A};
  O.History = {A,
               {"llm sample 2 of expansion 1 (a lookup table)",
                {"llm"},
                EvalStatus::WrongOutput,
                0.03}};
  O.IncumbentText = Current;
  O.IncumbentReward = R.Ratio;
  O.U = 0.9 * R.Ratio;
  O.Depth = 1;
  return O;
}

/// \p Messages in the templates' own syntax.
std::string textOf(const std::vector<ChatMessage> &Messages) {
  std::string S;
  for (const ChatMessage &M : Messages)
    S += "<!-- role: " + M.Role + " -->\n" + M.Content + "\n";
  return S;
}

/// Compares \p Got with Inputs/prompts/\p Name.txt, or writes it there.
void expectGolden(llvm::StringRef Name, const std::string &Got) {
  std::string File =
      std::string(MAXCODE_SOURCE_DIR "/unittests/Policy/Inputs/prompts/") +
      Name.str() + ".txt";
  if (llvm::sys::Process::GetEnv("MAXCODE_UPDATE_GOLDEN")) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(File, EC);
    ASSERT_FALSE(EC) << EC.message();
    OS << Got;
    return;
  }
  auto Want = llvm::MemoryBuffer::getFile(File);
  ASSERT_TRUE(bool(Want)) << File << ": " << Want.getError().message()
                          << " (MAXCODE_UPDATE_GOLDEN=1 writes it)";
  EXPECT_EQ((*Want)->getBuffer().str(), Got)
      << Name.str() << " changed; if that is meant, run the test with "
      << "MAXCODE_UPDATE_GOLDEN=1 and review the diff of " << File;
}

PromptLibrary &library() {
  static PromptLibrary L({std::string(MAXCODE_SOURCE_DIR "/prompts")});
  return L;
}

TEST(PromptGoldenTest, Proposer) {
  PromptFacts F = facts();
  std::vector<std::string> Unusable = {
      "the code does not compile: line 14:3: error: use of undeclared "
      "identifier 'addScaledTwice'"};
  auto M = renderProposerPrompt(
      library(), {command(), Path, settings(), F, Unusable}, observation());
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  expectGolden("proposer-cpp", textOf(*M));
}

TEST(PromptGoldenTest, ProposerAtTheRoot) {
  PromptFacts F = facts();
  Observation O;
  O.OriginalTarget = targetIn(Original);
  O.OriginalText = O.CurrentText = O.IncumbentText = Original;
  auto M =
      renderProposerPrompt(library(), {command(), Path, settings(), F, {}}, O);
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  expectGolden("proposer-cpp-root", textOf(*M));
}

TEST(PromptGoldenTest, Critic) {
  Observation Parent;
  Parent.OriginalTarget = targetIn(Original);
  Parent.OriginalText = Parent.CurrentText = Original;
  Observation O = observation();
  Variant V;
  V.Text = Current;
  auto M = renderCriticPrompt(library(), facts(), *O.Feedback, V, Parent,
                              O.Critiques.front().Text);
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  expectGolden("critic", textOf(*M));
}

TEST(PromptGoldenTest, RewardToGo) {
  Variant V;
  V.Text = Current;
  V.Description = "llm sample 1 of expansion 2 (unrolled by two)";
  std::vector<RTGShot> Shots = {{"an earlier run's winner", "ok", 1.42}};
  auto M = renderRTGPrompt(library(), observation(), V, Shots);
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  expectGolden("rtg", textOf(*M));
}

TEST(PromptGoldenTest, Simplify) {
  PromptFacts F = facts();
  auto M = renderSimplifyPrompt(library(), {command(), Path, settings(), F, {}},
                                observation());
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  expectGolden("simplify", textOf(*M));
}

} // namespace
