//===-- VariantCheck.cpp - Variants the build compiler takes --------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Policy/VariantCheck.h"
#include "maxcode/Eval/Evaluator.h"
#include "maxcode/Frontend/NvccAdjuster.h"
#include "maxcode/Frontend/Prelude.h"
#include "maxcode/Frontend/Target.h"
#include "maxcode/Support/Debug.h"
#include "maxcode/Support/Process.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include <mutex>

#define DEBUG_TYPE "maxcode-rules"

using namespace maxcode;
using namespace clang;

namespace {
/// What one compile of one text said: nothing when it compiled, else the
/// first error.
using Verdict = std::optional<std::string>;

/// Verdicts by command and text, for the process's life (a search proposes
/// the same text from several nodes; the editor asks again and again).
struct VerdictCache {
  std::mutex Lock;
  llvm::DenseMap<uint64_t, Verdict> ByKey;
  /// Whether "cannot run nvcc" was said already.
  bool SaidNoNvcc = false;
  /// The files whose own text nvcc rejects, said once each.
  llvm::StringSet<> SaidRejectsFile;
};

VerdictCache &cache() {
  static VerdictCache C;
  return C;
}

/// The first line of \p Output that says "error", trimmed; the first line
/// when none does.
std::string firstError(llvm::StringRef Output) {
  llvm::SmallVector<llvm::StringRef, 16> Lines;
  Output.split(Lines, '\n', -1, false);
  for (llvm::StringRef L : Lines)
    if (L.contains("error"))
      return L.trim().str();
  return Lines.empty() ? std::string("(no output)")
                       : Lines.front().trim().str();
}

/// Compiles \p Text as \p Parsed's file with its nvcc command; an error when
/// nvcc cannot be run.
llvm::Expected<Verdict> compileWithNvcc(const ParsedFile &Parsed,
                                        llvm::StringRef Text) {
  auto Scratch = TempFolder::create("maxcode-check");
  if (!Scratch)
    return Scratch.takeError();
  llvm::SmallString<256> Source(Scratch->path()), Object(Scratch->path());
  llvm::sys::path::append(Source, llvm::sys::path::filename(Parsed.File));
  llvm::sys::path::append(Object, "variant.o");
  if (llvm::Error E = llvm::writeToOutput(Source, [&](llvm::raw_ostream &OS) {
        OS << Text;
        return llvm::Error::success();
      }))
    return E;
  ProcessSpec Spec;
  Spec.Argv = variantCompileCommand(Parsed.Command, Parsed.File, Source, Object,
                                    /*Link=*/false, /*DebugInfo=*/false);
  Spec.WorkingDir = Parsed.Command.Directory;
  // nvcc's own temporary files go with the scratch folder, even when an
  // interrupt kills it.
  Spec.Env.push_back({"TMPDIR", Scratch->path()});
  Spec.Limits.WallSeconds = 600;
  auto R = runProcess(Spec);
  if (!R)
    return R.takeError();
  if (R->Interrupted)
    return llvm::createStringError("interrupted");
  if (R->TimedOut)
    return Verdict("nvcc ran for more than 10 minutes");
  if (R->Signal || R->ExitCode != 0)
    return Verdict(firstError(R->Stderr + R->Stdout));
  return Verdict();
}

/// Clang's parse of \p Text with the arguments \p Parsed was read with.
Verdict parseWithClang(const ParsedFile &Parsed, llvm::StringRef Text) {
  struct FirstError : DiagnosticConsumer {
    std::string Text;
    void HandleDiagnostic(DiagnosticsEngine::Level Level,
                          const Diagnostic &Info) override {
      DiagnosticConsumer::HandleDiagnostic(Level, Info);
      if (Level < DiagnosticsEngine::Error || !Text.empty())
        return;
      llvm::SmallString<128> Message;
      Info.FormatDiagnostic(Message);
      Text = "error: " + Message.str().str();
    }
  } Errors;
  std::vector<std::string> Args;
  for (const std::string &A :
       llvm::drop_begin(withoutPrelude(Parsed.ParseArgs)))
    if (A != Parsed.File)
      Args.push_back(A);
  std::unique_ptr<ASTUnit> AST;
  {
    BlockingWork Parse;
    AST = tooling::buildASTFromCodeWithArgs(
        Text, Args, Parsed.File, "clang-tool",
        std::make_shared<PCHContainerOperations>(),
        tooling::getClangStripDependencyFileAdjuster(),
        tooling::FileContentMappings(), &Errors);
  }
  if (!AST)
    return Verdict("error: Clang could not parse the variant");
  if (Errors.getNumErrors())
    return Verdict(Errors.Text.empty() ? "error: Clang rejects the variant"
                                       : Errors.Text);
  return Verdict();
}
} // namespace

void maxcode::dropVariantsTheCompilerRejects(
    const ParsedFile &Parsed, std::vector<Variant> &Variants,
    std::vector<RejectedVariant> &Rejected, llvm::raw_ostream &Diag) {
  if (Variants.empty() || !isNvccCommand(Parsed.Command.CommandLine))
    return;
  VerdictCache &C = cache();
  std::string Command = llvm::join(Parsed.Command.CommandLine, "\n");
  auto Check = [&](llvm::StringRef Text, bool &ByClang) -> Verdict {
    uint64_t Key = llvm::xxh3_64bits(Command + "\n\n" + Text.str());
    bool NoNvcc;
    {
      std::lock_guard<std::mutex> L(C.Lock);
      if (auto It = C.ByKey.find(Key); It != C.ByKey.end())
        return It->second;
      NoNvcc = C.SaidNoNvcc;
    }
    if (!NoNvcc) {
      llvm::Expected<Verdict> R = compileWithNvcc(Parsed, Text);
      if (R) {
        std::lock_guard<std::mutex> L(C.Lock);
        C.ByKey[Key] = *R;
        return *R;
      }
      std::string Why = llvm::toString(R.takeError());
      if (interrupted())
        return Verdict(); // Unwinding: nothing more is shown.
      std::lock_guard<std::mutex> L(C.Lock);
      if (!C.SaidNoNvcc)
        llvm::WithColor::warning(Diag, "clang-maxcode")
            << "variants are checked with Clang's parse, not compiled: " << Why
            << "\n";
      C.SaidNoNvcc = true;
    }
    ByClang = true;
    return parseWithClang(Parsed, Text);
  };

  // A file nvcc rejects as it is (an environment without the project's
  // generated headers, say) tells nothing of its variants.
  const SourceManager &SM = Parsed.AST->getSourceManager();
  bool ByClang = false;
  if (Verdict Own = Check(SM.getBufferData(SM.getMainFileID()), ByClang)) {
    std::lock_guard<std::mutex> L(C.Lock);
    if (C.SaidRejectsFile.insert(Parsed.File).second)
      llvm::WithColor::warning(Diag, "clang-maxcode")
          << (ByClang ? "Clang" : "nvcc") << " rejects '" << Parsed.File
          << "' itself (" << *Own << "), so its variants are not checked\n";
    return;
  }
  std::vector<Variant> Kept;
  for (Variant &V : Variants) {
    if (interrupted())
      break; // What was not checked is not shown.
    Verdict Said = Check(V.Text, ByClang);
    if (!Said) {
      Kept.push_back(std::move(V));
      continue;
    }
    MAXCODE_DEBUG(llvm::dbgs() << "rejected by " << (ByClang ? "clang" : "nvcc")
                               << ": [" << llvm::join(V.Rules, ",") << "] "
                               << V.Description << ": " << *Said << "\n");
    Rejected.push_back(
        {V.Rules, V.Description, ByClang ? "clang" : "nvcc", std::move(*Said)});
  }
  Variants = std::move(Kept);
}
