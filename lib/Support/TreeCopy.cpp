//===-- TreeCopy.cpp - Copying a project's tree ---------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/TreeCopy.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace maxcode;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

std::string maxcode::formatBytes(uint64_t Bytes) {
  if (Bytes < 1024)
    return std::to_string(Bytes) + " B";
  const char *Units[] = {"KiB", "MiB", "GiB", "TiB"};
  double V = double(Bytes) / 1024;
  int U = 0;
  while (V >= 1024 && U < 3) {
    V /= 1024;
    ++U;
  }
  return llvm::formatv("{0:f1} {1}", V, Units[U]).str();
}

namespace {
bool within(llvm::StringRef Inner, llvm::StringRef Outer) {
  return Inner == Outer ||
         (Inner.starts_with(Outer) && Inner.size() > Outer.size() &&
          Inner[Outer.size()] == '/');
}

std::string normalized(llvm::StringRef P) {
  llvm::SmallString<256> S(P);
  fs::make_absolute(S);
  path::remove_dots(S, /*remove_dot_dot=*/true);
  return llvm::StringRef(S).rtrim('/').str();
}

/// Whether the symlink at \p Link (in the tree \p Root) resolves inside it.
bool linkStaysInside(llvm::StringRef Root, llvm::StringRef Link) {
  char Buf[4096];
  ssize_t N = ::readlink(Link.str().c_str(), Buf, sizeof(Buf) - 1);
  if (N < 0)
    return false;
  llvm::StringRef To(Buf, size_t(N));
  llvm::SmallString<256> Resolved;
  if (path::is_absolute(To)) {
    Resolved = To;
  } else {
    Resolved = path::parent_path(Link);
    path::append(Resolved, To);
  }
  path::remove_dots(Resolved, /*remove_dot_dot=*/true);
  return within(Resolved, Root);
}

/// Walks \p Root in order, calling \p Visit(Path, Status) for each entry
/// that is copied (folders before their content).
template <typename Fn>
llvm::Error walkTree(llvm::StringRef Root, llvm::ArrayRef<std::string> Excluded,
                     TreeStats &Stats, Fn Visit) {
  std::string R = normalized(Root);
  std::vector<std::string> Skip;
  for (const std::string &E : Excluded)
    Skip.push_back(normalized(E));
  std::error_code EC;
  for (fs::recursive_directory_iterator It(R, EC, /*follow_symlinks=*/false),
       End;
       It != End && !EC; It.increment(EC)) {
    llvm::StringRef P = It->path();
    llvm::StringRef Name = path::filename(P);
    bool Excl =
        (Name == ".git" && path::parent_path(P) == R) ||
        llvm::any_of(Skip, [&](llvm::StringRef S) { return within(P, S); });
    if (Excl) {
      It.no_push();
      continue;
    }
    struct stat St;
    if (::lstat(P.str().c_str(), &St) != 0)
      return llvm::createStringError("cannot read '" + P.str() +
                                     "': " + std::strerror(errno));
    if (S_ISLNK(St.st_mode) && !linkStaysInside(R, P)) {
      Stats.SkippedLinks.push_back(P.drop_front(R.size() + 1).str());
      continue;
    }
    if (S_ISREG(St.st_mode)) {
      ++Stats.Files;
      Stats.Bytes += uint64_t(St.st_size);
    }
    if (llvm::Error E = Visit(P, St))
      return E;
  }
  if (EC)
    return llvm::createStringError("cannot read the tree '" + R +
                                   "': " + EC.message());
  return llvm::Error::success();
}

llvm::Error copyRegular(llvm::StringRef From, llvm::StringRef To,
                        const struct stat &St) {
  int In = ::open(From.str().c_str(), O_RDONLY | O_CLOEXEC);
  if (In < 0)
    return llvm::createStringError("cannot read '" + From.str() +
                                   "': " + std::strerror(errno));
  int Out = ::open(To.str().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                   St.st_mode & 07777);
  if (Out < 0) {
    int Err = errno;
    ::close(In);
    return llvm::createStringError("cannot create '" + To.str() +
                                   "': " + std::strerror(Err));
  }
  // Copy-on-write where the file system can; bytes otherwise.
  bool Done = ::ioctl(Out, FICLONE, In) == 0;
  off_t Offset = 0;
  while (!Done) {
    ssize_t N = ::sendfile(Out, In, &Offset, 1 << 30);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0) {
      int Err = errno;
      ::close(In);
      ::close(Out);
      return llvm::createStringError("cannot copy '" + From.str() +
                                     "': " + std::strerror(Err));
    }
    Done = N == 0;
  }
  ::fchmod(Out, St.st_mode & 07777);
  // The times too: a build system compares them, and a copy of a built
  // tree must read as built (its objects no older than their sources).
  struct timespec Times[2] = {St.st_atim, St.st_mtim};
  ::futimens(Out, Times);
  ::close(In);
  return ::close(Out) == 0
             ? llvm::Error::success()
             : llvm::createStringError("cannot write '" + To.str() + "'");
}
} // namespace

llvm::Expected<TreeStats>
maxcode::measureTree(llvm::StringRef Root, llvm::ArrayRef<std::string> Excluded,
                     uint64_t MaxBytes) {
  TreeStats Stats;
  if (llvm::Error E =
          walkTree(Root, Excluded, Stats,
                   [&](llvm::StringRef, const struct stat &) -> llvm::Error {
                     if (MaxBytes && Stats.Bytes > MaxBytes)
                       return llvm::createStringError(
                           "the tree is larger than " + formatBytes(MaxBytes));
                     return llvm::Error::success();
                   }))
    return E;
  return Stats;
}

llvm::Expected<TreeStats>
maxcode::copyTree(llvm::StringRef Root, llvm::StringRef Dest,
                  llvm::ArrayRef<std::string> Excluded) {
  std::string R = normalized(Root), D = normalized(Dest);
  if (within(D, R))
    return llvm::createStringError("cannot copy the tree '" + R +
                                   "' into itself ('" + D + "')");
  if (std::error_code EC = fs::create_directories(D))
    return llvm::createStringError("cannot create '" + D +
                                   "': " + EC.message());
  TreeStats Stats;
  auto Visit = [&](llvm::StringRef P, const struct stat &St) -> llvm::Error {
    std::string To = D + P.drop_front(R.size()).str();
    if (S_ISDIR(St.st_mode)) {
      if (::mkdir(To.c_str(), (St.st_mode & 07777) | S_IRWXU) != 0 &&
          errno != EEXIST)
        return llvm::createStringError("cannot create '" + To +
                                       "': " + std::strerror(errno));
      return llvm::Error::success();
    }
    if (S_ISLNK(St.st_mode)) {
      char Buf[4096];
      ssize_t N = ::readlink(P.str().c_str(), Buf, sizeof(Buf) - 1);
      if (N < 0 || ::symlink(std::string(Buf, size_t(N)).c_str(), To.c_str()))
        return llvm::createStringError("cannot copy the link '" + P.str() +
                                       "': " + std::strerror(errno));
      return llvm::Error::success();
    }
    if (S_ISREG(St.st_mode))
      return copyRegular(P, To, St);
    return llvm::Error::success(); // Sockets, fifos, devices: not copied.
  };
  if (llvm::Error E = walkTree(R, Excluded, Stats, Visit))
    return E;
  return Stats;
}

llvm::Error maxcode::chownTree(llvm::StringRef Path, int Uid, int Gid) {
  if (::lchown(Path.str().c_str(), Uid, Gid) != 0)
    return llvm::createStringError(
        "cannot hand '" + Path.str() +
        "' to the sandbox's user: " + std::strerror(errno));
  std::error_code EC;
  for (fs::recursive_directory_iterator It(Path, EC, false), End;
       It != End && !EC; It.increment(EC))
    if (::lchown(It->path().c_str(), Uid, Gid) != 0)
      return llvm::createStringError(
          "cannot hand '" + It->path() +
          "' to the sandbox's user: " + std::strerror(errno));
  if (EC)
    return llvm::createStringError("cannot read '" + Path.str() +
                                   "': " + EC.message());
  return llvm::Error::success();
}

llvm::Error maxcode::removeTree(llvm::StringRef Path) {
  // remove_directories ignores every error unless told not to, which would
  // leave a folder a program made read-only behind without a word.
  if (!fs::remove_directories(Path, /*IgnoreErrors=*/false))
    return llvm::Error::success();
  // A folder a program made read-only (or unreadable) cannot be emptied
  // until it is writable again; never following a link out of the tree.
  std::vector<std::string> Dirs = {Path.str()};
  while (!Dirs.empty()) {
    std::string D = std::move(Dirs.back());
    Dirs.pop_back();
    struct stat St;
    if (::lstat(D.c_str(), &St) != 0 || !S_ISDIR(St.st_mode))
      continue;
    ::chmod(D.c_str(), 0700);
    std::error_code EC;
    for (fs::directory_iterator It(D, EC, false), End; It != End && !EC;
         It.increment(EC))
      Dirs.push_back(It->path());
  }
  if (std::error_code EC = fs::remove_directories(Path, /*IgnoreErrors=*/false))
    return llvm::createStringError("cannot remove '" + Path.str() +
                                   "': " + EC.message());
  return llvm::Error::success();
}
