//===-- Sandbox.cpp - Running untrusted code safely -----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/Sandbox.h"
#include "maxcode/Support/Debug.h"
#include "maxcode/Support/Options.h"
#include "maxcode/Support/TreeCopy.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/xxhash.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEBUG_TYPE "maxcode-eval"

using namespace maxcode;

llvm::StringRef maxcode::integrityOf(SandboxMode M) {
  return M == SandboxMode::Bwrap ? "full" : "weaker (sandbox none)";
}

std::pair<int, int> maxcode::sandboxUser() {
  if (geteuid() != 0)
    return {-1, -1};
  if (const struct passwd *P = getpwnam("nobody"))
    return {int(P->pw_uid), int(P->pw_gid)};
  return {65534, 65534};
}

/// Whether bubblewrap starts a sandbox exactly as the evaluator will use it.
static llvm::Expected<bool> bwrapWorks() {
  if (!llvm::sys::findProgramByName("bwrap"))
    return false;
  ProcessSpec Probe;
  Probe.Argv = {"/bin/true"};
  Probe.Limits.WallSeconds = 10;
  SandboxPolicy P;
  P.Mode = SandboxMode::Bwrap;
  auto R = runProcess(sandboxed(Probe, P));
  if (!R)
    return R.takeError();
  return R->succeeded();
}

llvm::Expected<SandboxMode> maxcode::resolveSandboxMode(SandboxMode Requested,
                                                        OptionNames Names) {
  if (Requested == SandboxMode::None)
    return SandboxMode::None;
  auto Works = bwrapWorks();
  if (!Works)
    return Works.takeError();
  if (*Works)
    return SandboxMode::Bwrap;
  if (Requested == SandboxMode::Bwrap)
    return llvm::createStringError(
        Names("Sandbox") +
        "=bwrap: bubblewrap is not installed or cannot create "
        "namespaces here (install the 'bubblewrap' package, or use " +
        Names("Sandbox") + "=none)");
  return SandboxMode::None;
}

namespace {
std::string cleanPath(llvm::StringRef P) {
  llvm::SmallString<256> Clean(P);
  llvm::sys::path::remove_dots(Clean, /*remove_dot_dot=*/true);
  return llvm::StringRef(Clean).rtrim('/').str();
}

/// Whether \p Inner is \p Outer or inside it.
bool within(llvm::StringRef Inner, llvm::StringRef Outer) {
  return Inner == Outer ||
         (Inner.starts_with(Outer) && Inner.size() > Outer.size() &&
          (Outer.empty() || Inner[Outer.size()] == '/'));
}

/// The system folders every build and run sees read-only: the toolchain and
/// the C library, nothing that holds a user's files.
constexpr llvm::StringLiteral SystemFolders[] = {
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"};

bool isSystemPath(llvm::StringRef P) {
  return llvm::any_of(SystemFolders,
                      [&](llvm::StringRef S) { return within(P, S); }) ||
         within(P, "/proc") || within(P, "/dev") || P == "/tmp" || P.empty();
}

/// How the sandbox's user reaches a path: whether it may read the path
/// itself (a folder: read and enter it), and the topmost folder above it
/// that the user cannot enter, if any.
struct Reach {
  bool Readable = false;
  std::string Cover;
};

/// How \p Uid reaches \p Path. bubblewrap runs as that user and cannot bind
/// what it cannot reach; as root the tool makes a path whose only obstacle
/// is a folder above it reachable (ProcessSpec::Expose).
Reach reachOf(llvm::StringRef Path, int Uid) {
  Reach R;
  if (geteuid() != 0 || Uid < 0) {
    R.Readable = ::access(Path.str().c_str(), R_OK) == 0;
    return R;
  }
  auto Allows = [&](const struct stat &St, mode_t Other, mode_t Owner) {
    return (St.st_uid == uid_t(Uid) ? St.st_mode & Owner
                                    : St.st_mode & Other) != 0;
  };
  struct stat St;
  llvm::SmallVector<llvm::StringRef, 8> Above;
  for (llvm::StringRef D = llvm::sys::path::parent_path(Path); !D.empty();
       D = llvm::sys::path::parent_path(D)) {
    Above.push_back(D);
    if (D == "/")
      break;
  }
  for (llvm::StringRef D : llvm::reverse(Above))
    if (::stat(D.str().c_str(), &St) != 0 || !Allows(St, S_IXOTH, S_IXUSR)) {
      R.Cover = D.str();
      break;
    }
  if (::stat(Path.str().c_str(), &St) != 0)
    return R;
  R.Readable = Allows(St, S_IROTH, S_IRUSR) &&
               (!S_ISDIR(St.st_mode) || Allows(St, S_IXOTH, S_IXUSR));
  return R;
}

/// The paths the sandbox shows at their own place: what a policy reads,
/// writes and runs.
std::vector<std::string> shownPaths(const ProcessSpec &Spec,
                                    const SandboxPolicy &Policy) {
  std::vector<std::string> Out;
  auto Add = [&](llvm::StringRef P) {
    std::string C = cleanPath(P);
    if (llvm::sys::path::is_absolute(C) && !isSystemPath(C) &&
        llvm::sys::fs::exists(C))
      Out.push_back(std::move(C));
  };
  for (const std::string &R : Policy.ReadOnly)
    Add(R);
  for (const std::string &W : Policy.Writable)
    Add(W);
  for (const SandboxPolicy::Mount &M : Policy.Mounts)
    Add(M.Host);
  if (!Policy.Supervisor.empty())
    Add(Policy.Supervisor);
  if (!Spec.WorkingDir.empty())
    Add(Spec.WorkingDir);
  llvm::sort(Out);
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  return Out;
}

void wrapInSupervisor(ProcessSpec &Spec, const SandboxPolicy &Policy, int Uid,
                      int Gid) {
  std::vector<std::string> Argv = {Policy.Supervisor, "--report-fd=3"};
  if (Policy.LogFd >= 0)
    Argv.push_back("--log-fd=" + std::to_string(Policy.LogFd));
  if (Policy.SupervisorTimeout > 0)
    Argv.push_back(
        llvm::formatv("--timeout={0:f3}", Policy.SupervisorTimeout).str());
  // Without namespaces, a supervisor that stays root is one the program
  // (dropped to its own user) cannot kill.
  if (Uid >= 0 && Policy.Mode != SandboxMode::Bwrap) {
    Argv.push_back("--uid=" + std::to_string(Uid));
    Argv.push_back("--gid=" + std::to_string(Gid));
  }
  if (Policy.SealKernel)
    Argv.push_back(Policy.Devices.empty() ? "--seal" : "--seal=devices");
  Argv.push_back("--");
  Argv.insert(Argv.end(), Spec.Argv.begin(), Spec.Argv.end());
  Spec.Argv = std::move(Argv);
  Spec.ReportPipe = true;
}

std::vector<std::string> bwrapArgv(const ProcessSpec &Spec,
                                   const SandboxPolicy &Policy) {
  std::vector<std::string> A = {"bwrap",         "--die-with-parent",
                                "--new-session", "--unshare-all",
                                "--cap-drop",    "ALL"};
  for (llvm::StringRef S : SystemFolders)
    A.insert(A.end(), {"--ro-bind-try", S.str(), S.str()});
  A.insert(A.end(), {"--proc", "/proc", "--dev", "/dev", "--size",
                     std::to_string(Policy.TmpBytes), "--tmpfs", "/tmp"});
  // CPU topology, which runtimes (OpenMP, std::thread) read; a GPU's driver
  // needs the rest of /sys.
  A.insert(A.end(), {"--ro-bind-try", "/sys/devices/system/cpu",
                     "/sys/devices/system/cpu"});
  if (!Policy.Devices.empty())
    A.insert(A.end(), {"--ro-bind-try", "/sys", "/sys"});

  std::vector<std::string> Hidden;
  for (const std::string &H : Policy.Hidden)
    if (llvm::sys::path::is_absolute(H))
      Hidden.push_back(cleanPath(H));
  // What is inside a hidden folder is hidden already.
  llvm::sort(Hidden);
  Hidden.erase(std::unique(Hidden.begin(), Hidden.end()), Hidden.end());
  llvm::erase_if(Hidden, [&](const std::string &H) {
    return llvm::any_of(Hidden, [&](llvm::StringRef Outer) {
      return H != Outer && within(H, Outer) &&
             llvm::sys::fs::is_directory(Outer);
    });
  });
  auto IsHidden = [&](llvm::StringRef P) {
    return llvm::any_of(Hidden,
                        [&](llvm::StringRef H) { return within(P, H); });
  };
  // Parents before children, so that no mount hides a later one.
  // A folder that holds a run's own folder (the scratch root under /tmp, a
  // project above it) would show the other runs' folders: never bound. What
  // is inside /tmp otherwise (an installed tool, a project's include folder)
  // is bound over the private /tmp, at its own path.
  auto HoldsARun = [&](llvm::StringRef P) {
    return llvm::any_of(Policy.Mounts,
                        [&](const SandboxPolicy::Mount &M) {
                          return within(cleanPath(M.Host), P);
                        }) ||
           llvm::any_of(Policy.Writable, [&](llvm::StringRef W) {
             return within(cleanPath(W), P);
           });
  };
  std::vector<std::string> ReadOnly;
  for (const std::string &R : Policy.ReadOnly) {
    std::string C = cleanPath(R);
    if (llvm::sys::path::is_absolute(C) && !isSystemPath(C) && !IsHidden(C) &&
        !HoldsARun(C) && llvm::sys::fs::exists(C) &&
        reachOf(C, Policy.Uid).Readable)
      ReadOnly.push_back(C);
  }
  llvm::sort(ReadOnly);
  ReadOnly.erase(std::unique(ReadOnly.begin(), ReadOnly.end()), ReadOnly.end());
  for (const std::string &R : ReadOnly)
    A.insert(A.end(), {"--ro-bind", R, R});
  // What must not be seen, where a read-only folder would show it: empty,
  // read-only stand-ins, so a write "into" them fails too.
  std::vector<std::string> HiddenDirs;
  for (const std::string &H : Hidden) {
    bool Shown =
        llvm::any_of(ReadOnly, [&](llvm::StringRef R) { return within(H, R); });
    if (!Shown || !llvm::sys::fs::exists(H))
      continue;
    if (llvm::sys::fs::is_directory(H)) {
      A.insert(A.end(), {"--tmpfs", H});
      HiddenDirs.push_back(H);
    } else {
      A.insert(A.end(), {"--ro-bind", "/dev/null", H});
    }
  }
  for (const std::string &W : Policy.Writable)
    A.insert(A.end(), {"--bind", W, W});
  for (const SandboxPolicy::Mount &M : Policy.Mounts)
    A.insert(A.end(), {M.Writable ? "--bind" : "--ro-bind", M.Host, M.Inside});
  for (const std::string &D : Policy.Devices)
    A.insert(A.end(), {"--dev-bind", D, D});
  for (const std::string &H : HiddenDirs)
    A.insert(A.end(), {"--remount-ro", H});
  if (!Spec.WorkingDir.empty())
    A.insert(A.end(), {"--chdir", Spec.WorkingDir});
  A.push_back("--");
  A.insert(A.end(), Spec.Argv.begin(), Spec.Argv.end());
  return A;
}
} // namespace

ProcessSpec maxcode::sandboxed(ProcessSpec Spec, const SandboxPolicy &Policy) {
  int Uid = -1, Gid = -1;
  if (geteuid() == 0) {
    auto [NobodyUid, NobodyGid] = sandboxUser();
    Uid = Policy.Uid >= 0 ? Policy.Uid : NobodyUid;
    Gid = Policy.Uid >= 0 ? Policy.Gid : NobodyGid;
  }
  if (!Policy.Supervisor.empty())
    wrapInSupervisor(Spec, Policy, Uid, Gid);
  // bubblewrap itself runs as the sandbox's user (an unprivileged user
  // namespace); without it the supervisor drops the program to that user,
  // or, with no supervisor, the child is started as that user.
  if (Uid >= 0 &&
      (Policy.Mode == SandboxMode::Bwrap || Policy.Supervisor.empty())) {
    Spec.RunAsUid = Uid;
    Spec.RunAsGid = Gid;
  }
  // A project under a folder the sandbox's user cannot enter (/root, a 0700
  // temporary folder) is made reachable at its own path in the child's own
  // mount namespace, so that its absolute paths still hold.
  if (Uid >= 0)
    for (std::string &P : shownPaths(Spec, Policy)) {
      Reach R = reachOf(P, Uid);
      if (R.Readable && !R.Cover.empty())
        Spec.Expose.push_back({std::move(P), std::move(R.Cover)});
    }
  if (Policy.Mode != SandboxMode::Bwrap)
    return Spec;
  SandboxPolicy P = Policy;
  P.Uid = Uid;
  P.Gid = Gid;
  if (!Policy.Supervisor.empty())
    P.ReadOnly.push_back(Policy.Supervisor);
  Spec.Argv = bwrapArgv(Spec, P);
  // bwrap changes folder inside the sandbox (--chdir), where the working
  // folder may be a path this machine does not have.
  Spec.WorkingDir.clear();
  return Spec;
}

ProcessSpec maxcode::inTreeCopy(ProcessSpec Spec, const TreeCopyView &View) {
  llvm::SmallString<256> Cwd(Spec.WorkingDir);
  if (Cwd.empty())
    (void)llvm::sys::fs::current_path(Cwd);
  if (!View.Bwrap) {
    if (!View.Copy.empty() && within(Cwd, View.Tree))
      Spec.WorkingDir =
          View.Copy + Cwd.substr(cleanPath(View.Tree).size()).str();
    return Spec;
  }
  // Mounts in order, each over the ones before: the machine read-only (its
  // devices as they are: a GPU's, a terminal's), the temporary folder and
  // the command's report folders writable, the copy over the tree.
  std::vector<std::string> A = {
      "bwrap", "--die-with-parent", "--ro-bind", "/",
      "/",     "--dev-bind",        "/dev",      "/dev"};
  llvm::SmallString<128> Tmp;
  llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Tmp);
  std::vector<std::string> Writable = {std::string(Tmp)};
  llvm::append_range(Writable, View.Writable);
  for (const std::string &W : Writable)
    if (llvm::sys::fs::is_directory(W))
      A.insert(A.end(), {"--bind", W, W});
  if (!View.Copy.empty())
    A.insert(A.end(), {"--bind", View.Copy, cleanPath(View.Tree)});
  A.insert(A.end(), {"--chdir", std::string(Cwd), "--"});
  A.insert(A.end(), Spec.Argv.begin(), Spec.Argv.end());
  Spec.Argv = std::move(A);
  Spec.WorkingDir.clear();
  return Spec;
}

llvm::Expected<SupervisorReport>
maxcode::parseSupervisorReport(llvm::StringRef Text) {
  auto Malformed = [](const llvm::Twine &Why) {
    return llvm::createStringError("the run's measurement report is " + Why);
  };
  if (Text.empty())
    return Malformed("missing (its supervisor was killed or never ran)");
  llvm::StringRef Rest = Text;
  auto NextLine = [&]() {
    auto [Line, After] = Rest.split('\n');
    Rest = After;
    return Line;
  };
  if (NextLine() != "maxcode-timer-report 1")
    return Malformed("not a maxcode-timer report");
  SupervisorReport R;
  long long Wall = -1, User = -1, Sys = -1, RSS = -1, Killed = -1, Bytes = -1;
  long long Exit = -2, Signal = -1, Main = -1, Timed = -1;
  std::pair<llvm::StringRef, long long *> Fields[] = {
      {"wall_ns", &Wall},   {"user_us", &User},  {"system_us", &Sys},
      {"maxrss_kb", &RSS},  {"exit", &Exit},     {"signal", &Signal},
      {"main_pid", &Main},  {"killed", &Killed}, {"timed_out", &Timed},
      {"log_bytes", &Bytes}};
  for (auto &[Key, Into] : Fields) {
    auto [K, V] = NextLine().split(' ');
    if (K != Key || V.getAsInteger(10, *Into))
      return Malformed(("malformed at '" + Key + "'").str());
  }
  if (Wall < 0 || User < 0 || Sys < 0 || RSS < 0 || Bytes < 0 || Main <= 0 ||
      Rest.size() != size_t(Bytes))
    return Malformed("inconsistent");
  R.WallSeconds = Wall / 1e9;
  R.UserSeconds = User / 1e6;
  R.SystemSeconds = Sys / 1e6;
  R.MaxRSSBytes = uint64_t(RSS) * 1024;
  R.ExitCode = int(Exit);
  R.Signal = int(Signal);
  R.MainPid = int(Main);
  R.Killed = Killed != 0;
  R.TimedOut = Timed == 1;
  R.Log = Rest.str();
  return R;
}

llvm::Expected<ScratchDir>
ScratchDir::create(llvm::StringRef Prefix, llvm::StringRef Parent, int Owner) {
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
  D.Slot = registerScratch(D.Path);
  // As root, the folder gets a user of its own (from a hash of its unique
  // name): process limits then count only this evaluation's processes.
  if (geteuid() == 0) {
    D.Uid = Owner >= 0 ? Owner
                       : FirstSandboxUid + int(llvm::xxh3_64bits(D.Path) %
                                               uint64_t(SandboxUidCount));
    if (::chown(Path.c_str(), D.Uid, D.Uid) != 0)
      return llvm::createStringError("cannot hand scratch folder '" +
                                     Path.str() + "' to the sandbox user");
  }
  ::chmod(Path.c_str(), 0755);
  return D;
}

llvm::Expected<ScratchDir> ScratchDir::createAt(llvm::StringRef Path,
                                                int Owner) {
  if (std::error_code EC =
          llvm::sys::fs::create_directory(Path, /*IgnoreExisting=*/false))
    return llvm::createStringError("cannot create '" + Path.str() +
                                   "': " + EC.message());
  ScratchDir D;
  D.Path = Path.str();
  D.Slot = registerScratch(D.Path);
  if (geteuid() == 0 && Owner >= 0) {
    D.Uid = Owner;
    if (::chown(D.Path.c_str(), Owner, Owner) != 0)
      return llvm::createStringError("cannot hand '" + D.Path +
                                     "' to the sandbox user");
  }
  ::chmod(D.Path.c_str(), 0755);
  return D;
}

/// Removes the scratch folder \p Path. One that cannot go stays: there is
/// no one to tell but the debug output.
static void removeScratch(const std::string &Path) {
  if (llvm::Error E = removeTree(Path)) {
    MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": scratch folder left: "
                               << llvm::toString(std::move(E)) << "\n");
    llvm::consumeError(std::move(E));
  }
}

ScratchDir::ScratchDir(ScratchDir &&Other)
    : Path(std::move(Other.Path)), Keep(Other.Keep), Uid(Other.Uid),
      Slot(Other.Slot) {
  Other.Path.clear();
  Other.Slot = -1;
}

ScratchDir &ScratchDir::operator=(ScratchDir &&Other) {
  if (this != &Other) {
    if (!Path.empty() && !Keep)
      removeScratch(Path);
    unregisterScratch(Slot);
    Path = std::move(Other.Path);
    Keep = Other.Keep;
    Uid = Other.Uid;
    Slot = Other.Slot;
    Other.Path.clear();
    Other.Slot = -1;
  }
  return *this;
}

ScratchDir::~ScratchDir() {
  if (!Path.empty() && !Keep)
    removeScratch(Path);
  unregisterScratch(Slot);
}

std::string maxcode::unreachableAdvice(const SandboxPolicy &P) {
  int Uid = P.Uid >= 0 ? P.Uid : sandboxUser().first;
  if (Uid < 0)
    return "";
  for (const std::string &Path : shownPaths(ProcessSpec(), P)) {
    if (reachOf(Path, Uid).Readable)
      continue;
    struct stat St;
    std::string Mode = "?", Owner = "?";
    if (::stat(Path.c_str(), &St) == 0) {
      llvm::raw_string_ostream(Mode = "")
          << llvm::format("%04o", unsigned(St.st_mode & 07777));
      const struct passwd *Pw = getpwuid(St.st_uid);
      Owner = Pw ? Pw->pw_name : std::to_string(St.st_uid);
    }
    const struct passwd *Self = getpwuid(uid_t(Uid));
    std::string User =
        Self
            ? "'" + std::string(Self->pw_name) + "', uid " + std::to_string(Uid)
            : "an unprivileged uid of its own, " + std::to_string(Uid);
    return "the sandbox's user (" + User + ") cannot read '" + Path +
           "' (mode " + Mode + ", owner " + Owner +
           "): as root, clang-maxcode builds and runs every program as that "
           "user; make it readable to others (chmod -R o+rX '" +
           Path + "')";
  }
  return "";
}
