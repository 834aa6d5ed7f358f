//===-- Apply.cpp - Writing the winner back -------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Rewrite/Apply.h"
#include "maxcode/Rewrite/FormatStyle.h"
#include "maxcode/Support/Diff.h"
#include "clang/Format/Format.h"
#include "clang/Tooling/Core/Diagnostic.h"
#include "clang/Tooling/DiagnosticsYaml.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace maxcode;
using clang::tooling::Replacement;
using clang::tooling::Replacements;

/// Byte offset of the start of each line of \p Text (1-based line L starts
/// at Starts[L - 1]), plus the end of the text: Starts.size() is the line
/// count plus one.
static std::vector<size_t> lineStarts(llvm::StringRef Text) {
  std::vector<size_t> Starts{0};
  for (size_t I = 0; I < Text.size(); ++I)
    if (Text[I] == '\n' && I + 1 < Text.size())
      Starts.push_back(I + 1);
  Starts.push_back(Text.size());
  if (Text.empty())
    Starts.pop_back();
  return Starts;
}

/// The bytes of lines [Start, Start + Count) of \p Text (1-based).
static llvm::StringRef lineRange(llvm::StringRef Text,
                                 const std::vector<size_t> &Starts,
                                 unsigned Start, unsigned Count) {
  if (Count == 0)
    return {};
  size_t Begin = Starts[Start - 1];
  size_t End = Starts[Start - 1 + Count];
  return Text.slice(Begin, End);
}

llvm::Expected<Replacements>
maxcode::replacementsBetween(llvm::StringRef File, llvm::StringRef Original,
                             llvm::StringRef Edited) {
  std::vector<size_t> Before = lineStarts(Original);
  std::vector<size_t> After = lineStarts(Edited);
  Replacements Result;
  for (const DiffHunk &H : diffLines(Original, Edited)) {
    // A pure insertion goes after line BeforeStart, as in `diff -u`.
    unsigned FirstLine = H.BeforeCount ? H.BeforeStart : H.BeforeStart + 1;
    size_t Offset = Before[FirstLine - 1];
    llvm::StringRef Old = lineRange(Original, Before, FirstLine, H.BeforeCount);
    llvm::StringRef New = lineRange(Edited, After, H.AfterStart, H.AfterCount);
    if (llvm::Error E = Result.add(Replacement(File, Offset, Old.size(), New)))
      return E;
  }
  return Result;
}

llvm::Expected<FixSet> maxcode::computeFixes(llvm::StringRef File,
                                             llvm::StringRef Original,
                                             llvm::StringRef VariantText,
                                             const Target &T, EditScope Scope,
                                             bool Reformat) {
  // The winner passed this check when it was evaluated; checking again here
  // keeps the promise that nothing out of scope reaches the user's file
  // whatever path the text took.
  if (llvm::Error E = checkScope(Original, VariantText, T, Scope))
    return E;
  auto Edits = replacementsBetween(File, Original, VariantText);
  if (!Edits)
    return Edits.takeError();

  FixSet F;
  F.File = File.str();
  F.Original = Original.str();
  F.StyleSource = findStyleFile(File).value_or("none");
  // Fallback "none": without a .clang-format of its own the project gets
  // the variant's text as it was measured, not LLVM's style.
  auto Style = clang::format::getStyle("file", File, "none", Original);
  if (!Style)
    return llvm::createStringError("cannot read the format style for '" + File +
                                   "': " + llvm::toString(Style.takeError()));
  // formatReplacements reformats only the ranges the edits touch.
  if (Reformat) {
    auto Formatted =
        clang::format::formatReplacements(Original, *Edits, *Style);
    if (!Formatted)
      return Formatted.takeError();
    F.Replaces = std::move(*Formatted);
  } else {
    F.Replaces = std::move(*Edits);
  }
  auto Result = clang::tooling::applyAllReplacements(Original, F.Replaces);
  if (!Result)
    return Result.takeError();
  F.Result = std::move(*Result);
  return F;
}

llvm::Error
maxcode::writeFileAtomically(llvm::StringRef Given, llvm::StringRef Contents,
                             llvm::function_ref<llvm::Error()> BeforeRename) {
  // Through a symlink to the file it names: the link stays a link.
  llvm::SmallString<256> Path;
  bool Exists = llvm::sys::fs::exists(Given);
  if (Exists) {
    if (std::error_code EC = llvm::sys::fs::real_path(Given, Path))
      return llvm::createStringError(EC, "cannot resolve '" + Given +
                                             "': " + EC.message());
  } else {
    Path = Given;
  }
  struct stat St;
  if (Exists && ::stat(Path.c_str(), &St) != 0)
    return llvm::createStringError(
        std::error_code(errno, std::generic_category()),
        "cannot stat '" + Path + "'");
  // In the same folder, so that the rename is atomic (same file system).
  llvm::SmallString<256> Model(Path);
  Model += ".maxcode-%%%%%%.tmp";
  auto Temp = llvm::sys::fs::TempFile::create(Model);
  if (!Temp)
    return llvm::createStringError("cannot create a temporary file next to '" +
                                   Path +
                                   "': " + llvm::toString(Temp.takeError()));
  auto Abandon = [&](llvm::Error E) {
    return llvm::joinErrors(std::move(E), Temp->discard());
  };
  auto Errno = [&](const llvm::Twine &What) {
    return Abandon(llvm::createStringError(
        std::error_code(errno, std::generic_category()),
        What + " '" + Temp->TmpName + "': " + std::strerror(errno)));
  };
  {
    llvm::raw_fd_ostream OS(Temp->FD, /*shouldClose=*/false);
    OS << Contents;
    OS.flush();
    if (OS.has_error()) {
      std::error_code EC = OS.error();
      OS.clear_error();
      return Abandon(llvm::createStringError(
          EC, "cannot write '" + Temp->TmpName + "': " + EC.message()));
    }
  }
  // The file keeps its owner and mode; a new one gets the umask's mode.
  if (Exists) {
    if (::fchmod(Temp->FD, St.st_mode & 07777) != 0)
      return Errno("cannot set the mode of");
    if ((St.st_uid != ::geteuid() || St.st_gid != ::getegid()) &&
        ::fchown(Temp->FD, St.st_uid, St.st_gid) != 0)
      return Errno("cannot give the owner of '" + Path + "' to");
  } else {
    mode_t Mask = ::umask(0);
    ::umask(Mask);
    if (::fchmod(Temp->FD, 0666 & ~Mask) != 0)
      return Errno("cannot set the mode of");
  }
  // The data must be on disk before the rename makes it the file, or a
  // crash could leave an empty file under the old name.
  if (::fsync(Temp->FD) != 0)
    return Errno("cannot sync");
  if (llvm::Error E = BeforeRename())
    return Abandon(std::move(E));
  if (llvm::Error E = Temp->keep(Path))
    return llvm::createStringError("cannot rename the temporary file over '" +
                                   Path + "': " + llvm::toString(std::move(E)));
  // And the rename itself, which lives in the folder.
  llvm::StringRef Dir = llvm::sys::path::parent_path(Path);
  int DirFD = ::open(Dir.empty() ? "." : Dir.str().c_str(),
                     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (DirFD >= 0) {
    (void)::fsync(DirFD);
    ::close(DirFD);
  }
  return llvm::Error::success();
}

llvm::Error maxcode::applyFixes(const FixSet &F) {
  auto CheckUnchanged = [&]() -> llvm::Error {
    auto Now = llvm::MemoryBuffer::getFile(F.File, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
    if (!Now)
      return llvm::createStringError(Now.getError(),
                                     "cannot read '" + F.File +
                                         "': " + Now.getError().message());
    if ((*Now)->getBuffer() != F.Original)
      return llvm::createStringError(
          std::make_error_code(std::errc::operation_canceled),
          "'" + F.File +
              "' changed since the search read it; not applying the winner "
              "(run the search again, or use --export-fixes and apply by "
              "hand)");
    return llvm::Error::success();
  };
  // Checked first so that a changed file is refused before anything is
  // written, and again right before the rename to shrink the window in
  // which an edit could be lost to the time it takes to write the file.
  if (llvm::Error E = CheckUnchanged())
    return E;
  return writeFileAtomically(F.File, F.Result, CheckUnchanged);
}

llvm::Error maxcode::exportFixes(const FixSet &F, llvm::StringRef YAMLPath,
                                 llvm::StringRef Message) {
  clang::tooling::TranslationUnitDiagnostics TUD;
  TUD.MainSourceFile = F.File;
  // Without edits the document lists no diagnostic, so that
  // clang-apply-replacements has nothing to do.
  if (!F.Replaces.empty()) {
    clang::tooling::DiagnosticMessage Msg;
    Msg.Message = Message.str();
    Msg.FilePath = F.File;
    Msg.FileOffset = F.Replaces.begin()->getOffset();
    Msg.Fix[F.File] = F.Replaces;
    TUD.Diagnostics.emplace_back(
        "clang-maxcode", Msg,
        llvm::SmallVector<clang::tooling::DiagnosticMessage, 1>(),
        clang::tooling::Diagnostic::Remark,
        llvm::sys::path::parent_path(F.File));
  }
  std::string Text;
  {
    llvm::raw_string_ostream OS(Text);
    llvm::yaml::Output YAML(OS);
    YAML << TUD;
  }
  // Atomically, as --apply writes: a reader never sees half a file.
  return writeFileAtomically(YAMLPath, Text);
}
