//===-- Process.cpp - Child processes with limits -------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/Process.h"
#include "ProcessRegistry.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/StringSaver.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <mutex>
#include <poll.h>
#include <sched.h>
#include <set>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char **environ;

using namespace maxcode;

std::string ProcessResult::describe() const {
  if (TimedOut)
    return "timed out after " + llvm::formatv("{0:f1}", WallSeconds).str() +
           " s";
  if (OutputLimitExceeded)
    return "killed: output limit exceeded";
  if (Cancelled)
    return "cancelled";
  if (Interrupted)
    return "interrupted";
  if (Signal)
    return "killed by signal " + std::to_string(Signal) + " (" +
           strsignal(Signal) + ")";
  return "exited with code " + std::to_string(ExitCode);
}

llvm::Error ProcessResult::failure(const llvm::Twine &What) const {
  llvm::StringRef Tail(Stderr);
  if (Tail.size() > 2000)
    Tail = Tail.take_back(2000);
  return llvm::createStringError(What + " " + describe() + "\n" + Tail);
}

std::vector<std::string> maxcode::splitCommandLine(llvm::StringRef Command) {
  llvm::BumpPtrAllocator Alloc;
  llvm::StringSaver Saver(Alloc);
  llvm::SmallVector<const char *, 16> Words;
  llvm::cl::TokenizeGNUCommandLine(Command, Saver, Words);
  std::vector<std::string> Out;
  for (const char *W : Words)
    if (W)
      Out.emplace_back(W);
  return Out;
}

std::string maxcode::shellQuote(llvm::StringRef Word) {
  if (!Word.empty() &&
      Word.find_first_not_of(
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
          "0123456789_-+=./:,@%") == llvm::StringRef::npos)
    return Word.str();
  std::string Out = "'";
  for (char C : Word) {
    if (C == '\'')
      Out += "'\\''";
    else
      Out += C;
  }
  return Out + "'";
}

llvm::ArrayRef<llvm::StringLiteral> maxcode::safeEnvironmentNames() {
  // What a compiler, a shell, the C library and CUDA need to work the same
  // as for the user; nothing here names a credential.
  static constexpr llvm::StringLiteral Names[] = {"PATH",
                                                  "LANG",
                                                  "LANGUAGE",
                                                  "LC_ALL",
                                                  "LC_CTYPE",
                                                  "LC_COLLATE",
                                                  "LC_MESSAGES",
                                                  "LC_NUMERIC",
                                                  "LC_TIME",
                                                  "TZ",
                                                  "LD_LIBRARY_PATH",
                                                  "CUDA_PATH",
                                                  "CUDA_HOME",
                                                  "CUDA_VISIBLE_DEVICES",
                                                  "NVIDIA_VISIBLE_DEVICES",
                                                  "SOURCE_DATE_EPOCH"};
  return Names;
}

namespace {
// Everything the child needs, prepared before fork so that the child only
// makes async-signal-safe calls.
struct ChildPlan {
  std::vector<std::string> Strings;
  std::vector<char *> Argv;
  std::vector<std::string> EnvStrings;
  std::vector<char *> Envp;
  std::string Program;
  std::string WorkDir;
  uint64_t ProcessLimit = 0;
  bool DropToUser = false;
  /// ProcessSpec::Expose, made ready for the child: the folders covered with
  /// a tmpfs, the folders and files created in it (parents first), and the
  /// paths bound at their own place (at most 64).
  std::vector<std::string> Covers, MakeDirs, MakeFiles, Binds;
};

void setLimit(int Resource, uint64_t Value) {
  if (!Value)
    return;
  struct rlimit R;
  R.rlim_cur = R.rlim_max = Value;
  (void)setrlimit(Resource, &R);
}

unsigned countProcessesOf(uid_t Uid) {
  unsigned N = 0;
  if (DIR *D = opendir("/proc")) {
    while (struct dirent *E = readdir(D)) {
      if (!llvm::all_of(llvm::StringRef(E->d_name), llvm::isDigit))
        continue;
      struct stat St;
      std::string P = std::string("/proc/") + E->d_name;
      if (stat(P.c_str(), &St) == 0 && St.st_uid == Uid)
        ++N;
    }
    closedir(D);
  }
  return N;
}

[[noreturn]] void childFail(int StatusFd, int Err) {
  (void)!write(StatusFd, &Err, sizeof(Err));
  _exit(127);
}

double toSeconds(const struct timeval &T) { return T.tv_sec + T.tv_usec / 1e6; }

/// The child's environment: the allow-list (or everything), then the
/// overrides.
std::vector<std::string> childEnvironment(const ProcessSpec &Spec) {
  std::vector<std::string> Out;
  auto Overridden = [&](llvm::StringRef Entry) {
    return llvm::any_of(Spec.Env, [&](const auto &KV) {
      return Entry.starts_with(KV.first + "=");
    });
  };
  auto Allowed = [&](llvm::StringRef Entry) {
    llvm::StringRef Name = Entry.split('=').first;
    return llvm::is_contained(safeEnvironmentNames(), Name) ||
           llvm::any_of(Spec.PassEnv, [&](llvm::StringRef P) {
             return P == Name ||
                    (P.ends_with("*") && Name.starts_with(P.drop_back()));
           });
  };
  for (char **E = environ; E && *E; ++E)
    if ((Spec.InheritEnvironment || Allowed(*E)) && !Overridden(*E))
      Out.emplace_back(*E);
  for (const auto &KV : Spec.Env)
    Out.push_back(KV.first + "=" + KV.second);
  return Out;
}

/// Fills \p Plan's part for ProcessSpec::Expose.
llvm::Error planExposure(const ProcessSpec &Spec, ChildPlan &Plan) {
  llvm::StringSet<> Dirs, Covers;
  for (const ProcessSpec::Exposed &E : Spec.Expose) {
    llvm::StringRef Path = E.Path, Cover = E.Cover;
    if (!Path.starts_with(Cover) || Path.size() <= Cover.size() ||
        (Path[Cover.size()] != '/' && Cover != "/"))
      return llvm::createStringError("'" + E.Path + "' is not inside '" +
                                     E.Cover + "'");
    struct stat St;
    if (::stat(E.Path.c_str(), &St) != 0)
      return llvm::createStringError("cannot read '" + E.Path +
                                     "': " + strerror(errno));
    Covers.insert(Cover);
    // The folders from the cover down to the path, created in the tmpfs.
    for (llvm::StringRef D = llvm::sys::path::parent_path(Path);
         D.size() > Cover.size(); D = llvm::sys::path::parent_path(D))
      Dirs.insert(D);
    if (S_ISDIR(St.st_mode))
      Dirs.insert(Path);
    else
      Plan.MakeFiles.push_back(E.Path);
    Plan.Binds.push_back(E.Path);
  }
  if (Plan.Binds.size() > 64)
    return llvm::createStringError(
        "more than 64 paths to make reachable for one process");
  for (const auto &C : Covers)
    Plan.Covers.push_back(C.getKey().str());
  for (const auto &D : Dirs)
    Plan.MakeDirs.push_back(D.getKey().str());
  // Parents first: a path sorts before every path inside it; a path inside
  // another exposed one is bound after it, over its content.
  llvm::sort(Plan.MakeDirs);
  llvm::stable_sort(Plan.Binds, [](const std::string &A, const std::string &B) {
    return A.size() < B.size();
  });
  return llvm::Error::success();
}

/// "/proc/self/fd/N" into \p Buf, without the C library's formatting, which
/// is not async-signal-safe.
const char *procFdPath(int Fd, char (&Buf)[32]) {
  static const char Prefix[] = "/proc/self/fd/";
  char Digits[12];
  int N = 0;
  do {
    Digits[N++] = char('0' + Fd % 10);
    Fd /= 10;
  } while (Fd > 0 && N < 11);
  size_t I = 0;
  for (; Prefix[I]; ++I)
    Buf[I] = Prefix[I];
  while (N > 0)
    Buf[I++] = Digits[--N];
  Buf[I] = '\0';
  return Buf;
}

/// In the child, as root: ChildPlan's exposure (ProcessSpec::Expose), in a
/// mount namespace of the child's own, none of which propagates back. Each
/// exposed path is opened before its cover hides it (in this namespace: a
/// mount of another one cannot be bound) and bound from that descriptor.
bool exposeInChild(const ChildPlan &Plan) {
  if (Plan.Binds.empty())
    return true;
  // A container's root may lack CAP_SYS_ADMIN: nothing can be exposed
  // there, and the child runs as it would have without this.
  if (unshare(CLONE_NEWNS) != 0)
    return errno == EPERM;
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return false;
  constexpr size_t MaxBinds = 64;
  int Fds[MaxBinds];
  size_t N = std::min(Plan.Binds.size(), MaxBinds);
  for (size_t I = 0; I < N; ++I)
    if ((Fds[I] = open(Plan.Binds[I].c_str(), O_PATH | O_CLOEXEC)) < 0)
      return false;
  for (const std::string &C : Plan.Covers)
    if (mount("tmpfs", C.c_str(), "tmpfs", MS_NOSUID | MS_NODEV,
              "mode=0755,size=1m") != 0)
      return false;
  for (const std::string &D : Plan.MakeDirs)
    if (mkdir(D.c_str(), 0755) != 0 && errno != EEXIST)
      return false;
  for (const std::string &F : Plan.MakeFiles) {
    int Fd = open(F.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    if (Fd < 0)
      return false;
    close(Fd);
  }
  for (size_t I = 0; I < N; ++I) {
    char Source[32];
    if (mount(procFdPath(Fds[I], Source), Plan.Binds[I].c_str(), nullptr,
              MS_BIND | MS_REC, nullptr) != 0)
      return false;
    close(Fds[I]);
  }
  return true;
}

llvm::Expected<ChildPlan> planChild(const ProcessSpec &Spec) {
  ChildPlan Plan;
  Plan.Program = Spec.Argv[0];
  if (Plan.Program.find('/') == std::string::npos) {
    llvm::ErrorOr<std::string> Found =
        llvm::sys::findProgramByName(Plan.Program);
    if (!Found)
      return llvm::createStringError("cannot find program '" + Plan.Program +
                                     "' on PATH");
    Plan.Program = *Found;
  }
  Plan.Strings = Spec.Argv;
  for (std::string &S : Plan.Strings)
    Plan.Argv.push_back(S.data());
  Plan.Argv.push_back(nullptr);
  Plan.EnvStrings = childEnvironment(Spec);
  for (std::string &S : Plan.EnvStrings)
    Plan.Envp.push_back(S.data());
  Plan.Envp.push_back(nullptr);
  Plan.WorkDir = Spec.WorkingDir;
  // RLIMIT_NPROC counts every process of the real user. When the child keeps
  // our (non-root) user, the limit must sit above what that user already
  // runs, or the child could not fork at all.
  Plan.ProcessLimit = Spec.Limits.MaxProcesses;
  if (Plan.ProcessLimit && geteuid() != 0)
    Plan.ProcessLimit += countProcessesOf(getuid());
  Plan.DropToUser = Spec.RunAsUid >= 0 && geteuid() == 0;
  if (!Spec.Expose.empty() && geteuid() == 0)
    if (llvm::Error E = planExposure(Spec, Plan))
      return E;
  return Plan;
}

/// The pipes between us and one child: stdout, stderr, the optional report,
/// and the status pipe that carries an exec failure.
struct ChildPipes {
  int Out[2] = {-1, -1}, Err[2] = {-1, -1}, Report[2] = {-1, -1},
      Status[2] = {-1, -1};
  /// The child's standard input when it has one (privateCopyOf).
  int In = -1;
  ~ChildPipes() {
    for (int *P : {Out, Err, Report, Status})
      for (int I : {0, 1})
        if (P[I] >= 0)
          close(P[I]);
    if (In >= 0)
      close(In);
  }
  void closeWriteEnds() {
    for (int *P : {Out, Err, Report, Status})
      if (P[1] >= 0) {
        close(P[1]);
        P[1] = -1;
      }
  }
};

/// A private, sealed copy of \p Path to be a child's standard input: an
/// anonymous memory file. Given the file itself, a program could follow
/// /proc/self/fd/0 (or /dev/stdin) back to the tests' folder and read every
/// expected output there, held-out ones included (DESIGN section 4).
llvm::Expected<int> privateCopyOf(const std::string &Path) {
  auto Fail = [&](const char *What, int Errno) {
    return llvm::createStringError(llvm::Twine("cannot ") + What +
                                   " standard input '" + Path +
                                   "': " + strerror(Errno));
  };
  int Src = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC);
  if (Src < 0)
    return Fail("read", errno);
  int Fd = ::memfd_create("stdin", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (Fd < 0) {
    int Errno = errno;
    ::close(Src);
    return Fail("copy", Errno);
  }
  char Buf[1 << 16];
  const char *Failed = nullptr;
  int Errno = 0;
  for (;;) {
    ssize_t N = ::read(Src, Buf, sizeof(Buf));
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0) {
      Failed = N < 0 ? "read" : nullptr;
      Errno = errno;
      break;
    }
    for (ssize_t Done = 0; Done < N && !Failed;) {
      ssize_t W = ::write(Fd, Buf + Done, size_t(N - Done));
      if (W < 0 && errno != EINTR) {
        Failed = "copy";
        Errno = errno;
      } else if (W > 0) {
        Done += W;
      }
    }
    if (Failed)
      break;
  }
  ::close(Src);
  if (Failed) {
    llvm::Error E = Fail(Failed, Errno);
    ::close(Fd);
    return E;
  }
  // Sealed: the copy stays what the test gave, for this run only.
  ::fcntl(Fd, F_ADD_SEALS,
          F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
  ::lseek(Fd, 0, SEEK_SET);
  return Fd;
}

/// In the child, after fork: async-signal-safe calls only.
[[noreturn]] void execChild(const ChildPlan &Plan, const ProcessSpec &Spec,
                            const ChildPipes &P) {
  // A session of its own: no controlling terminal (so no TIOCSTI into the
  // user's), and a process group that a timeout kills whole.
  setsid();
  if (!exposeInChild(Plan))
    childFail(P.Status[1], errno);
  signal(SIGPIPE, SIG_DFL);
  sigset_t None;
  sigemptyset(&None);
  sigprocmask(SIG_SETMASK, &None, nullptr);
  // Every descriptor the child keeps is first moved above 10, so that none
  // of the dup2 calls below overwrites another (the parent's 0-2 may be
  // closed), and the status pipe stays until exec closes it.
  auto Lift = [](int Fd) { return fcntl(Fd, F_DUPFD_CLOEXEC, 10); };
  int StatusFd = Lift(P.Status[1]);
  if (StatusFd < 0)
    childFail(P.Status[1], errno);
  int In = P.In >= 0 ? P.In : open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (In < 0)
    childFail(StatusFd, errno);
  int Sources[4] = {Lift(In), Lift(P.Out[1]), Lift(P.Err[1]),
                    P.Report[1] >= 0 ? Lift(P.Report[1]) : -1};
  unsigned Keep = 0;
  for (int Target = 0; Target < 4; ++Target) {
    if (Sources[Target] < 0)
      continue;
    if (dup2(Sources[Target], Target) != Target)
      childFail(StatusFd, errno);
    Keep = Target + 1;
  }
  // Descriptors 0-2 (and the report's 3) only: nothing of ours, such as the
  // test's input folder or the store, reaches the child.
  if (StatusFd > int(Keep))
    close_range(Keep, unsigned(StatusFd) - 1, 0);
  close_range(unsigned(StatusFd) + 1, ~0U, 0);
  if (!Plan.WorkDir.empty() && chdir(Plan.WorkDir.c_str()) != 0)
    childFail(StatusFd, errno);
  const ProcessLimits &L = Spec.Limits;
  setLimit(RLIMIT_CPU, L.CpuSeconds);
  setLimit(RLIMIT_AS, L.MemoryBytes);
  setLimit(RLIMIT_FSIZE, L.FileSizeBytes);
  setLimit(RLIMIT_NPROC, Plan.ProcessLimit);
  struct rlimit NoCore = {0, 0};
  setrlimit(RLIMIT_CORE, &NoCore);
  if (Plan.DropToUser) {
    gid_t Gid = Spec.RunAsGid >= 0 ? Spec.RunAsGid : Spec.RunAsUid;
    if (setgroups(0, nullptr) != 0 || setgid(Gid) != 0 ||
        setuid(Spec.RunAsUid) != 0)
      childFail(StatusFd, errno);
  }
  execve(Plan.Program.c_str(), Plan.Argv.data(), Plan.Envp.data());
  childFail(StatusFd, errno);
}

/// Watches one running child: drains its pipes into the result, enforces
/// the deadline, the output cap, cancellation and interrupts, and reaps it.
class ChildMonitor {
public:
  ChildMonitor(const ProcessSpec &Spec, pid_t Pid, ChildPipes &P,
               std::chrono::steady_clock::time_point Start)
      : Spec(Spec), Pid(Pid), Start(Start) {
    Fds[0] = P.Out[0];
    Fds[1] = P.Err[0];
    Fds[2] = P.Report[0];
    Sinks[0] = &R.Stdout;
    Sinks[1] = &R.Stderr;
    Sinks[2] = &R.Report;
    for (int I = 0; I < 3; ++I) {
      Open[I] = Fds[I] >= 0;
      if (!Open[I])
        continue;
      // Large pipes and reads drained until they would block: a child
      // writing a flood must reach the output cap quickly.
      fcntl(Fds[I], F_SETPIPE_SZ, 1 << 20);
      fcntl(Fds[I], F_SETFL, fcntl(Fds[I], F_GETFL) | O_NONBLOCK);
    }
    Buffer.resize(1 << 20);
  }

  ProcessResult run() {
    while (!Reaped || anyOpen()) {
      drain(Reaped ? 100 : 10);
      if (!Reaped)
        reap();
      else if (std::chrono::steady_clock::now() > PipeDeadline)
        break; // A stray holds a pipe: never wait on it.
      checkStops();
      proc::killStrays();
      tick(/*Force=*/false);
    }
    tick(/*Force=*/true);
    finish();
    return std::move(R);
  }

private:
  bool anyOpen() const { return Open[0] || Open[1] || Open[2]; }

  void tick(bool Force) {
    if (!Spec.WhileRunning)
      return;
    auto Now = std::chrono::steady_clock::now();
    if (!Force && Now - LastTick < std::chrono::milliseconds(100))
      return;
    LastTick = Now;
    Spec.WhileRunning();
  }

  void drain(int TimeoutMs) {
    struct pollfd Active[3];
    int Map[3], Count = 0;
    for (int I = 0; I < 3; ++I)
      if (Open[I]) {
        Active[Count] = {Fds[I], POLLIN, 0};
        Map[Count++] = I;
      }
    if (!Count) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      return;
    }
    int P = poll(Active, Count, TimeoutMs);
    for (int J = 0; P > 0 && J < Count; ++J)
      if (Active[J].revents & (POLLIN | POLLHUP | POLLERR))
        readAll(Map[J]);
  }

  void readAll(int I) {
    for (;;) {
      ssize_t Got = read(Fds[I], Buffer.data(), Buffer.size());
      if (Got < 0 && errno == EINTR)
        continue;
      if (Got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return;
      if (Got <= 0) {
        Open[I] = false;
        return;
      }
      std::string &Sink = *Sinks[I];
      uint64_t Cap = I == 2 ? (4ull << 20) : Spec.Limits.OutputBytes;
      size_t Room = Cap > Sink.size() ? Cap - Sink.size() : 0;
      Sink.append(Buffer.data(), std::min<size_t>(Room, size_t(Got)));
      if (size_t(Got) > Room && I != 2 && !Stopping) {
        R.OutputLimitExceeded = true;
        stop(/*Graceful=*/false);
        return;
      }
    }
  }

  void reap() {
    pid_t W = wait4(Pid, &Status, WNOHANG, &Usage);
    if (W != Pid)
      return;
    Reaped = true;
    R.WallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count();
    {
      std::lock_guard<std::mutex> L(proc::childrenLock());
      proc::removeLiveChild(Pid);
    }
    // Whatever the child left running in its group goes with it; what left
    // the group was its supervisor's to kill, or is a stray (killStrays).
    ::kill(-Pid, SIGKILL);
    PipeDeadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  }

  void checkStops() {
    if (Reaped)
      return;
    auto Now = std::chrono::steady_clock::now();
    if (Stopping) {
      if (Now > KillAt) {
        ::kill(-Pid, SIGKILL);
        ::kill(Pid, SIGKILL);
      }
      return;
    }
    if (Spec.Limits.WallSeconds > 0 &&
        Now - Start > std::chrono::duration<double>(Spec.Limits.WallSeconds)) {
      R.TimedOut = true;
      stop(/*Graceful=*/true);
    } else if (Spec.Cancel && Spec.Cancel->load()) {
      R.Cancelled = true;
      stop(/*Graceful=*/true);
    } else if (interrupted()) {
      R.Interrupted = true;
      stop(/*Graceful=*/true);
    }
  }

  /// Asks the child to end (SIGTERM: our supervisor then kills its whole
  /// tree), and kills its group once the grace period is over.
  void stop(bool Graceful) {
    Stopping = true;
    auto Now = std::chrono::steady_clock::now();
    if (Graceful && Spec.StopGraceSeconds > 0) {
      ::kill(Pid, SIGTERM);
      KillAt =
          Now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(Spec.StopGraceSeconds));
    } else {
      ::kill(-Pid, SIGKILL);
      ::kill(Pid, SIGKILL);
      KillAt = Now;
    }
  }

  void finish() {
    if (WIFEXITED(Status))
      R.ExitCode = WEXITSTATUS(Status);
    else if (WIFSIGNALED(Status))
      R.Signal = WTERMSIG(Status);
    // A kill for our own reasons is reported as that reason.
    if (R.TimedOut || R.OutputLimitExceeded || R.Cancelled || R.Interrupted)
      R.Signal = 0;
    // RLIMIT_CPU ends the child with SIGXCPU (or SIGKILL past the hard limit).
    if (R.Signal == SIGXCPU)
      R.TimedOut = true;
    R.UserSeconds = toSeconds(Usage.ru_utime);
    R.SystemSeconds = toSeconds(Usage.ru_stime);
    R.MaxRSSBytes = uint64_t(Usage.ru_maxrss) * 1024;
  }

  const ProcessSpec &Spec;
  pid_t Pid;
  std::chrono::steady_clock::time_point Start, KillAt, PipeDeadline, LastTick;
  int Fds[3];
  std::string *Sinks[3];
  bool Open[3];
  bool Reaped = false, Stopping = false;
  int Status = 0;
  struct rusage Usage = {};
  std::vector<char> Buffer;
  ProcessResult R;
};
} // namespace

llvm::Error
maxcode::runUserCommand(llvm::StringRef Command,
                        std::vector<std::string> Wrapper,
                        std::vector<std::pair<std::string, std::string>> Env,
                        const CommandPlacement &Place, llvm::StringRef Writable,
                        double TimeoutSeconds) {
  ProcessSpec Spec;
  Spec.InheritEnvironment = true;
  Spec.Argv = std::move(Wrapper);
  llvm::append_range(Spec.Argv,
                     std::vector<std::string>{"/bin/sh", "-c", Command.str()});
  Spec.Env = std::move(Env);
  Spec.Limits.WallSeconds = TimeoutSeconds;
  auto R = runProcess(Place ? Place(std::move(Spec), Writable) : Spec);
  if (!R)
    return R.takeError();
  if (!R->succeeded())
    return R->failure("profile command '" + Command + "'");
  return llvm::Error::success();
}

llvm::Expected<ProcessResult> maxcode::runProcess(const ProcessSpec &Spec) {
  if (Spec.Argv.empty())
    return llvm::createStringError("empty command");
  if (interrupted())
    return llvm::createStringError("interrupted");
  auto Plan = planChild(Spec);
  if (!Plan)
    return Plan.takeError();

  ChildPipes P;
  if (!Spec.StdinFile.empty()) {
    auto In = privateCopyOf(Spec.StdinFile);
    if (!In)
      return In.takeError();
    P.In = *In;
  }
  if (pipe2(P.Out, O_CLOEXEC) || pipe2(P.Err, O_CLOEXEC) ||
      pipe2(P.Status, O_CLOEXEC) ||
      (Spec.ReportPipe && pipe2(P.Report, O_CLOEXEC)))
    return llvm::createStringError(llvm::Twine("cannot create pipes: ") +
                                   strerror(errno));

  auto Start = std::chrono::steady_clock::now();
  pid_t Pid;
  {
    // Registered before any stray sweep can see it.
    std::lock_guard<std::mutex> L(proc::childrenLock());
    Pid = fork();
    if (Pid == 0)
      execChild(*Plan, Spec, P);
    if (Pid > 0)
      proc::addLiveChild(Pid);
  }
  if (Pid < 0)
    return llvm::createStringError(llvm::Twine("fork failed: ") +
                                   strerror(errno));
  P.closeWriteEnds();

  int ChildErrno = 0;
  ssize_t N;
  while ((N = read(P.Status[0], &ChildErrno, sizeof(ChildErrno))) < 0 &&
         errno == EINTR)
    ;
  if (N == (ssize_t)sizeof(ChildErrno)) {
    int Status;
    while (waitpid(Pid, &Status, 0) < 0 && errno == EINTR)
      ;
    {
      std::lock_guard<std::mutex> L(proc::childrenLock());
      proc::removeLiveChild(Pid);
    }
    return llvm::createStringError(
        "cannot run '" + Plan->Program + "'" +
        (Spec.WorkingDir.empty() ? std::string() : " in " + Spec.WorkingDir) +
        ": " + strerror(ChildErrno));
  }
  return ChildMonitor(Spec, Pid, P, Start).run();
}
