//===-- MaxcodeLSP.cpp - The maxcode-lsp language server ------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Options in, the server out (lib/LSP). Editors start it on stdio beside
/// clangd; docs/Editors.md shows how.
///
//===----------------------------------------------------------------------===//

#include "maxcode/LSP/OptimizeRunner.h"
#include "maxcode/LSP/Server.h"
#include "maxcode/LSP/Transport.h"
#include "maxcode/Support/Process.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <unistd.h>

using namespace maxcode;
using namespace maxcode::lsp;
using namespace llvm;

static cl::OptionCategory LSPCategory("maxcode-lsp options");

enum class InputStyle { Standard, Delimited };
static cl::opt<InputStyle>
    Input("input-style", cl::desc("How messages are separated on stdin"),
          cl::init(InputStyle::Standard),
          cl::values(clEnumValN(InputStyle::Standard, "standard",
                                "Content-Length frames (LSP)"),
                     clEnumValN(InputStyle::Delimited, "delimited",
                                "JSON separated by '---' lines; '#' lines are "
                                "comments")),
          cl::cat(LSPCategory));
static cl::opt<bool> Pretty("pretty", cl::desc("Indent the JSON written"),
                            cl::cat(LSPCategory));
static cl::opt<bool>
    Sync("sync",
         cl::desc("Handle each message after the searches started before "
                  "it are done or waiting for the client (for tests)"),
         cl::cat(LSPCategory));
static cl::opt<std::string>
    TestRoot("test-root",
             cl::desc("Accept test:///NAME URIs, naming <dir>/NAME"),
             cl::value_desc("dir"), cl::cat(LSPCategory));
static cl::opt<bool> LitTest(
    "lit-test",
    cl::desc("For lit transcripts: -input-style=delimited -pretty -sync, "
             "test:/// URIs under -test-root (default: the current folder), "
             "and -log=verbose unless -log is given"),
    cl::cat(LSPCategory));
// LLVM's LSP logger: one line per event, "E[12:00:00.000] ...".
using LogLevel = llvm::lsp::Logger::Level;
static cl::opt<LogLevel>
    Log("log", cl::desc("What to log on stderr"), cl::init(LogLevel::Info),
        cl::values(clEnumValN(LogLevel::Error, "error", "errors only"),
                   clEnumValN(LogLevel::Info, "info",
                              "also what the server does and each message"),
                   clEnumValN(LogLevel::Debug, "verbose",
                              "also every message written and Clang's "
                              "diagnostics")),
        cl::cat(LSPCategory));

// Some clients (vscode-languageclient with TransportKind.stdio) add --stdio;
// stdio is the only transport, so it is accepted and changes nothing.
static cl::opt<bool> Stdio("stdio", cl::desc("Ignored: stdio is the transport"),
                           cl::Hidden, cl::cat(LSPCategory));

/// An address inside this executable, to find where it is installed.
static void anchor() {}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  // A descendant of a search whose own tool died comes back here, to be
  // killed rather than left running (DESIGN section 7).
  maxcode::becomeSubreaper();
  // SIGTERM or Ctrl-C stops the searches under way (each is told to end, so
  // it removes its scratch) and ends the server, non-zero.
  maxcode::installInterruptHandlers();
  cl::HideUnrelatedOptions(LSPCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "maxcode-lsp: a language server offering clang-maxcode's search as a "
      "code action\n\n"
      "It speaks LSP on stdin and stdout and runs beside clangd. The search "
      "itself runs\nthe clang-maxcode executable installed next to this "
      "one.\n");

  ServerOptions Opts;
  Opts.Pretty = Pretty;
  Opts.Sync = Sync;
  if (!TestRoot.empty())
    Opts.TestRoot = TestRoot;
  bool Delimited = Input == InputStyle::Delimited;
  LogLevel Level = Log;
  if (LitTest) {
    Delimited = Opts.Pretty = Opts.Sync = true;
    if (!Opts.TestRoot) {
      SmallString<256> Here;
      if (!sys::fs::current_path(Here))
        Opts.TestRoot = std::string(Here);
    }
    if (!Log.getNumOccurrences())
      Level = LogLevel::Debug;
  }
  llvm::lsp::Logger::setLogLevel(Level);

  void *Anchor = reinterpret_cast<void *>(&anchor);
  Opts.Parse = getDefaultParseSettings(argv[0], Anchor);
  SmallString<256> ClangMaxcode(
      sys::path::parent_path(sys::fs::getMainExecutable(argv[0], Anchor)));
  sys::path::append(ClangMaxcode, "clang-maxcode");
  if (!sys::fs::can_execute(ClangMaxcode))
    llvm::lsp::Logger::error("no clang-maxcode beside maxcode-lsp ({0}): code "
                             "actions work, searches will fail",
                             ClangMaxcode);
  ClangMaxcodeRunner Runner{std::string(ClangMaxcode)};

  std::unique_ptr<MessageParser> Parser;
  if (Delimited)
    Parser = std::make_unique<DelimitedParser>();
  else
    Parser = std::make_unique<FramedParser>();
  Server S(std::move(Opts), Runner, outs());
  return S.run(std::move(Parser), STDIN_FILENO);
}
