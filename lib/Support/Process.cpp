//===-- Process.cpp - Child processes with limits -------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/Process.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/StringSaver.h"

#include <cerrno>
#include <dirent.h>
#include <sys/stat.h>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sys/resource.h>
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
  if (Signal)
    return "killed by signal " + std::to_string(Signal) + " (" +
           strsignal(Signal) + ")";
  return "exited with code " + std::to_string(ExitCode);
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
  if (!Word.empty() && Word.find_first_not_of(
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

namespace {
// Everything the child needs, prepared before fork so that the child only
// makes async-signal-safe calls.
struct ChildPlan {
  std::vector<std::string> Strings;
  std::vector<char *> Argv;
  std::vector<char *> Envp;
  std::string Program;
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

double toSeconds(const struct timeval &T) {
  return T.tv_sec + T.tv_usec / 1e6;
}
} // namespace

llvm::Expected<ProcessResult> maxcode::runProcess(const ProcessSpec &Spec) {
  if (Spec.Argv.empty())
    return llvm::createStringError("empty command");

  std::string Program = Spec.Argv[0];
  if (Program.find('/') == std::string::npos) {
    llvm::ErrorOr<std::string> Found = llvm::sys::findProgramByName(Program);
    if (!Found)
      return llvm::createStringError("cannot find program '" + Program +
                                     "' on PATH");
    Program = *Found;
  }

  // Environment: the parent's, then the overrides.
  std::vector<std::string> EnvStrings;
  auto Overridden = [&](llvm::StringRef Entry) {
    for (const auto &KV : Spec.Env)
      if (Entry.starts_with(KV.first + "="))
        return true;
    return false;
  };
  if (!Spec.ClearEnv) {
    for (char **E = environ; E && *E; ++E)
      if (!Overridden(*E))
        EnvStrings.emplace_back(*E);
  } else if (const char *Path = getenv("PATH")) {
    if (!Overridden("PATH="))
      EnvStrings.push_back(std::string("PATH=") + Path);
  }
  for (const auto &KV : Spec.Env)
    EnvStrings.push_back(KV.first + "=" + KV.second);

  ChildPlan Plan;
  Plan.Program = Program;
  Plan.Strings = Spec.Argv;
  for (std::string &S : Plan.Strings)
    Plan.Argv.push_back(S.data());
  Plan.Argv.push_back(nullptr);
  for (std::string &S : EnvStrings)
    Plan.Envp.push_back(S.data());
  Plan.Envp.push_back(nullptr);

  // RLIMIT_NPROC counts every process of the real user. When the child keeps
  // our (non-root) user, the limit must sit above what that user already
  // runs, or the child could not fork at all.
  uint64_t ProcessLimit = Spec.Limits.MaxProcesses;
  if (ProcessLimit && geteuid() != 0)
    ProcessLimit += countProcessesOf(getuid());

  int OutPipe[2], ErrPipe[2], StatusPipe[2];
  if (pipe2(OutPipe, O_CLOEXEC) || pipe2(ErrPipe, O_CLOEXEC) ||
      pipe2(StatusPipe, O_CLOEXEC))
    return llvm::createStringError(
        llvm::Twine("cannot create pipes: ") + strerror(errno));

  const char *StdinPath =
      Spec.StdinFile.empty() ? "/dev/null" : Spec.StdinFile.c_str();
  const char *WorkDir = Spec.WorkingDir.empty() ? nullptr
                                                : Spec.WorkingDir.c_str();
  bool DropToUser = Spec.RunAsUid >= 0 && geteuid() == 0;

  auto Start = std::chrono::steady_clock::now();
  pid_t Pid = fork();
  if (Pid < 0)
    return llvm::createStringError(llvm::Twine("fork failed: ") +
                                   strerror(errno));
  if (Pid == 0) {
    // Child: async-signal-safe calls only.
    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL);
    int In = open(StdinPath, O_RDONLY);
    if (In < 0)
      childFail(StatusPipe[1], errno);
    dup2(In, 0);
    dup2(OutPipe[1], 1);
    dup2(ErrPipe[1], 2);
    if (WorkDir && chdir(WorkDir) != 0)
      childFail(StatusPipe[1], errno);
    const ProcessLimits &L = Spec.Limits;
    setLimit(RLIMIT_CPU, L.CpuSeconds);
    setLimit(RLIMIT_AS, L.MemoryBytes);
    setLimit(RLIMIT_FSIZE, L.FileSizeBytes);
    setLimit(RLIMIT_NPROC, ProcessLimit);
    setLimit(RLIMIT_CORE, 0);
    struct rlimit NoCore = {0, 0};
    setrlimit(RLIMIT_CORE, &NoCore);
    if (DropToUser) {
      gid_t Gid = Spec.RunAsGid >= 0 ? Spec.RunAsGid : Spec.RunAsUid;
      if (setgroups(0, nullptr) != 0 || setgid(Gid) != 0 ||
          setuid(Spec.RunAsUid) != 0)
        childFail(StatusPipe[1], errno);
    }
    execve(Plan.Program.c_str(), Plan.Argv.data(), Plan.Envp.data());
    childFail(StatusPipe[1], errno);
  }

  setpgid(Pid, Pid); // Also in the parent: no race with an early kill.
  close(OutPipe[1]);
  close(ErrPipe[1]);
  close(StatusPipe[1]);

  int ChildErrno = 0;
  ssize_t N = read(StatusPipe[0], &ChildErrno, sizeof(ChildErrno));
  close(StatusPipe[0]);
  if (N == (ssize_t)sizeof(ChildErrno)) {
    int Status;
    while (waitpid(Pid, &Status, 0) < 0 && errno == EINTR)
      ;
    close(OutPipe[0]);
    close(ErrPipe[0]);
    return llvm::createStringError("cannot run '" + Program + "'" +
                                   (WorkDir ? std::string(" in ") + WorkDir
                                            : std::string()) +
                                   ": " + strerror(ChildErrno));
  }

  ProcessResult R;
  struct pollfd Fds[2] = {{OutPipe[0], POLLIN, 0}, {ErrPipe[0], POLLIN, 0}};
  std::string *Sinks[2] = {&R.Stdout, &R.Stderr};
  bool Open[2] = {true, true};
  bool Reaped = false, GroupKilled = false;
  int Status = 0;
  struct rusage Usage;
  memset(&Usage, 0, sizeof(Usage));
  auto Deadline =
      Start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                  std::chrono::duration<double>(Spec.Limits.WallSeconds));
  auto KillGroup = [&] {
    if (!GroupKilled)
      kill(-Pid, SIGKILL);
    GroupKilled = true;
  };
  // Large pipes and reads drained until they would block: a child writing a
  // flood must reach the output cap quickly, not at the pace of poll().
  for (int Fd : {OutPipe[0], ErrPipe[0]}) {
    fcntl(Fd, F_SETPIPE_SZ, 1 << 20);
    fcntl(Fd, F_SETFL, fcntl(Fd, F_GETFL) | O_NONBLOCK);
  }
  std::vector<char> Buffer(1 << 20);
  char *Buf = Buffer.data();
  while (!Reaped || Open[0] || Open[1]) {
    int Timeout = Reaped ? 100 : 10;
    if (Open[0] || Open[1]) {
      struct pollfd Active[2];
      int Map[2], Count = 0;
      for (int I = 0; I < 2; ++I)
        if (Open[I]) {
          Active[Count] = Fds[I];
          Map[Count++] = I;
        }
      int P = poll(Active, Count, Timeout);
      for (int J = 0; P > 0 && J < Count; ++J) {
        if (!(Active[J].revents & (POLLIN | POLLHUP | POLLERR)))
          continue;
        int I = Map[J];
        for (;;) {
          ssize_t Got = read(Fds[I].fd, Buf, Buffer.size());
          if (Got < 0 && errno == EINTR)
            continue;
          if (Got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
          if (Got <= 0) {
            Open[I] = false;
            break;
          }
          std::string &Sink = *Sinks[I];
          size_t Room = Spec.Limits.OutputBytes > Sink.size()
                            ? Spec.Limits.OutputBytes - Sink.size()
                            : 0;
          Sink.append(Buf, std::min<size_t>(Room, Got));
          if ((size_t)Got > Room && !R.TimedOut) {
            R.OutputLimitExceeded = true;
            KillGroup();
            break;
          }
        }
      }
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    if (!Reaped) {
      pid_t W = wait4(Pid, &Status, WNOHANG, &Usage);
      if (W == Pid) {
        Reaped = true;
        R.WallSeconds = std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - Start)
                            .count();
        // Whatever the child left running in its group goes with it; this
        // also closes pipes that a grandchild kept open.
        KillGroup();
      }
    }
    if (!Reaped && Spec.Limits.WallSeconds > 0 &&
        std::chrono::steady_clock::now() > Deadline && !R.TimedOut &&
        !R.OutputLimitExceeded) {
      R.TimedOut = true;
      KillGroup();
    }
    if (!Reaped && Spec.Cancel && Spec.Cancel->load() && !R.TimedOut &&
        !R.OutputLimitExceeded && !R.Cancelled) {
      R.Cancelled = true;
      KillGroup();
    }
  }
  close(OutPipe[0]);
  close(ErrPipe[0]);

  if (WIFEXITED(Status))
    R.ExitCode = WEXITSTATUS(Status);
  else if (WIFSIGNALED(Status))
    R.Signal = WTERMSIG(Status);
  // A kill for our own reasons is reported as that reason, not as SIGKILL.
  if (R.TimedOut || R.OutputLimitExceeded || R.Cancelled)
    R.Signal = 0;
  // RLIMIT_CPU ends the child with SIGXCPU (or SIGKILL past the hard limit).
  if (R.Signal == SIGXCPU)
    R.TimedOut = true;
  R.UserSeconds = toSeconds(Usage.ru_utime);
  R.SystemSeconds = toSeconds(Usage.ru_stime);
  R.MaxRSSBytes = uint64_t(Usage.ru_maxrss) * 1024;
  return R;
}
