//===-- RolloutStoreTest.cpp - Runs, nodes and what they teach ------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The rollout store on a real SQLite file: runs begun, resumed and
// finished; nodes written as evaluated; what the reward-to-go models learn
// from (finished runs only, with their final values); LLM calls.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Search/RolloutStore.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <sqlite3.h>

using namespace maxcode;

namespace {

class RolloutStoreTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("maxcode-store", Dir));
    Path = (Dir + "/rollouts.sqlite").str();
    Store = openStore();
    ASSERT_TRUE(Store);
  }
  void TearDown() override {
    Store.reset();
    llvm::sys::fs::remove_directories(Dir);
  }

  /// A new connection to the same file (another process's, in effect).
  std::unique_ptr<RolloutStore> openStore() {
    auto F = SQLiteFile::open(Path);
    if (!F) {
      ADD_FAILURE() << llvm::toString(F.takeError());
      return nullptr;
    }
    auto S = RolloutStore::open(*F);
    if (!S) {
      ADD_FAILURE() << llvm::toString(S.takeError());
      return nullptr;
    }
    return std::move(*S);
  }

  static RunInfo info(llvm::StringRef Config = "{\"seed\":1}") {
    return {"/src/a.cpp", "work", "int work() { return 1; }", Config.str()};
  }

  /// Node \p Id under \p Parent (-1: the root) with reward \p Reward and
  /// max-backup value \p Value.
  static Node node(unsigned Id, int Parent, double Reward, double Value) {
    Node N;
    N.Id = Id;
    N.Parent = Parent;
    N.Depth = Parent < 0 ? 0 : 1;
    N.V.Text = "int work() { return " + std::to_string(Id) + "; }";
    N.V.Description = "variant " + std::to_string(Id);
    N.Hash = "hash" + std::to_string(Id);
    N.Result.Status = EvalStatus::Ok;
    N.Result.Ratio = Reward;
    N.Reward = Reward;
    N.Value = Value;
    N.Features.Depth = N.Depth;
    N.Features.ChangedLines = Id;
    return N;
  }

  llvm::SmallString<128> Dir;
  std::string Path;
  std::unique_ptr<RolloutStore> Store;
};

TEST_F(RolloutStoreTest, ResumeContinuesTheUnfinishedRunOfTheSameSearch) {
  bool Resumed = true;
  auto First = Store->beginRun(info(), /*Resume=*/false, Resumed);
  ASSERT_TRUE(bool(First)) << llvm::toString(First.takeError());
  EXPECT_FALSE(Resumed);

  // Another process resumes it: same file, text, target and settings.
  auto Again = openStore();
  auto Second = Again->beginRun(info(), /*Resume=*/true, Resumed);
  ASSERT_TRUE(bool(Second)) << llvm::toString(Second.takeError());
  EXPECT_TRUE(Resumed);
  EXPECT_EQ(*Second, *First);

  // Other settings are another search.
  auto Other = Again->beginRun(info("{\"seed\":2}"), true, Resumed);
  ASSERT_TRUE(bool(Other)) << llvm::toString(Other.takeError());
  EXPECT_FALSE(Resumed);
  EXPECT_NE(*Other, *First);

  // The unfinished run under other settings is named, so that --resume can
  // say what differs; never the run's own.
  std::optional<std::string> Before = Again->otherUnfinishedConfig(info());
  ASSERT_TRUE(Before.has_value());
  EXPECT_EQ(*Before, info("{\"seed\":2}").ConfigJSON);
  EXPECT_EQ(*Again->otherUnfinishedConfig(info("{\"seed\":2}")),
            info().ConfigJSON);

  // Without --resume, a new run even where one could be resumed.
  auto Fresh = Again->beginRun(info(), false, Resumed);
  ASSERT_TRUE(bool(Fresh)) << llvm::toString(Fresh.takeError());
  EXPECT_FALSE(Resumed);
  EXPECT_NE(*Fresh, *First);
}

TEST_F(RolloutStoreTest, AFinishedRunIsNotResumed) {
  bool Resumed = false;
  auto First = Store->beginRun(info(), false, Resumed);
  ASSERT_TRUE(bool(First)) << llvm::toString(First.takeError());
  SearchResult R;
  R.Nodes = {node(0, -1, 1, 1)};
  R.StopReason = "budget";
  ASSERT_FALSE(bool(Store->finishRun(R)));
  auto Second = openStore()->beginRun(info(), true, Resumed);
  ASSERT_TRUE(bool(Second)) << llvm::toString(Second.takeError());
  EXPECT_FALSE(Resumed);
  EXPECT_NE(*Second, *First);
}

TEST_F(RolloutStoreTest, TrainingDataIsFinishedRunsWithTheirFinalValues) {
  bool Resumed = false;
  ASSERT_TRUE(bool(Store->beginRun(info(), false, Resumed)));
  SearchResult R;
  R.Nodes = {node(0, -1, 1, 1), node(1, 0, 1.5, 1.5), node(2, 0, 2, 2)};
  for (const Node &N : R.Nodes)
    Store->nodeAdded(N);
  ASSERT_FALSE(bool(Store->takeError()));
  // Before the run ends, its values are not final: nothing to learn.
  auto Before = Store->rtgExamples();
  ASSERT_TRUE(bool(Before)) << llvm::toString(Before.takeError());
  EXPECT_TRUE(Before->empty());

  // The max backup raised node 1's value after it was written.
  R.Nodes[1].Value = 3;
  R.Winner = 2;
  R.StopReason = "budget";
  ASSERT_FALSE(bool(Store->finishRun(R)));
  auto After = Store->rtgExamples();
  ASSERT_TRUE(bool(After)) << llvm::toString(After.takeError());
  ASSERT_EQ(After->size(), 2u); // The root is no candidate.
  EXPECT_DOUBLE_EQ((*After)[0].Target, 3);
  EXPECT_DOUBLE_EQ((*After)[0].Features.ChangedLines, 1);
  EXPECT_DOUBLE_EQ((*After)[1].Target, 2);
  EXPECT_NE((*After)[0].Id, (*After)[1].Id);

  // The few-shot examples of the target, oldest first; none of another.
  auto Shots = Store->rtgShots("work", 10);
  ASSERT_TRUE(bool(Shots)) << llvm::toString(Shots.takeError());
  ASSERT_EQ(Shots->size(), 2u);
  EXPECT_EQ((*Shots)[0].Description, "variant 1");
  EXPECT_EQ((*Shots)[1].Description, "variant 2");
  auto None = Store->rtgShots("other", 10);
  ASSERT_TRUE(bool(None));
  EXPECT_TRUE(None->empty());
  auto One = Store->rtgShots("work", 1);
  ASSERT_TRUE(bool(One));
  ASSERT_EQ(One->size(), 1u);
  EXPECT_EQ((*One)[0].Description, "variant 2"); // The newest.
}

TEST_F(RolloutStoreTest, ANodeWrittenAgainReplacesItself) {
  // A resumed run replays its nodes from the cache: written again, not
  // twice.
  bool Resumed = false;
  ASSERT_TRUE(bool(Store->beginRun(info(), false, Resumed)));
  SearchResult R;
  R.Nodes = {node(0, -1, 1, 1), node(1, 0, 1.5, 1.5)};
  for (int Pass = 0; Pass < 2; ++Pass)
    for (const Node &N : R.Nodes)
      Store->nodeAdded(N);
  ASSERT_FALSE(bool(Store->finishRun(R)));
  auto Examples = Store->rtgExamples();
  ASSERT_TRUE(bool(Examples));
  EXPECT_EQ(Examples->size(), 1u);
}

TEST_F(RolloutStoreTest, DatasetRowsCarryObservationCandidateAndFuture) {
  bool Resumed = false;
  ASSERT_TRUE(bool(Store->beginRun(info(), false, Resumed)));
  SearchResult R;
  R.Nodes = {node(0, -1, 1, 2), node(1, 0, 2, 2)};
  R.Nodes[0].Crit.Text = "the loop divides";
  for (const Node &N : R.Nodes)
    Store->nodeAdded(N);
  ASSERT_FALSE(bool(Store->finishRun(R)));
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  ASSERT_FALSE(bool(Store->exportRTGDataset(OS)));
  llvm::StringRef Line = llvm::StringRef(Out).trim();
  ASSERT_EQ(Line.count('\n'), 0u) << Out; // One candidate, one line.
  auto V = llvm::json::parse(Line);
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  const llvm::json::Object *O = V->getAsObject();
  ASSERT_TRUE(O);
  const llvm::json::Object *Obs = O->getObject("observation");
  ASSERT_TRUE(Obs);
  EXPECT_EQ(Obs->getString("target"), "work");
  EXPECT_EQ(Obs->getString("critique"), "the loop divides");
  EXPECT_EQ(Obs->getString("current_code"), R.Nodes[0].V.Text);
  EXPECT_EQ(O->getObject("candidate")->getString("code"), R.Nodes[1].V.Text);
  EXPECT_EQ(O->getNumber("max_future_reward"), 2.0);
  EXPECT_EQ(O->getString("status"), "ok");
}

TEST_F(RolloutStoreTest, ModelsAreKeptNewestFirst) {
  auto None = Store->latestRTGModel();
  ASSERT_FALSE(bool(None));
  EXPECT_NE(llvm::toString(None.takeError()).find("--train-rtg"),
            std::string::npos);
  std::vector<RTGExample> Examples;
  for (unsigned I = 0; I < 8; ++I) {
    RTGExample E;
    E.Features.ChangedLines = I;
    E.Target = 1 + I;
    E.Id = I;
    Examples.push_back(E);
  }
  auto M = LearnedRTG::fit(Examples);
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  ASSERT_FALSE(bool(Store->saveRTGModel(**M, 0.9, 8)));
  auto Latest = openStore()->latestRTGModel();
  ASSERT_TRUE(bool(Latest)) << llvm::toString(Latest.takeError());
  EXPECT_EQ(llvm::json::Value((*Latest)->toJSON()),
            llvm::json::Value((*M)->toJSON()));
}

TEST_F(RolloutStoreTest, LLMCallsAreRecorded) {
  bool Resumed = false;
  ASSERT_TRUE(bool(Store->beginRun(info(), false, Resumed)));
  LLMCallRow Row;
  Row.Role = "proposer";
  Row.Model = "m";
  Row.RequestHash = "abc";
  Row.PromptTokens = 10;
  Row.CompletionTokens = 5;
  Row.Attempts = 1;
  Row.NotesJSON = "[\"used\"]";
  EXPECT_FALSE(bool(Store->recordLLMCall(Row)));
  Row.Error = "the endpoint is down";
  Row.RequestHash.clear();
  EXPECT_FALSE(bool(Store->recordLLMCall(Row)));
  // Both, with the run they belong to and what became of them.
  auto F = SQLiteFile::open(Path);
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  sqlite3_stmt *S = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2((*F)->handle(),
                               "SELECT run_id, role, error FROM llm_calls "
                               "ORDER BY id",
                               -1, &S, nullptr),
            SQLITE_OK);
  auto Text = [&](int Column) {
    const unsigned char *T = sqlite3_column_text(S, Column);
    return T ? std::string(reinterpret_cast<const char *>(T)) : "(null)";
  };
  std::vector<std::string> Rows;
  while (sqlite3_step(S) == SQLITE_ROW)
    Rows.push_back(Text(0) + " " + Text(1) + " [" + Text(2) + "]");
  sqlite3_finalize(S);
  std::string Run = std::to_string(Store->runId());
  EXPECT_EQ(Rows, (std::vector<std::string>{
                      Run + " proposer []",
                      Run + " proposer [the endpoint is down]"}));
}

TEST_F(RolloutStoreTest, AStoreThatIsNoDatabaseIsRefused) {
  std::string Bad = (Dir + "/not-a-store").str();
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Bad, EC);
    ASSERT_FALSE(EC);
    OS << "this is not SQLite, and it is long enough to have a header "
          "that SQLite would read as its own; it does not.\n";
  }
  auto F = SQLiteFile::open(Bad);
  if (!F) {
    EXPECT_NE(llvm::toString(F.takeError()).find("not-a-store"),
              std::string::npos);
    return;
  }
  auto S = RolloutStore::open(*F);
  EXPECT_FALSE(bool(S));
  if (!S)
    llvm::consumeError(S.takeError());
}

} // namespace
