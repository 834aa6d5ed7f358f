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
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include <mutex>

#define DEBUG_TYPE "maxcode-rules"

using namespace maxcode;
using namespace clang;

namespace {
/// What one compile of one text said.
struct Verdict {
  /// The first error; nothing when it compiled.
  std::optional<std::string> Error;
  /// A digest of the code it built (codeDigest); nothing when unknown.
  std::optional<uint64_t> Code;
  bool rejected() const { return Error.has_value(); }
  static Verdict error(std::string E) { return {std::move(E), std::nullopt}; }
};

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

/// \p Text without what does not change the code built from it, and
/// without its layout: in PTX (\p PTX), `//` comments and `.file` and `.loc`
/// lines; in cudafe's host translation, `#` lines (line markers, pragmas)
/// and the `#if 0` blocks in which it keeps each kernel's and device
/// function's body, which the host compiler never sees.
std::string codeOnly(llvm::StringRef Text, bool PTX) {
  std::string Out;
  Out.reserve(Text.size());
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Text.split(Lines, '\n');
  unsigned Skipping = 0; // Depth inside an `#if 0` block.
  for (llvm::StringRef L : Lines) {
    llvm::StringRef T = L.ltrim();
    if (PTX ? T.starts_with("//") || T.starts_with(".file") ||
                  T.starts_with(".loc")
            : T.starts_with("#")) {
      llvm::StringRef Directive = T.drop_front().ltrim();
      if (PTX)
        continue;
      if (Skipping && Directive.starts_with("if"))
        ++Skipping;
      else if (Skipping && Directive.starts_with("endif"))
        --Skipping;
      else if (!Skipping && Directive.rtrim() == "if 0")
        Skipping = 1;
      continue;
    }
    if (Skipping)
      continue;
    for (char C : T)
      if (!llvm::isSpace(C))
        Out += C;
    Out += ' ';
  }
  return Out;
}

/// A digest of what nvcc built in \p KeepDir (`-keep`): the PTX of every
/// architecture and cudafe's host translation, each without what does not
/// change the code (codeOnly). Nothing when either is missing.
std::optional<uint64_t> codeDigest(llvm::StringRef KeepDir) {
  std::vector<std::string> Files;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(KeepDir, EC), End; !EC && It != End;
       It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (Name.ends_with(".ptx") || Name.ends_with(".cudafe1.cpp"))
      Files.push_back(It->path());
  }
  llvm::sort(Files);
  bool SawPTX = false, SawHost = false;
  std::string All;
  for (const std::string &F : Files) {
    auto Buf = llvm::MemoryBuffer::getFile(F);
    if (!Buf)
      return std::nullopt;
    bool PTX = llvm::StringRef(F).ends_with(".ptx");
    (PTX ? SawPTX : SawHost) = true;
    All += llvm::sys::path::filename(F);
    All += '\n';
    All += codeOnly((*Buf)->getBuffer(), PTX);
  }
  if (!SawPTX || !SawHost)
    return std::nullopt;
  return llvm::xxh3_64bits(All);
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
  llvm::SmallString<256> Keep(Scratch->path());
  llvm::sys::path::append(Keep, "keep");
  if (std::error_code EC = llvm::sys::fs::create_directory(Keep))
    return llvm::createStringError("cannot create '" + Keep +
                                   "': " + EC.message());
  Spec.Argv = variantCompileCommand(Parsed.Command, Parsed.File, Source, Object,
                                    /*Link=*/false, /*DebugInfo=*/false);
  // nvcc's intermediate files (the PTX, cudafe's host translation) say
  // what code the text builds to.
  Spec.Argv.push_back("-keep");
  Spec.Argv.push_back(("-keep-dir=" + Keep).str());
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
    return Verdict::error("nvcc ran for more than 10 minutes");
  if (R->Signal || R->ExitCode != 0)
    return Verdict::error(firstError(R->Stderr + R->Stdout));
  return Verdict{std::nullopt, codeDigest(Keep)};
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
    return Verdict::error("error: Clang could not parse the variant");
  if (Errors.getNumErrors())
    return Verdict::error(
        Errors.Text.empty() ? "error: Clang rejects the variant" : Errors.Text);
  return Verdict();
}
} // namespace

void maxcode::dropVariantsTheCompilerRejects(
    const ParsedFile &Parsed, std::vector<Variant> &Variants,
    std::vector<RejectedVariant> &Rejected, llvm::raw_ostream &Diag,
    std::vector<RejectedVariant> *Unchanged) {
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
  Verdict Own = Check(SM.getBufferData(SM.getMainFileID()), ByClang);
  if (Own.rejected()) {
    std::lock_guard<std::mutex> L(C.Lock);
    if (C.SaidRejectsFile.insert(Parsed.File).second)
      llvm::WithColor::warning(Diag, "clang-maxcode")
          << (ByClang ? "Clang" : "nvcc") << " rejects '" << Parsed.File
          << "' itself (" << *Own.Error
          << "), so its variants are not checked\n";
    return;
  }
  std::vector<Variant> Kept;
  std::vector<std::optional<uint64_t>> KeptCode;
  auto DropUnchanged = [&](const Variant &V, std::string What) {
    MAXCODE_DEBUG(llvm::dbgs()
                  << "unchanged: [" << llvm::join(V.Rules, ",") << "] "
                  << V.Description << ": " << What << "\n");
    if (Unchanged)
      Unchanged->push_back({V.Rules, V.Description, "nvcc", std::move(What)});
  };
  // The compiles are independent and a heavy file's takes minutes: several
  // run at once, one per core, at most 8 (each nvcc may need gigabytes).
  std::vector<Verdict> Verdicts(Variants.size());
  std::vector<char> VerdictByClang(Variants.size(), 0);
  {
    unsigned Width =
        std::min({llvm::hardware_concurrency().compute_thread_count(),
                  unsigned(Variants.size()), 8u});
    llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(Width));
    for (size_t I = 0; I < Variants.size(); ++I)
      Pool.async([&, I] {
        if (interrupted())
          return;
        bool Clang = false;
        Verdicts[I] = Check(Variants[I].Text, Clang);
        VerdictByClang[I] = Clang;
      });
    Pool.wait();
  }
  for (size_t I = 0; I < Variants.size(); ++I) {
    if (interrupted())
      break; // What was not checked is not shown.
    Variant &V = Variants[I];
    Verdict Said = std::move(Verdicts[I]);
    ByClang = VerdictByClang[I];
    if (!Said.rejected() && Said.Code && Said.Code == Own.Code) {
      DropUnchanged(V, "nvcc builds the original's PTX and host code from "
                       "it: it changes nothing");
      continue;
    }
    if (!Said.rejected()) {
      // Two texts, one code (an edit nvcc makes anyway riding along with
      // one that counts): one evaluation; the variant of fewer rules stays,
      // in the place of the first.
      auto Same = Said.Code ? llvm::find(KeptCode, Said.Code) : KeptCode.end();
      if (Same == KeptCode.end()) {
        Kept.push_back(std::move(V));
        KeptCode.push_back(Said.Code);
        continue;
      }
      Variant &Other = Kept[Same - KeptCode.begin()];
      if (V.Rules.size() < Other.Rules.size())
        std::swap(Other, V);
      DropUnchanged(V, "nvcc builds the same code from it as from [" +
                           llvm::join(Other.Rules, ",") + "] " +
                           Other.Description);
      continue;
    }
    MAXCODE_DEBUG(llvm::dbgs() << "rejected by " << (ByClang ? "clang" : "nvcc")
                               << ": [" << llvm::join(V.Rules, ",") << "] "
                               << V.Description << ": " << *Said.Error << "\n");
    Rejected.push_back(
        {V.Rules, V.Description, ByClang ? "clang" : "nvcc", *Said.Error});
  }
  Variants = std::move(Kept);
}
