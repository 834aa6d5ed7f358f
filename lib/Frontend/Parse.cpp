//===-- Parse.cpp - Parsing one main file for targets --------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// One parse of a main file (ClangTool, the adjusted command, the precompiled
// prelude when there is one), its errors kept with their places for
// per-target validity, and the device-side pass of a CUDA file.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/NvccAdjuster.h"
#include "maxcode/Frontend/ParseSupport.h"
#include "maxcode/Frontend/Prelude.h"
#include "maxcode/Frontend/Target.h"
#include "maxcode/Support/Process.h"
#include "clang/Basic/Cuda.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace maxcode;
using namespace clang;

namespace {
/// The integer argument \p I of \p Info (a %select), if it is one.
std::optional<uint64_t> intArg(const Diagnostic &Info, unsigned I) {
  if (I >= Info.getNumArgs())
    return std::nullopt;
  if (Info.getArgKind(I) == DiagnosticsEngine::ak_uint)
    return Info.getArgUInt(I);
  if (Info.getArgKind(I) == DiagnosticsEngine::ak_sint)
    return uint64_t(Info.getArgSInt(I));
  return std::nullopt;
}

/// When the error \p Info reports is one of the constructs nvcc accepts and
/// Clang does not, what the construct is, what nvcc does with it and how to
/// write it for both (docs/CUDA.md, "What nvcc accepts and Clang does not");
/// otherwise empty. The targets such an error touches are blocked like any
/// other's, so the user is told it is the tool's limit, not their bug.
std::string nvccAcceptsNote(const Diagnostic &Info) {
  switch (Info.getID()) {
  case diag::err_shared_var_init: {
    // Clang says this of an initializer written out, which nvcc rejects
    // too, and of a type whose default constructor does work, which nvcc
    // accepts (warning #20054-D) without ever running the constructor. The
    // token after the variable's name tells them apart.
    if (!Info.hasSourceManager() || Info.getLocation().isMacroID())
      return "";
    LangOptions LO;
    LO.CPlusPlus = true;
    std::optional<Token> Next =
        Lexer::findNextToken(Info.getLocation(), Info.getSourceManager(), LO);
    if (!Next || Next->isOneOf(tok::equal, tok::l_brace, tok::l_paren))
      return "";
    return "a __shared__ variable whose type has a non-trivial default "
           "constructor, which nvcc accepts (warning #20054-D: it never runs "
           "the constructor) and Clang rejects; set its members in the "
           "kernel instead";
  }
  case diag::err_ref_bad_target:
    // A __host__ __device__ caller (argument 3) of a __host__ function
    // (arguments 0 and 1), seen by the device pass: nvcc warns (#20011-D) and
    // the call fails only if it runs on the GPU.
    if (intArg(Info, 0) == uint64_t(CUDAFunctionTarget::Host) &&
        intArg(Info, 1) == 0u &&
        intArg(Info, 3) == uint64_t(CUDAFunctionTarget::HostDevice))
      return "a __host__ __device__ function calling a __host__ function, "
             "which nvcc accepts (warning #20011-D) and Clang's device pass "
             "rejects; guard the call with '#ifndef __CUDA_ARCH__' or make "
             "the callee __host__ __device__";
    return "";
  default:
    return "";
  }
}

/// Prints diagnostics, notes whether an error was a syntax error, and keeps
/// every error with its place for per-target validity.
class RecordingPrinter : public SyntaxAwarePrinter {
public:
  RecordingPrinter(llvm::raw_ostream &OS, DiagnosticOptions &Opts)
      : SyntaxAwarePrinter(OS, Opts), OS(OS) {}
  /// The first fatal error (its text), or one without a place: either hides
  /// what Clang would have said next, or cannot be attributed to anything.
  std::optional<std::string> Unattributable;
  std::vector<ClangError> Errors;

  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const Diagnostic &Info) override {
    std::string Note;
    if (Level >= DiagnosticsEngine::Error)
      Note = record(Level, Info);
    SyntaxAwarePrinter::HandleDiagnostic(Level, Info);
    if (!Note.empty())
      OS << Note << "\n";
  }

private:
  llvm::raw_ostream &OS;

  /// Keeps the error; returns the note to print after it, if any.
  std::string record(DiagnosticsEngine::Level Level, const Diagnostic &Info) {
    llvm::SmallString<128> Message;
    Info.FormatDiagnostic(Message);
    ClangError E;
    E.Text = std::string(Message);
    std::string Where;
    if (Info.getLocation().isValid() && Info.hasSourceManager()) {
      const SourceManager &SM = Info.getSourceManager();
      E.Loc = SM.getFileLoc(Info.getLocation());
      PresumedLoc P = SM.getPresumedLoc(E.Loc);
      if (P.isValid()) {
        Where = (llvm::Twine(P.getFilename()) + ":" + llvm::Twine(P.getLine()) +
                 ":" + llvm::Twine(P.getColumn()))
                    .str();
        E.Text = Where + ": " + E.Text;
      }
    }
    // Named in the error's text too: it is the reason a blocked target
    // gives (docs/JSONOutput.md).
    std::string Note;
    if (std::string Construct = nvccAcceptsNote(Info); !Construct.empty()) {
      E.Text += " [nvcc accepts this: " + Construct + "]";
      Note = (Where.empty() ? std::string() : Where + ": ") +
             "note: nvcc accepts this, Clang does not: " + Construct;
    }
    if (!Unattributable &&
        (Level == DiagnosticsEngine::Fatal || E.Loc.isInvalid()))
      Unattributable = E.Text;
    Errors.push_back(std::move(E));
    return Note;
  }
};
} // namespace

/// Parses \p File with \p Adjusted, a command already adjusted for Clang;
/// \p Command is the project's, kept in the result.
/// \p PreludeRefused, when given, says whether Clang refused the
/// precompiled prelude the command names.
static llvm::Expected<ParsedFile>
parseAdjusted(const tooling::CompileCommand &Command,
              const tooling::CompileCommand &Adjusted, llvm::StringRef File,
              llvm::raw_ostream &DiagOS,
              std::optional<llvm::StringRef> Contents, bool *SyntaxError,
              ParseErrors Policy, bool *PreludeRefused = nullptr) {
  SingleCommandDatabase DB(Adjusted);
  tooling::ClangTool Tool(DB, {File.str()},
                          std::make_shared<PCHContainerOperations>(),
                          privateFileSystem());
  // A launch whose chevrons are spelled apart is read as nvcc reads it, in
  // the parse's own copy of the text only.
  std::unique_ptr<llvm::MemoryBuffer> OnDisk, Closed;
  if (compilesAsCuda(Adjusted.CommandLine, File)) {
    if (!Contents)
      if (auto Buf = llvm::MemoryBuffer::getFile(File); Buf) {
        OnDisk = std::move(*Buf);
        Contents = OnDisk->getBuffer();
      }
    if (Contents)
      if (std::optional<std::string> Text = closeUpLaunchChevrons(*Contents))
        Closed = llvm::MemoryBuffer::getMemBufferCopy(*Text, File);
  }
  if (Closed)
    Tool.mapVirtualFile(File, Closed->getBuffer());
  else if (Contents && !OnDisk)
    Tool.mapVirtualFile(File, *Contents);
  DiagnosticOptions DiagOpts;
  DiagOpts.ShowColors = false;
  RecordingPrinter Printer(DiagOS, DiagOpts);
  Tool.setDiagnosticConsumer(&Printer);
  std::vector<std::unique_ptr<ASTUnit>> ASTs;
  int RC;
  {
    BlockingWork Parse;
    RC = Tool.buildASTs(ASTs);
  }
  DiagOS.flush();
  if (PreludeRefused)
    *PreludeRefused = llvm::any_of(Printer.Errors, [](const ClangError &E) {
      return isPreludeError(E.Text);
    });
  if (SyntaxError)
    *SyntaxError = Printer.SawSyntaxError;
  unsigned Errors = Printer.getNumErrors();
  if (!ASTs.empty() && ASTs.front()->getDiagnostics().hasErrorOccurred())
    Errors = std::max(Errors, 1u);
  auto CountAbove = [&] {
    return Errors ? " (" + std::to_string(Errors) + " error" +
                        (Errors == 1 ? "" : "s") + " above)"
                  : std::string();
  };
  if (ASTs.size() != 1 || (Policy == ParseErrors::Fail && (RC != 0 || Errors)))
    return llvm::createStringError(
        "cannot parse '" + File.str() + "'" + CountAbove() +
        "; a broken AST gives wrong names and ranges, so nothing is listed");
  if (!Printer.Unattributable && Errors && Printer.Errors.empty())
    Printer.Unattributable = "an error Clang did not report";
  if (Printer.Unattributable)
    return llvm::createStringError(
        "cannot parse '" + File.str() + "'" + CountAbove() + ": '" +
        *Printer.Unattributable +
        "' stops Clang from checking the rest of the file, so nothing is "
        "listed");
  ParsedFile P;
  P.AST = std::move(ASTs.front());
  if (Closed) {
    // The same offsets and lines: what reads the source manager from here
    // on (rules, diffs, the device pass) reads the user's spelling. The
    // text Clang read stays with the source manager, as long as the tokens
    // that point into it (a macro's literals).
    SourceManager &SM = P.AST->getSourceManager();
    if (OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID()))
      SM.overrideFileContents(
          *Main, llvm::MemoryBuffer::getMemBufferCopy(*Contents, File));
    SM.createFileID(std::move(Closed));
  }
  P.File = File.str();
  P.Command = Command;
  P.ParseArgs = Adjusted.CommandLine;
  P.Errors = std::move(Printer.Errors);
  return P;
}

/// Whether \p Arg turns OpenMP on.
static bool isOpenMPFlag(llvm::StringRef Arg) {
  return Arg == "-fopenmp" || Arg.starts_with("-fopenmp=") ||
         Arg == "-fopenmp-simd" || Arg == "-qopenmp" || Arg == "-openmp";
}

/// parseFile with the command already adjusted.
static llvm::Expected<ParsedFile> parseAdjustedWithPrelude(
    const tooling::CompileCommand &Command,
    const tooling::CompileCommand &Adjusted, std::vector<std::string> Unknown,
    llvm::StringRef File, const ParseSettings &Settings,
    llvm::raw_ostream &DiagOS, std::optional<llvm::StringRef> Contents,
    bool *SyntaxError, ParseErrors Policy);

llvm::Expected<ParsedFile>
maxcode::parseFile(const tooling::CompileCommand &Command, llvm::StringRef File,
                   const ParseSettings &Settings, llvm::raw_ostream &DiagOS,
                   std::optional<llvm::StringRef> Contents, bool *SyntaxError,
                   ParseErrors Policy) {
  std::vector<std::string> Unknown;
  tooling::CompileCommand Adjusted =
      adjustedParseCommand(Command, File, Settings, &Unknown);
  if (!llvm::any_of(Adjusted.CommandLine, isOpenMPFlag))
    return parseAdjustedWithPrelude(Command, Adjusted, std::move(Unknown), File,
                                    Settings, DiagOS, Contents, SyntaxError,
                                    Policy);
  // Clang's OpenMP lags GCC's (a structured binding captured in a parallel
  // loop is "not yet supported"): where only that fails, the file is read
  // without OpenMP, its pragmas as unknown ones, which is all reading needs.
  std::string Said;
  llvm::raw_string_ostream Buffered(Said);
  auto P = parseAdjustedWithPrelude(Command, Adjusted, Unknown, File, Settings,
                                    Buffered, Contents, SyntaxError, Policy);
  auto OpenMPErrors = [](const ParsedFile &F) {
    return llvm::any_of(F.Errors, [](const ClangError &E) {
      return llvm::StringRef(E.Text).contains("OpenMP");
    });
  };
  if (P ? !OpenMPErrors(*P) : !llvm::StringRef(Said).contains("OpenMP")) {
    DiagOS << Said;
    return P;
  }
  tooling::CompileCommand Without = Adjusted;
  llvm::erase_if(Without.CommandLine, isOpenMPFlag);
  std::string SaidWithout;
  llvm::raw_string_ostream BufferedWithout(SaidWithout);
  auto Q =
      parseAdjustedWithPrelude(Command, Without, Unknown, File, Settings,
                               BufferedWithout, Contents, SyntaxError, Policy);
  if (!Q || (P && Q->Errors.size() >= P->Errors.size())) {
    if (!Q)
      llvm::consumeError(Q.takeError());
    DiagOS << Said;
    return P;
  }
  if (!P)
    llvm::consumeError(P.takeError());
  DiagOS << SaidWithout << "clang-maxcode: warning: '" << File
         << "' read without OpenMP: Clang rejects its OpenMP code that the "
            "build compiler accepts; its `#pragma omp` lines are kept as "
            "they are\n";
  return Q;
}

static llvm::Expected<ParsedFile> parseAdjustedWithPrelude(
    const tooling::CompileCommand &Command,
    const tooling::CompileCommand &Adjusted, std::vector<std::string> Unknown,
    llvm::StringRef File, const ParseSettings &Settings,
    llvm::raw_ostream &DiagOS, std::optional<llvm::StringRef> Contents,
    bool *SyntaxError, ParseErrors Policy) {
  std::string PCH = precompiledPrelude(
      preludeFamily(Adjusted.CommandLine, File, Adjusted.Directory),
      Adjusted.Directory, llvm::sys::path::extension(File),
      Settings.PreludeCacheDir);
  if (!PCH.empty()) {
    tooling::CompileCommand WithPCH = Adjusted;
    WithPCH.CommandLine = withPrelude(Adjusted.CommandLine, PCH);
    // Said only when Clang takes the prelude; one it refuses (built for
    // headers that changed since) is removed and the file parsed without.
    std::string Said;
    llvm::raw_string_ostream Buffered(Said);
    bool Refused = false;
    auto P = parseAdjusted(Command, WithPCH, File, Buffered, Contents,
                           SyntaxError, Policy, &Refused);
    if (!Refused) {
      DiagOS << Said;
      if (P)
        P->UnknownFlags = std::move(Unknown);
      return P;
    }
    if (!P)
      llvm::consumeError(P.takeError()); // The parse below says it again.
    llvm::sys::fs::remove(PCH);
  }
  auto P = parseAdjusted(Command, Adjusted, File, DiagOS, Contents, SyntaxError,
                         Policy);
  if (P)
    P->UnknownFlags = std::move(Unknown);
  return P;
}

bool maxcode::needsDeviceParse(const ParsedFile &Host) {
  if (!llvm::is_contained(Host.ParseArgs, "--cuda-host-only"))
    return false;
  const SourceManager &SM = Host.AST->getSourceManager();
  return testsDevicePassMacros(SM.getBufferData(SM.getMainFileID()));
}

llvm::Expected<ParsedFile> maxcode::parseDeviceSide(const ParsedFile &Host,
                                                    llvm::raw_ostream &DiagOS,
                                                    ParseErrors Policy) {
  // The host's prelude is the host's: the device pass reads its own.
  auto Args = deviceSideArgs(withoutPrelude(Host.ParseArgs));
  if (!Args)
    return llvm::createStringError("'" + Host.File +
                                   "' was not parsed as CUDA for the host");
  tooling::CompileCommand Adjusted(Host.Command.Directory, Host.File,
                                   std::move(*Args), Host.Command.Output);
  const SourceManager &SM = Host.AST->getSourceManager();
  llvm::StringRef Text = SM.getBufferData(SM.getMainFileID());
  return parseAdjusted(Host.Command, Adjusted, Host.File, DiagOS, Text, nullptr,
                       Policy);
}
