//===-- LLMClientTest.cpp - The chat client against a real server ---------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Every test here talks HTTP over loopback to utils/scripted-llm-server.py,
// started as a real process, and checks what the client returned against
// what the server says it received.
//
//===----------------------------------------------------------------------===//

#include "maxcode/LLM/LLMClient.h"
#include "maxcode/Support/Process.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <chrono>
#include <cstdlib>
#include <thread>

using namespace maxcode;

namespace {

std::string readFile(llvm::StringRef Path) {
  auto B = llvm::MemoryBuffer::getFile(Path);
  return B ? (*B)->getBuffer().str() : std::string();
}

void writeFile(llvm::StringRef Path, llvm::StringRef Text) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  ASSERT_FALSE(EC) << EC.message();
  OS << Text;
}

/// A scratch directory removed at the end of the test.
class TempDir {
public:
  TempDir() {
    std::error_code EC =
        llvm::sys::fs::createUniqueDirectory("maxcode-llm-test", Path);
    EXPECT_FALSE(EC) << EC.message();
  }
  ~TempDir() { llvm::sys::fs::remove_directories(Path); }
  std::string path(llvm::StringRef Name = "") const {
    llvm::SmallString<256> P(Path);
    if (!Name.empty())
      llvm::sys::path::append(P, Name);
    return std::string(P);
  }

private:
  llvm::SmallString<256> Path;
};

/// utils/scripted-llm-server.py, started with its own start/stop helper.
class ScriptedServer {
public:
  explicit ScriptedServer(llvm::StringRef ScriptJSON) {
    writeFile(Dir.path("script.json"), ScriptJSON);
    ProcessResult R = helper({"start", "--script", Dir.path("script.json"),
                              "--state", Dir.path("state")});
    EXPECT_TRUE(R.succeeded()) << R.describe() << "\n" << R.Stderr;
    URL = llvm::StringRef(R.Stdout).trim().str();
    Running = R.succeeded();
  }
  ~ScriptedServer() { stop(); }

  void stop() {
    if (!Running)
      return;
    ProcessResult R = helper({"stop", "--state", Dir.path("state")});
    EXPECT_TRUE(R.succeeded()) << R.describe() << "\n" << R.Stderr;
    Running = false;
  }

  /// The requests the server logged, waiting (a little) until there are at
  /// least \p AtLeast: a request is logged when the server is done with it,
  /// which for a slow reply may be after the client gave up.
  std::vector<llvm::json::Value> requests(size_t AtLeast = 0) const {
    std::vector<llvm::json::Value> Out;
    auto Deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (true) {
      Out.clear();
      llvm::SmallVector<llvm::StringRef> Lines;
      std::string Text = readFile(Dir.path("state/requests.jsonl"));
      llvm::StringRef(Text).split(Lines, '\n', -1, /*KeepEmpty=*/false);
      for (llvm::StringRef L : Lines) {
        auto V = llvm::json::parse(L);
        EXPECT_TRUE(bool(V)) << llvm::toString(V.takeError());
        if (V)
          Out.push_back(std::move(*V));
      }
      if (Out.size() >= AtLeast || std::chrono::steady_clock::now() > Deadline)
        return Out;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  std::string requestLog() const {
    return readFile(Dir.path("state/requests.jsonl"));
  }

  std::string URL;

private:
  ProcessResult helper(std::vector<std::string> Args) {
    ProcessSpec S;
    S.Argv = {MAXCODE_PYTHON,
              MAXCODE_SOURCE_DIR "/utils/scripted-llm-server.py"};
    S.Argv.insert(S.Argv.end(), Args.begin(), Args.end());
    S.Limits.WallSeconds = 60;
    auto R = runProcess(S);
    EXPECT_TRUE(bool(R)) << llvm::toString(R.takeError());
    return R ? *R : ProcessResult();
  }

  TempDir Dir;
  bool Running = false;
};

LLMOptions optionsFor(const ScriptedServer &S) {
  LLMOptions O;
  O.Endpoint = S.URL;
  O.Model = "test-model";
  O.ApiKeyEnv = "MAXCODE_TEST_LLM_KEY_UNSET";
  O.RetryBaseDelaySeconds = 0.01;
  O.RetryMaxDelaySeconds = 0.05;
  O.ConnectTimeoutSeconds = 5;
  O.TimeoutSeconds = 20;
  return O;
}

std::unique_ptr<LLMClient> makeClient(const LLMOptions &O) {
  auto C = LLMClient::create(O);
  EXPECT_TRUE(bool(C)) << llvm::toString(C.takeError());
  return C ? std::move(*C) : nullptr;
}

ChatRequest ask(llvm::StringRef Prompt) {
  ChatRequest R;
  R.Messages = {{"system", "You are terse."}, {"user", Prompt.str()}};
  return R;
}

/// The error message of \p E, which must be an error.
template <typename T> std::string errorOf(llvm::Expected<T> E) {
  EXPECT_FALSE(bool(E)) << "expected an error";
  if (E)
    return "";
  return llvm::toString(E.takeError());
}

double number(const llvm::json::Value &V, llvm::StringRef Key) {
  return V.getAsObject()->getNumber(Key).value_or(-1);
}

TEST(LLMClientTest, NormalExchangeWithUsage) {
  ScriptedServer S(R"({"replies": [
    {"contents": ["first ```cpp\nint f();\n```", "second"],
     "usage": {"prompt_tokens": 11, "completion_tokens": 7}}]})");
  auto C = makeClient(optionsFor(S));
  ChatRequest R = ask("make it fast");
  R.N = 2;
  R.Temperature = 0.25;
  R.MaxTokens = 123;
  R.Seed = 42;
  R.Stop = {"END"};
  auto Reply = C->complete(R);
  ASSERT_TRUE(bool(Reply)) << llvm::toString(Reply.takeError());
  ASSERT_EQ(Reply->Choices.size(), 2u);
  EXPECT_EQ(Reply->Choices[0].Content, "first ```cpp\nint f();\n```");
  EXPECT_EQ(Reply->Choices[1].Content, "second");
  EXPECT_EQ(Reply->Choices[0].FinishReason, "stop");
  EXPECT_EQ(Reply->Usage.PromptTokens, 11u);
  EXPECT_EQ(Reply->Usage.CompletionTokens, 7u);
  EXPECT_EQ(Reply->Model, "test-model");
  EXPECT_EQ(Reply->Attempts, 1u);
  EXPECT_FALSE(Reply->Replayed);
  EXPECT_EQ(Reply->RequestHash, requestHash(R, C->options()));
  EXPECT_EQ(C->totalUsage().total(), 18u);
  EXPECT_EQ(C->completedCalls(), 1u);
  EXPECT_EQ(C->completionsURL(), S.URL + "/chat/completions");

  // What went over the wire.
  auto Log = S.requests(1);
  ASSERT_EQ(Log.size(), 1u);
  const llvm::json::Object &Req = *Log[0].getAsObject();
  EXPECT_EQ(Req.getString("path"), "/v1/chat/completions");
  const llvm::json::Object &Body = *Req.getObject("body");
  EXPECT_EQ(Body.getString("model"), "test-model");
  EXPECT_EQ(Body.getNumber("temperature"), 0.25);
  EXPECT_EQ(Body.getInteger("max_tokens"), 123);
  EXPECT_EQ(Body.getInteger("n"), 2);
  EXPECT_EQ(Body.getInteger("seed"), 42);
  EXPECT_EQ((*Body.getArray("stop"))[0].getAsString(), "END");
  const llvm::json::Array &Messages = *Body.getArray("messages");
  ASSERT_EQ(Messages.size(), 2u);
  EXPECT_EQ(Messages[1].getAsObject()->getString("role"), "user");
  EXPECT_EQ(Messages[1].getAsObject()->getString("content"), "make it fast");
  // No key in the environment: no Authorization header at all.
  EXPECT_FALSE(Req.getObject("headers")->get("Authorization"));
}

TEST(LLMClientTest, UsageAddsUpOverCalls) {
  ScriptedServer S(R"({"replies": [
    {"content": "a", "usage": {"prompt_tokens": 5, "completion_tokens": 1}},
    {"content": "b", "usage": {"prompt_tokens": 6, "completion_tokens": 2}}]})");
  auto C = makeClient(optionsFor(S));
  ASSERT_TRUE(bool(C->complete(ask("one"))));
  ASSERT_TRUE(bool(C->complete(ask("two"))));
  EXPECT_EQ(C->totalUsage().PromptTokens, 11u);
  EXPECT_EQ(C->totalUsage().CompletionTokens, 3u);
  EXPECT_EQ(C->completedCalls(), 2u);
}

TEST(LLMClientTest, ServerErrorsAreRetried) {
  ScriptedServer S(R"({"replies": [
    {"fault": "http-500"}, {"status": 503, "error": "overloaded"},
    {"content": "fine"}]})");
  LLMOptions O = optionsFor(S);
  O.MaxRetries = 3;
  auto Reply = makeClient(O)->complete(ask("x"));
  ASSERT_TRUE(bool(Reply)) << llvm::toString(Reply.takeError());
  EXPECT_EQ(Reply->Choices[0].Content, "fine");
  EXPECT_EQ(Reply->Attempts, 3u);
  EXPECT_EQ(S.requests(3).size(), 3u);
}

TEST(LLMClientTest, PersistentServerErrorGivesUp) {
  ScriptedServer S(R"({"replies": [{"fault": "http-500", "times": 0}]})");
  LLMOptions O = optionsFor(S);
  O.MaxRetries = 2;
  std::string Err = errorOf(makeClient(O)->complete(ask("x")));
  EXPECT_NE(Err.find("LLM request to " + S.URL + "/chat/completions failed"),
            std::string::npos)
      << Err;
  EXPECT_NE(Err.find("HTTP 500 Internal Server Error"), std::string::npos)
      << Err;
  EXPECT_NE(Err.find("scripted internal error"), std::string::npos) << Err;
  EXPECT_NE(Err.find("after 3 attempts"), std::string::npos) << Err;
  EXPECT_EQ(S.requests(3).size(), 3u);
}

TEST(LLMClientTest, ClientErrorsAreNotRetried) {
  ScriptedServer S(R"({"replies": [
    {"status": 400, "error": "model 'nope' does not exist", "times": 0}]})");
  std::string Err = errorOf(makeClient(optionsFor(S))->complete(ask("x")));
  EXPECT_NE(Err.find("HTTP 400"), std::string::npos) << Err;
  EXPECT_NE(Err.find("model 'nope' does not exist"), std::string::npos) << Err;
  EXPECT_EQ(Err.find("attempts"), std::string::npos) << Err;
  EXPECT_EQ(S.requests(1).size(), 1u);
}

TEST(LLMClientTest, RetryAfterIsHonoured) {
  ScriptedServer S(R"({"replies": [
    {"fault": "http-429", "retry_after": 1}, {"content": "after the wait"}]})");
  auto C = makeClient(optionsFor(S)); // Backoff alone would be ~10 ms.
  auto Start = std::chrono::steady_clock::now();
  auto Reply = C->complete(ask("x"));
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  ASSERT_TRUE(bool(Reply)) << llvm::toString(Reply.takeError());
  EXPECT_EQ(Reply->Choices[0].Content, "after the wait");
  EXPECT_EQ(Reply->Attempts, 2u);
  EXPECT_GE(Seconds, 1.0);
  auto Log = S.requests(2);
  ASSERT_EQ(Log.size(), 2u);
  EXPECT_GE(number(Log[1], "time_start") - number(Log[0], "time_end"), 0.95);
}

TEST(LLMClientTest, TooLongRetryAfterIsAnError) {
  ScriptedServer S(R"({"replies": [
    {"fault": "http-429", "retry_after": 500}, {"content": "never"}]})");
  LLMOptions O = optionsFor(S);
  O.MaxRetryAfterSeconds = 5;
  std::string Err = errorOf(makeClient(O)->complete(ask("x")));
  EXPECT_NE(Err.find("HTTP 429"), std::string::npos) << Err;
  EXPECT_NE(Err.find("retry after 500 s"), std::string::npos) << Err;
  EXPECT_EQ(S.requests(1).size(), 1u);
}

TEST(LLMClientTest, SlowReplyTimesOutAndIsRetried) {
  ScriptedServer S(R"({"replies": [
    {"fault": "slow", "delay": 2, "content": "too late"},
    {"content": "in time"}]})");
  LLMOptions O = optionsFor(S);
  O.TimeoutSeconds = 0.5;
  auto Reply = makeClient(O)->complete(ask("x"));
  ASSERT_TRUE(bool(Reply)) << llvm::toString(Reply.takeError());
  EXPECT_EQ(Reply->Choices[0].Content, "in time");
  EXPECT_EQ(Reply->Attempts, 2u);
}

TEST(LLMClientTest, AlwaysSlowIsATimeoutError) {
  ScriptedServer S(R"({"replies": [
    {"fault": "slow", "delay": 1.5, "content": "late", "times": 0}]})");
  LLMOptions O = optionsFor(S);
  O.TimeoutSeconds = 0.3;
  O.MaxRetries = 1;
  std::string Err = errorOf(makeClient(O)->complete(ask("x")));
  EXPECT_NE(Err.find("timed out"), std::string::npos) << Err;
  EXPECT_NE(Err.find("after 2 attempts"), std::string::npos) << Err;
}

TEST(LLMClientTest, MalformedJSONIsAClearError) {
  ScriptedServer S(R"({"replies": [{"fault": "malformed-json"},
                                   {"content": "unused"}]})");
  std::string Err = errorOf(makeClient(optionsFor(S))->complete(ask("x")));
  EXPECT_NE(Err.find("malformed JSON in the reply"), std::string::npos) << Err;
  EXPECT_NE(Err.find(S.URL), std::string::npos) << Err;
  EXPECT_EQ(S.requests(1).size(), 1u);
}

TEST(LLMClientTest, TruncatedBodyIsRetried) {
  ScriptedServer S(R"({"replies": [{"fault": "truncated", "content": "cut"},
                                   {"content": "whole"}]})");
  auto Reply = makeClient(optionsFor(S))->complete(ask("x"));
  ASSERT_TRUE(bool(Reply)) << llvm::toString(Reply.takeError());
  EXPECT_EQ(Reply->Choices[0].Content, "whole");
  EXPECT_EQ(Reply->Attempts, 2u);
}

TEST(LLMClientTest, AlwaysTruncatedIsAnError) {
  ScriptedServer S(
      R"({"replies": [{"fault": "truncated", "content": "cut", "times": 0}]})");
  LLMOptions O = optionsFor(S);
  O.MaxRetries = 1;
  std::string Err = errorOf(makeClient(O)->complete(ask("x")));
  EXPECT_NE(Err.find("truncated reply body"), std::string::npos) << Err;
  EXPECT_NE(Err.find("after 2 attempts"), std::string::npos) << Err;
}

TEST(LLMClientTest, EmptyChoicesIsAnError) {
  ScriptedServer S(R"({"replies": [{"fault": "empty-choices"}]})");
  std::string Err = errorOf(makeClient(optionsFor(S))->complete(ask("x")));
  EXPECT_NE(Err.find("the reply has empty choices"), std::string::npos) << Err;
  EXPECT_EQ(S.requests(1).size(), 1u);
}

TEST(LLMClientTest, DroppedConnectionIsRetried) {
  ScriptedServer S(R"({"replies": [{"fault": "drop"}, {"content": "back"}]})");
  auto Reply = makeClient(optionsFor(S))->complete(ask("x"));
  ASSERT_TRUE(bool(Reply)) << llvm::toString(Reply.takeError());
  EXPECT_EQ(Reply->Choices[0].Content, "back");
  EXPECT_EQ(Reply->Attempts, 2u);
}

TEST(LLMClientTest, AlwaysDroppedIsAnError) {
  ScriptedServer S(R"({"replies": [{"fault": "drop", "times": 0}]})");
  LLMOptions O = optionsFor(S);
  O.MaxRetries = 2;
  std::string Err = errorOf(makeClient(O)->complete(ask("x")));
  EXPECT_NE(Err.find("connection dropped"), std::string::npos) << Err;
  EXPECT_NE(Err.find("after 3 attempts"), std::string::npos) << Err;
}

TEST(LLMClientTest, NoServerIsAConnectionError) {
  std::string URL;
  {
    ScriptedServer S(R"({"replies": []})");
    URL = S.URL;
  } // Stopped: nothing listens on its port any more.
  LLMOptions O;
  O.Endpoint = URL;
  O.RetryBaseDelaySeconds = 0.01;
  O.MaxRetries = 1;
  std::string Err = errorOf(makeClient(O)->complete(ask("x")));
  EXPECT_NE(Err.find("LLM request to " + URL), std::string::npos) << Err;
  EXPECT_NE(Err.find("cannot connect"), std::string::npos) << Err;
  EXPECT_NE(Err.find("after 2 attempts"), std::string::npos) << Err;
}

TEST(LLMClientTest, InFlightCapHolds) {
  ScriptedServer S(R"({"replies": [
    {"fault": "slow", "delay": 0.5, "content": "ok", "times": 0}]})");
  LLMOptions O = optionsFor(S);
  O.MaxInFlight = 2;
  auto C = makeClient(O);
  std::vector<std::thread> Threads;
  std::atomic<unsigned> Succeeded{0};
  for (int I = 0; I < 6; ++I)
    Threads.emplace_back([&, I] {
      auto Reply = C->complete(ask("request " + std::to_string(I)));
      if (Reply)
        ++Succeeded;
      else
        ADD_FAILURE() << llvm::toString(Reply.takeError());
    });
  for (std::thread &T : Threads)
    T.join();
  EXPECT_EQ(Succeeded, 6u);
  EXPECT_EQ(C->peakInFlight(), 2u);
  // The server's own count of requests it was serving at once.
  double MaxConcurrent = 0;
  auto Log = S.requests(6);
  ASSERT_EQ(Log.size(), 6u);
  for (const llvm::json::Value &R : Log)
    MaxConcurrent = std::max(MaxConcurrent, number(R, "concurrent"));
  EXPECT_EQ(MaxConcurrent, 2);
}

TEST(LLMClientTest, ApiKeyNeverLeaks) {
  const std::string Key = "sk-test-Zq8LEAK-4c1d2e3f4a5b6c7d";
  ASSERT_EQ(setenv("MAXCODE_TEST_LLM_KEY", Key.c_str(), 1), 0);
  // A hosted API quotes a wrong key in its 401; a broken server might even
  // put it in a reply.
  ScriptedServer S(R"({"replies": [
    {"match": "wrong key", "status": 401,
     "error": "Incorrect API key provided: {authorization}"},
    {"match": "echo", "content": "you sent )" +
                   Key + R"("},
    {"content": "a normal reply"}]})");
  TempDir Record;
  LLMOptions O = optionsFor(S);
  O.ApiKeyEnv = "MAXCODE_TEST_LLM_KEY";
  O.RecordDir = Record.path("rec");
  auto C = makeClient(O);

  auto Normal = C->complete(ask("hello"));
  ASSERT_TRUE(bool(Normal)) << llvm::toString(Normal.takeError());
  std::string Err = errorOf(C->complete(ask("wrong key")));
  EXPECT_NE(Err.find("HTTP 401"), std::string::npos) << Err;
  EXPECT_NE(Err.find("Incorrect API key provided: Bearer <redacted>"),
            std::string::npos)
      << Err;
  EXPECT_EQ(Err.find(Key), std::string::npos) << Err;
  auto Echo = C->complete(ask("echo"));
  ASSERT_TRUE(bool(Echo)) << llvm::toString(Echo.takeError());
  EXPECT_EQ(Echo->Choices[0].Content, "you sent <redacted>");

  // The server got the key, in the Authorization header and nowhere else.
  auto Log = S.requests(3);
  ASSERT_EQ(Log.size(), 3u);
  for (const llvm::json::Value &R : Log) {
    const llvm::json::Object &Headers = *R.getAsObject()->getObject("headers");
    EXPECT_EQ(Headers.getString("Authorization"), "Bearer " + Key);
    llvm::json::Object Rest = *R.getAsObject();
    Rest.erase("headers");
    std::string Text;
    llvm::raw_string_ostream(Text) << llvm::json::Value(std::move(Rest));
    EXPECT_EQ(Text.find(Key), std::string::npos) << Text;
  }
  size_t InLog = 0;
  std::string LogText = S.requestLog();
  for (size_t P = LogText.find(Key); P != std::string::npos;
       P = LogText.find(Key, P + 1))
    ++InLog;
  EXPECT_EQ(InLog, 3u);

  // Not in any recorded file, and not in the record key.
  std::error_code EC;
  unsigned Files = 0;
  for (llvm::sys::fs::directory_iterator It(O.RecordDir, EC), End;
       !EC && It != End; It.increment(EC)) {
    ++Files;
    std::string Text = readFile(It->path());
    EXPECT_EQ(Text.find(Key), std::string::npos) << It->path();
  }
  EXPECT_EQ(Files, 3u);
  LLMOptions NoKey = O;
  NoKey.ApiKeyEnv = "MAXCODE_TEST_LLM_KEY_UNSET";
  EXPECT_EQ(Normal->RequestHash, requestHash(ask("hello"), NoKey));
  unsetenv("MAXCODE_TEST_LLM_KEY");
}

TEST(LLMClientTest, KeyWithALineBreakIsRefused) {
  ASSERT_EQ(setenv("MAXCODE_TEST_LLM_KEY2", "sk-abc\r\nX-Evil: 1", 1), 0);
  LLMOptions O;
  O.Endpoint = "http://127.0.0.1:9/v1";
  O.ApiKeyEnv = "MAXCODE_TEST_LLM_KEY2";
  auto C = LLMClient::create(O);
  std::string Err = errorOf(std::move(C));
  EXPECT_NE(Err.find("$MAXCODE_TEST_LLM_KEY2 contains a control character"),
            std::string::npos)
      << Err;
  EXPECT_EQ(Err.find("sk-abc"), std::string::npos) << Err;
  unsetenv("MAXCODE_TEST_LLM_KEY2");
}

TEST(LLMClientTest, RecordThenReplayWithTheServerStopped) {
  TempDir Record;
  std::vector<std::string> Recorded;
  TokenUsage RecordedUsage;
  ChatRequest Twice = ask("same question");
  ChatRequest Other = ask("another question");
  Other.Seed = 7;
  {
    ScriptedServer S(R"({"replies": [
      {"content": "first answer"}, {"content": "second answer"},
      {"content": "other answer"},
      {"match": "failing", "fault": "empty-choices"}]})");
    LLMOptions O = optionsFor(S);
    O.RecordDir = Record.path("rec");
    auto C = makeClient(O);
    for (const ChatRequest *R : {&Twice, &Twice, &Other}) {
      auto Reply = C->complete(*R);
      ASSERT_TRUE(bool(Reply)) << llvm::toString(Reply.takeError());
      Recorded.push_back(Reply->Choices[0].Content);
    }
    EXPECT_FALSE(bool(C->complete(ask("failing"))));
    RecordedUsage = C->totalUsage();
  } // The server is stopped here.
  EXPECT_EQ(Recorded, (std::vector<std::string>{"first answer", "second answer",
                                                "other answer"}));

  LLMOptions O;
  O.Endpoint = "http://127.0.0.1:9/unused"; // Never contacted.
  O.Model = "test-model";
  O.ReplayDir = Record.path("rec");
  auto C = makeClient(O);
  std::vector<std::string> Replayed;
  for (const ChatRequest *R : {&Twice, &Twice, &Other}) {
    auto Reply = C->complete(*R);
    ASSERT_TRUE(bool(Reply)) << llvm::toString(Reply.takeError());
    EXPECT_TRUE(Reply->Replayed);
    EXPECT_EQ(Reply->Attempts, 0u);
    Replayed.push_back(Reply->Choices[0].Content);
  }
  EXPECT_EQ(Replayed, Recorded);
  EXPECT_EQ(C->totalUsage().PromptTokens, RecordedUsage.PromptTokens);
  EXPECT_EQ(C->totalUsage().CompletionTokens, RecordedUsage.CompletionTokens);

  // A recorded failure fails again, with the same reason.
  std::string Failed = errorOf(C->complete(ask("failing")));
  EXPECT_NE(Failed.find("the reply has empty choices"), std::string::npos)
      << Failed;
  EXPECT_NE(Failed.find("replayed from"), std::string::npos) << Failed;

  // A request that was never recorded is an error naming its hash.
  ChatRequest New = ask("never asked");
  std::string Err = errorOf(C->complete(New));
  EXPECT_NE(
      Err.find("no recorded LLM reply for request " + requestHash(New, O)),
      std::string::npos)
      << Err;
}

TEST(LLMClientTest, BadOptionsAreErrors) {
  LLMOptions O;
  EXPECT_NE(errorOf(LLMClient::create(O)).find("no LLM endpoint"),
            std::string::npos);
  O.Endpoint = "ftp://example.com";
  EXPECT_NE(errorOf(LLMClient::create(O)).find("not an http:// or https://"),
            std::string::npos);
  O.Endpoint = "http://127.0.0.1:9/v1";
  O.RecordDir = "a";
  O.ReplayDir = "b";
  EXPECT_NE(errorOf(LLMClient::create(O)).find("cannot both be given"),
            std::string::npos);
  O.RecordDir.clear();
  O.ReplayDir = "/nonexistent/maxcode/replay";
  EXPECT_NE(errorOf(LLMClient::create(O)).find("does not exist"),
            std::string::npos);
}

TEST(LLMClientTest, EndpointForms) {
  LLMOptions O;
  O.Endpoint = "http://127.0.0.1:8000/v1/";
  auto C = makeClient(O);
  EXPECT_EQ(C->completionsURL(), "http://127.0.0.1:8000/v1/chat/completions");
  O.Endpoint = "http://127.0.0.1:8000/v1/chat/completions";
  EXPECT_EQ(makeClient(O)->completionsURL(), O.Endpoint);
}

TEST(LLMClientTest, CanonicalRequestIsStable) {
  LLMOptions O;
  O.Model = "m";
  O.Temperature = 0.5;
  O.MaxTokens = 10;
  ChatRequest R = ask("p");
  EXPECT_EQ(canonicalRequestJSON(R, O),
            R"({"max_tokens":10,"messages":[{"content":"You are terse.",)"
            R"("role":"system"},{"content":"p","role":"user"}],"model":"m",)"
            R"("temperature":0.5})");
  std::string H = requestHash(R, O);
  EXPECT_EQ(H.size(), 64u);
  R.Seed = 1;
  EXPECT_NE(requestHash(R, O), H);
  // Invalid UTF-8 in a prompt is replaced, not a crash.
  R.Messages[1].Content = "bad \xff byte";
  EXPECT_NE(canonicalRequestJSON(R, O).find("bad \xef\xbf\xbd byte"),
            std::string::npos);
}

} // namespace
