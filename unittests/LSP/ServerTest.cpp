//===-- ServerTest.cpp - The maxcode-lsp server, with a quick search ------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The lit transcripts under test/LSP drive the real server with real
// searches; here the search answers at once, so whole sessions can be run
// many times over to catch what depends on timing.
//
//===----------------------------------------------------------------------===//

#include "maxcode/LSP/Server.h"
#include "maxcode/LSP/OptimizeRunner.h"
#include "maxcode/LSP/Transport.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <sys/mman.h>
#include <unistd.h>

using namespace maxcode;
using namespace maxcode::lsp;

namespace {

/// A search that finds a 1.50x faster variant at once. The variant's long
/// comment makes the edit slow to build, which widens any window the server
/// leaves open between a job's steps.
class InstantRunner : public OptimizeRunner {
public:
  llvm::Expected<OptimizeResult> run(const OptimizeRequest &Request,
                                     ProgressFn Progress,
                                     const std::atomic<bool> &Cancel) override {
    auto Saved = llvm::MemoryBuffer::getFile(Request.File);
    if (!Saved)
      return llvm::createStringError("cannot read " + Request.File);
    OptimizeResult R;
    R.Improved = true;
    R.Target = Request.Target;
    R.File = Request.File;
    R.Speedup = 1.5;
    R.Evaluations = 1;
    R.NewText = "// faster" + std::string(1 << 20, '!') + "\n" +
                (*Saved)->getBuffer().str();
    return R;
  }
};

class ServerTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> Path;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("maxcode-server", Path));
    Root = std::string(Path);
    std::error_code EC;
    llvm::raw_fd_ostream OS(Root + "/a.cpp", EC);
    ASSERT_FALSE(EC);
    OS << Text;
  }
  void TearDown() override { (void)llvm::sys::fs::remove_directories(Root); }

  /// What the server writes for \p Session, `---`-separated messages read
  /// in -sync mode.
  std::string run(llvm::StringRef Session) {
    int FD = memfd_create("maxcode-server-test", MFD_CLOEXEC);
    EXPECT_GE(FD, 0);
    EXPECT_EQ(::write(FD, Session.data(), Session.size()),
              ssize_t(Session.size()));
    EXPECT_EQ(::lseek(FD, 0, SEEK_SET), 0);
    ServerOptions Opts;
    Opts.Sync = true;
    Opts.TestRoot = Root;
    Opts.Parse.ResourceDir = MAXCODE_CLANG_RESOURCE_DIR;
    std::string Output;
    llvm::raw_string_ostream Out(Output);
    InstantRunner Runner;
    Server S(Opts, Runner, Out);
    EXPECT_EQ(S.run(std::make_unique<DelimitedParser>(), FD), 0);
    ::close(FD);
    return Output;
  }

  const std::string Text = "int twice(int x) { return 2 * x; }\n";
  std::string Root;
};

// The answer to workspace/applyEdit follows the request in a transcript, and
// -sync reads it as soon as the job waits for it: that must not be before the
// server can take it (it was, and the edit read as not applied).
TEST_F(ServerTest, SyncTakesTheAnswerToApplyEdit) {
  std::string Session =
      R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{"workspace":{"applyEdit":true}}}}
---
{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"test:///a.cpp","languageId":"cpp","version":1,"text":"int twice(int x) { return 2 * x; }\n"}}}
---
{"jsonrpc":"2.0","id":1,"method":"workspace/executeCommand","params":{"command":"maxcode.optimize","arguments":[{"uri":"test:///a.cpp","target":"twice","version":1}]}}
---
{"jsonrpc":"2.0","id":0,"result":{"applied":true}}
---
{"jsonrpc":"2.0","id":2,"method":"shutdown"}
---
{"jsonrpc":"2.0","method":"exit"}
)";
  for (int I = 0; I < 20; ++I) {
    std::string Output = run(Session);
    EXPECT_NE(Output.find("\"method\":\"workspace/applyEdit\""),
              std::string::npos);
    ASSERT_NE(Output.find("MaxCode: `twice` is 1.50x faster"),
              std::string::npos)
        << "session " << I;
  }
}

} // namespace
