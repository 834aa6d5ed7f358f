//===-- LSPServerFuzzer.cpp - Fuzzing maxcode-lsp's input -----------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Everything an editor (or whatever is on the other end of stdin) sends:
/// the input's first byte chooses the framing (bit 0: `---`-delimited as in
/// lit transcripts, else Content-Length frames) and pretty output (bit 1);
/// the rest is the byte stream the server reads to its end. The server runs
/// as in its lit tests (-sync, test:/// URIs under a scratch folder holding
/// a.cpp, its compile database and a .clang-maxcode), so whole sessions are
/// reachable: code actions parse the document with Clang, and an executed
/// action runs a search, reports progress, sends workspace/applyEdit and
/// reads the answer.
///
/// The search itself is not what this fuzzes (its inputs are the user's
/// code, not the client's bytes): the runner here answers at once with a
/// verified one-line improvement, or with the cancellation the server asked
/// for. Everything the server writes must be frames of valid JSON. With
/// MAXCODE_FUZZ_PRINT set, the server's output is printed (to check seeds).
///
//===----------------------------------------------------------------------===//

#include "maxcode/LSP/OptimizeRunner.h"
#include "maxcode/LSP/Server.h"
#include "maxcode/LSP/Transport.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/LSP/Logging.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <cstdlib>
#include <sys/mman.h>
#include <unistd.h>

using namespace maxcode;
using namespace maxcode::lsp;

namespace {
class InstantRunner : public OptimizeRunner {
public:
  llvm::Expected<OptimizeResult> run(const OptimizeRequest &Request,
                                     ProgressFn Progress,
                                     const std::atomic<bool> &Cancel) override {
    Progress(OptimizeProgress{1, 2, 1.0});
    if (Cancel)
      return llvm::make_error<CancelledError>();
    auto Saved = llvm::MemoryBuffer::getFile(Request.File);
    if (!Saved)
      return llvm::createStringError("cannot read " + Request.File);
    Progress(OptimizeProgress{2, 2, 1.5});
    OptimizeResult R;
    R.Improved = true;
    R.Target = Request.Target;
    R.File = Request.File;
    R.Speedup = 1.5;
    R.Noise = 0.01;
    R.Evaluations = 2;
    R.NewText = "// faster\n" + (*Saved)->getBuffer().str();
    R.Description = "a comment";
    return R;
  }
};
} // namespace

static std::string Root;
static ParseSettings Parse;

static void removeRoot() { (void)llvm::sys::fs::remove_directories(Root); }

static void writeFile(llvm::StringRef Name, llvm::StringRef Text) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Root + "/" + Name.str(), EC);
  if (EC)
    abort();
  OS << Text;
}

extern "C" int LLVMFuzzerInitialize(int *Argc, char ***Argv) {
  llvm::SmallString<128> Path;
  if (llvm::sys::fs::createUniqueDirectory("maxcode-lsp-fuzz", Path))
    abort();
  Root = std::string(Path);
  atexit(removeRoot);
  writeFile("a.cpp", "int twice(int x) { return 2 * x; }\n");
  writeFile("compile_commands.json",
            "[{\"directory\": \"" + Root + "\", \"file\": \"a.cpp\", " +
                "\"arguments\": [\"clang++\", \"-std=c++17\", \"-c\", " +
                "\"a.cpp\"]}]\n");
  writeFile(".clang-maxcode", "Budget: 2\nMeasure: instructions\n");
  Parse = getDefaultParseSettings((*Argv)[0],
                                  reinterpret_cast<void *>(&removeRoot));
  // Silent: the server's errors are what the fuzzer's input makes it say,
  // millions of lines. LLVM's logger has no level above Error; one past it
  // lets nothing through (its levels are ordered, its type is an int).
  llvm::lsp::Logger::setLogLevel(static_cast<llvm::lsp::Logger::Level>(
      static_cast<int>(llvm::lsp::Logger::Level::Error) + 1));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size == 0)
    return 0;
  int FD = memfd_create("maxcode-lsp-fuzz", MFD_CLOEXEC);
  if (FD < 0)
    abort();
  for (size_t Done = 1; Done < Size;) {
    ssize_t N = ::write(FD, Data + Done, Size - Done);
    if (N <= 0)
      abort();
    Done += N;
  }
  if (::lseek(FD, 0, SEEK_SET) != 0)
    abort();

  ServerOptions Opts;
  Opts.Pretty = Data[0] & 2;
  Opts.Sync = true;
  Opts.TestRoot = Root;
  Opts.Parse = Parse;
  std::string Output;
  {
    llvm::raw_string_ostream Out(Output);
    InstantRunner Runner;
    Server S(Opts, Runner, Out);
    std::unique_ptr<MessageParser> Parser;
    if (Data[0] & 1)
      Parser = std::make_unique<DelimitedParser>();
    else
      Parser = std::make_unique<FramedParser>();
    (void)S.run(std::move(Parser), FD);
  }
  ::close(FD);
  // For writing seeds: what the server answered.
  if (getenv("MAXCODE_FUZZ_PRINT"))
    llvm::errs() << Output << "\n";

  // What the server wrote reads back as whole frames of JSON.
  FramedParser Written;
  Written.feed(Output);
  while (std::optional<InputEvent> E = Written.next()) {
    if (E->Kind != InputEvent::Message)
      abort();
    llvm::Expected<llvm::json::Value> V = llvm::json::parse(E->Text);
    if (!V || !V->getAsObject())
      abort();
  }
  if (Written.finish())
    abort();
  return 0;
}
