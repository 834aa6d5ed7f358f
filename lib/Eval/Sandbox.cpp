//===-- Sandbox.cpp - Running untrusted code safely -----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/Sandbox.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Support/Program.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace maxcode;

llvm::StringRef maxcode::sandboxModeName(SandboxMode M) {
  switch (M) {
  case SandboxMode::Auto:
    return "auto";
  case SandboxMode::Bwrap:
    return "bwrap";
  case SandboxMode::None:
    return "none";
  }
  llvm_unreachable("unknown sandbox mode");
}

std::pair<int, int> maxcode::sandboxUser() {
  if (geteuid() != 0)
    return {-1, -1};
  if (const struct passwd *P = getpwnam("nobody"))
    return {int(P->pw_uid), int(P->pw_gid)};
  return {65534, 65534};
}

static llvm::Expected<bool> bwrapWorks() {
  auto Bwrap = llvm::sys::findProgramByName("bwrap");
  if (!Bwrap)
    return false;
  ProcessSpec Probe;
  Probe.Argv = {*Bwrap, "--ro-bind", "/", "/", "--unshare-net",
                "--unshare-pid", "--die-with-parent", "true"};
  auto [Uid, Gid] = sandboxUser();
  Probe.RunAsUid = Uid;
  Probe.RunAsGid = Gid;
  Probe.Limits.WallSeconds = 10;
  auto R = runProcess(Probe);
  if (!R)
    return R.takeError();
  return R->succeeded();
}

llvm::Expected<SandboxMode> maxcode::resolveSandboxMode(SandboxMode Requested) {
  if (Requested == SandboxMode::None)
    return SandboxMode::None;
  auto Works = bwrapWorks();
  if (!Works)
    return Works.takeError();
  if (*Works)
    return SandboxMode::Bwrap;
  if (Requested == SandboxMode::Bwrap)
    return llvm::createStringError(
        "--sandbox=bwrap: bubblewrap is not installed or cannot create "
        "namespaces here (install the 'bubblewrap' package, or use "
        "--sandbox=none)");
  return SandboxMode::None;
}

ProcessSpec maxcode::sandboxed(ProcessSpec Spec, const SandboxPolicy &Policy) {
  if (geteuid() == 0) {
    auto [Uid, Gid] = sandboxUser();
    Spec.RunAsUid = Policy.Uid >= 0 ? Policy.Uid : Uid;
    Spec.RunAsGid = Policy.Uid >= 0 ? Policy.Gid : Gid;
  }
  if (Policy.Mode != SandboxMode::Bwrap)
    return Spec;
  std::vector<std::string> Argv = {
      "bwrap",          "--die-with-parent", "--unshare-net", "--unshare-pid",
      "--unshare-ipc",  "--unshare-uts",     "--ro-bind",     "/",
      "/",              "--dev",             "/dev",          "--proc",
      "/proc",          "--tmpfs",           "/tmp"};
  // A hidden folder inside another hidden one is hidden already.
  std::vector<std::string> Hidden;
  for (const std::string &H : Policy.Hidden) {
    llvm::SmallString<256> Clean(H);
    llvm::sys::path::remove_dots(Clean, /*remove_dot_dot=*/true);
    Hidden.push_back(llvm::StringRef(Clean).rtrim('/').str());
  }
  llvm::sort(Hidden);
  Hidden.erase(std::unique(Hidden.begin(), Hidden.end()), Hidden.end());
  llvm::erase_if(Hidden, [&](const std::string &H) {
    return llvm::any_of(Hidden, [&](const std::string &Outer) {
      return H.size() > Outer.size() && llvm::StringRef(H).starts_with(Outer) &&
             H[Outer.size()] == '/';
    });
  });
  std::vector<std::string> HiddenMounts;
  // Hide first, then open the writable folders: a scratch folder inside a
  // hidden tree stays reachable.
  for (const std::string &H : Hidden) {
    // Only whole, absolute folders that are not the system itself.
    llvm::SmallString<256> Clean(H);
    llvm::sys::path::remove_dots(Clean, /*remove_dot_dot=*/true);
    llvm::StringRef C = llvm::StringRef(Clean).rtrim('/');
    bool System = C.empty() || C == "/usr" || C == "/bin" || C == "/lib" ||
                  C == "/lib64" || C == "/etc" || C == "/sbin" ||
                  C == "/proc" || C == "/dev" || C == "/tmp";
    if (llvm::sys::path::is_absolute(C) && !System &&
        llvm::sys::fs::is_directory(C)) {
      Argv.insert(Argv.end(), {"--tmpfs", C.str()});
      HiddenMounts.push_back(C.str());
    }
  }
  for (const std::string &R : Policy.ReadOnly)
    Argv.insert(Argv.end(), {"--ro-bind", R, R});
  for (const std::string &D : Policy.Devices)
    Argv.insert(Argv.end(), {"--dev-bind", D, D});
  for (const std::string &W : Policy.Writable)
    Argv.insert(Argv.end(), {"--bind", W, W});
  // The empty stand-ins are read-only too: a write "into the user's tree"
  // must fail, not land in a throw-away folder.
  for (const std::string &H : HiddenMounts)
    Argv.insert(Argv.end(), {"--remount-ro", H});
  if (!Spec.WorkingDir.empty())
    Argv.insert(Argv.end(), {"--chdir", Spec.WorkingDir});
  Argv.push_back("--");
  Argv.insert(Argv.end(), Spec.Argv.begin(), Spec.Argv.end());
  Spec.Argv = std::move(Argv);
  return Spec;
}

llvm::Expected<ScratchDir> ScratchDir::create(llvm::StringRef Prefix,
                                              llvm::StringRef Parent) {
  llvm::SmallString<256> Path;
  std::error_code EC;
  std::string Root = Parent.str();
  if (Root.empty() && sandboxUser().first >= 0) {
    // The sandbox user must reach the folder: a private temporary folder
    // (lit's, for one) does not do.
    llvm::SmallString<256> Tmp;
    llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Tmp);
    bool Reachable = true;
    for (llvm::StringRef D = Tmp; !D.empty() && D != "/";
         D = llvm::sys::path::parent_path(D)) {
      struct stat St;
      if (::stat(D.str().c_str(), &St) != 0 || !(St.st_mode & S_IXOTH)) {
        Reachable = false;
        break;
      }
    }
    if (!Reachable)
      Root = "/tmp";
  }
  if (Root.empty()) {
    EC = llvm::sys::fs::createUniqueDirectory(Prefix, Path);
  } else {
    Parent = Root;
    if ((EC = llvm::sys::fs::create_directories(Parent)))
      return llvm::createStringError("cannot create scratch root '" +
                                     Parent.str() + "': " + EC.message());
    llvm::SmallString<256> Model(Parent);
    llvm::sys::path::append(Model, Prefix + "-%%%%%%%%");
    for (int Try = 0; Try < 100; ++Try) {
      llvm::sys::fs::createUniquePath(Model, Path, /*MakeAbsolute=*/true);
      EC = llvm::sys::fs::create_directory(Path, /*IgnoreExisting=*/false);
      if (EC != std::errc::file_exists)
        break;
    }
  }
  if (EC)
    return llvm::createStringError("cannot create a scratch folder: " +
                                   EC.message());
  llvm::sys::fs::make_absolute(Path);
  ScratchDir D;
  D.Path = std::string(Path);
  // As root, the folder gets a user of its own (from a hash of its unique
  // name): process limits then count only this evaluation's processes.
  if (geteuid() == 0) {
    D.Uid = FirstSandboxUid +
            int(llvm::xxh3_64bits(D.Path) % uint64_t(SandboxUidCount));
    if (::chown(Path.c_str(), D.Uid, D.Uid) != 0)
      return llvm::createStringError("cannot hand scratch folder '" +
                                     Path.str() + "' to the sandbox user");
  }
  ::chmod(Path.c_str(), 0755);
  return D;
}

ScratchDir::ScratchDir(ScratchDir &&Other)
    : Path(std::move(Other.Path)), Keep(Other.Keep), Uid(Other.Uid) {
  Other.Path.clear();
}

ScratchDir &ScratchDir::operator=(ScratchDir &&Other) {
  if (this != &Other) {
    if (!Path.empty() && !Keep)
      (void)llvm::sys::fs::remove_directories(Path);
    Path = std::move(Other.Path);
    Keep = Other.Keep;
    Uid = Other.Uid;
    Other.Path.clear();
  }
  return *this;
}

ScratchDir::~ScratchDir() {
  if (!Path.empty() && !Keep)
    (void)llvm::sys::fs::remove_directories(Path);
}
