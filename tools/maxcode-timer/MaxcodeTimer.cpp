//===-- MaxcodeTimer.cpp - Supervise and time one run of a program --------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// maxcode-timer --report-fd=N [--log-fd=M] [--timeout=S] [--uid=U --gid=G]
///               [--seal[=devices]] -- PROGRAM ARGS
///
/// Every run of a variant's program, checked or measured, starts under this
/// supervisor, inside the sandbox (DESIGN sections 4 and 7). It
///
///  - becomes a child subreaper, so that every process the program starts,
///    even one that left its process group or session, stays its descendant;
///  - runs PROGRAM with descriptors 0, 1 and 2 only (plus M, below), in a
///    process group of its own, as user U when started as root;
///  - waits until the *last* process of that tree has exited: the run's wall
///    time ends there, and its CPU time and peak memory are those of every
///    process of the tree (RUSAGE_CHILDREN once all are reaped);
///  - on SIGTERM, SIGINT or SIGHUP, and S seconds after the start, kills the
///    whole tree and reaps it before it reports, so nothing outlives a run
///    that was stopped (the caller keeps a later deadline of its own);
///  - gives the run an anonymous session keyring of its own, so that no
///    run reaches a key another run left in the login session's;
///  - with --seal, closes what the kernel keeps between runs besides files
///    (page-cache residency, keyrings, IPC, Unix sockets; KernelSeal.h)
///    with a seccomp filter installed before the exec; --seal=devices
///    leaves Unix sockets to a GPU's driver;
///  - writes its report to descriptor N, which the program never has:
///    measurements are out of the program's reach. The supervisor is not
///    dumpable, so a program of the same user can neither open its
///    descriptors through /proc nor trace it; a program that kills it leaves
///    no report, which the evaluator treats as a failed run.
///
/// With --log-fd=M, M is a pipe in the program whose content the report
/// carries: valgrind's --log-fd, so the instruction counts never go through a
/// file the program could rewrite.
///
/// The report is text: "maxcode-timer-report 1", then one "key value" line
/// each for wall_ns, user_us, system_us, maxrss_kb, exit, signal, main_pid,
/// killed, timed_out and log_bytes, then exactly log_bytes bytes of the log.
///
/// Deliberately free of LLVM: it must start fast and stay out of the
/// measurement.
///
//===----------------------------------------------------------------------===//

#include "KernelSeal.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <grp.h>
#include <linux/keyctl.h>
#include <poll.h>
#include <string>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

long long nowNs() {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec * 1000000000LL + T.tv_nsec;
}

/// The most of the log the report carries; a program that floods the log
/// descriptor only makes its own run fail (the evaluator sees the cut).
constexpr size_t MaxLogBytes = 1 << 20;

/// Gives the calling process (and so the run) a new anonymous session
/// keyring: the one it would inherit is the login session's, shared by
/// every run of every program started from it, where a run could leave an
/// answer for the next (DESIGN section 4, rule 2). False only when the old
/// one is still reachable; where the kernel or a seccomp filter refuses
/// keyrings altogether, the program cannot reach one either.
bool joinFreshSessionKeyring() {
  if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, nullptr) >= 0)
    return true;
  int Err = errno;
  bool Reachable = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID,
                           KEY_SPEC_SESSION_KEYRING, 0) >= 0;
  errno = Err;
  return !Reachable;
}

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: maxcode-timer --report-fd=N [--log-fd=M] [--timeout=S] "
               "[--uid=U --gid=G] [--seal[=devices]] -- PROGRAM [ARGS...]\n");
  std::exit(125);
}

bool parseInt(const char *S, long &Out) {
  char *End = nullptr;
  errno = 0;
  Out = std::strtol(S, &End, 10);
  return errno == 0 && End != S && *End == '\0';
}

/// The supervisor's direct children, from /proc (it is single-threaded, so
/// its one task lists them all).
std::vector<pid_t> directChildren() {
  std::vector<pid_t> Out;
  char Path[64];
  std::snprintf(Path, sizeof(Path), "/proc/self/task/%d/children",
                int(getpid()));
  if (FILE *F = std::fopen(Path, "r")) {
    int P;
    while (std::fscanf(F, "%d", &P) == 1)
      Out.push_back(P);
    std::fclose(F);
  }
  return Out;
}

/// Kills every process of the tree and reaps it: the program's group, then
/// each child (orphans of the tree are children here, being a subreaper),
/// until none is left. A killed process's own children become ours, so the
/// loop ends only when the tree is empty.
void killTree(pid_t Group, int &MainStatus, pid_t Main, bool &MainDone) {
  if (Group > 0)
    kill(-Group, SIGKILL);
  for (;;) {
    for (pid_t P : directChildren()) {
      kill(-P, SIGKILL); // Its group, if it leads one.
      kill(P, SIGKILL);
    }
    int Status;
    pid_t W = waitpid(-1, &Status, __WALL);
    if (W < 0) {
      if (errno == EINTR)
        continue;
      return; // ECHILD: the tree is empty.
    }
    if (W == Main && !MainDone) {
      MainStatus = Status;
      MainDone = true;
    }
  }
}

void writeAll(int Fd, const char *Data, size_t Size) {
  while (Size) {
    ssize_t N = write(Fd, Data, Size);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return;
    Data += N;
    Size -= size_t(N);
  }
}

/// The supervisor's options (the file comment says what each does).
struct Options {
  long ReportFd = -1, LogFd = -1, Uid = -1, Gid = -1;
  double Timeout = 0;
  enum { NoSeal, Seal, SealButSockets } Sealed = NoSeal;
  /// The index in argv of PROGRAM.
  int Program = 0;
};

Options parseOptions(int argc, char **argv) {
  Options O;
  int I = 1;
  for (; I < argc; ++I) {
    const char *A = argv[I];
    if (!std::strcmp(A, "--")) {
      ++I;
      break;
    }
    if (!std::strncmp(A, "--report-fd=", 12)) {
      if (!parseInt(A + 12, O.ReportFd) || O.ReportFd < 3)
        usage();
    } else if (!std::strncmp(A, "--log-fd=", 9)) {
      if (!parseInt(A + 9, O.LogFd) || O.LogFd < 3)
        usage();
    } else if (!std::strncmp(A, "--timeout=", 10)) {
      char *End = nullptr;
      O.Timeout = std::strtod(A + 10, &End);
      if (End == A + 10 || *End || !(O.Timeout > 0))
        usage();
    } else if (!std::strncmp(A, "--uid=", 6)) {
      if (!parseInt(A + 6, O.Uid) || O.Uid < 0)
        usage();
    } else if (!std::strncmp(A, "--gid=", 6)) {
      if (!parseInt(A + 6, O.Gid) || O.Gid < 0)
        usage();
    } else if (!std::strcmp(A, "--seal")) {
      O.Sealed = Options::Seal;
    } else if (!std::strcmp(A, "--seal=devices")) {
      O.Sealed = Options::SealButSockets;
    } else {
      usage();
    }
  }
  if (I >= argc || O.ReportFd < 0)
    usage();
  O.Program = I;
  return O;
}

/// In the forked child: becomes the run (its descriptors, user, keyring and
/// seal, the signal mask \p Old of before the supervisor's) and execs
/// PROGRAM; \p LogWrite is the log pipe's writing end, or -1.
[[noreturn]] void becomeProgram(const Options &O, int LogWrite,
                                const sigset_t &Old, char **argv) {
  sigprocmask(SIG_SETMASK, &Old, nullptr);
  setpgid(0, 0);
  if (O.LogFd >= 0) {
    dup2(LogWrite, int(O.LogFd)); // dup2 clears close-on-exec.
    if (O.LogFd > 3)
      close_range(3, unsigned(O.LogFd) - 1, 0);
    close_range(unsigned(O.LogFd) + 1, ~0U, 0);
  } else {
    close_range(3, ~0U, 0);
  }
  if (O.Uid >= 0) {
    gid_t G = O.Gid >= 0 ? gid_t(O.Gid) : gid_t(O.Uid);
    if (setgroups(0, nullptr) != 0 || setgid(G) != 0 ||
        setuid(uid_t(O.Uid)) != 0) {
      std::fprintf(stderr, "maxcode-timer: cannot become user %ld: %s\n", O.Uid,
                   std::strerror(errno));
      _exit(127);
    }
  }
  if (!joinFreshSessionKeyring()) {
    std::fprintf(stderr,
                 "maxcode-timer: cannot give the run a keyring of its own: "
                 "%s\n",
                 std::strerror(errno));
    _exit(127);
  }
  // Last: the filter also refuses the keyring calls above.
  if (O.Sealed != Options::NoSeal &&
      !maxcode_timer::installKernelSeal(O.Sealed == Options::SealButSockets)) {
    std::fprintf(stderr,
                 "maxcode-timer: cannot close the kernel's channels between "
                 "runs (seccomp): %s\n",
                 std::strerror(errno));
    _exit(127);
  }
  execvp(argv[O.Program], argv + O.Program);
  std::fprintf(stderr, "maxcode-timer: cannot run %s: %s\n", argv[O.Program],
               std::strerror(errno));
  _exit(127);
}

/// What became of a run's process tree.
struct Outcome {
  std::string Log;
  int MainStatus = 0;
  bool MainDone = false, Killed = false, TimedOut = false;
  long long End = 0;
};

/// Appends what \p Fd holds now to \p Log, up to MaxLogBytes; false when
/// the pipe is closed (all its writers gone) or broken.
bool readLog(int Fd, std::string &Log) {
  char Buf[65536];
  ssize_t Got = read(Fd, Buf, sizeof(Buf));
  if (Got < 0 && errno == EINTR)
    return true;
  if (Got <= 0)
    return false;
  if (Log.size() < MaxLogBytes)
    Log.append(Buf, std::min(size_t(Got), MaxLogBytes - Log.size()));
  return true;
}

/// Waits until the last process of \p Main's tree has exited, or a stop
/// request (on \p SigFd) or \p Deadline (0: none) comes first, when it
/// kills the tree; reads the log pipe \p LogRead (-1: none) meanwhile.
Outcome superviseTree(pid_t Main, int SigFd, int LogRead, long long Deadline) {
  Outcome R;
  bool LogOpen = LogRead >= 0;
  for (;;) {
    // Reap whatever has ended; stop once no process of the tree is left.
    bool Empty = false;
    for (;;) {
      int Status;
      pid_t W = waitpid(-1, &Status, WNOHANG | __WALL);
      if (W == 0)
        break;
      if (W < 0) {
        if (errno == EINTR)
          continue;
        Empty = true; // ECHILD
        break;
      }
      if (W == Main) {
        R.MainStatus = Status;
        R.MainDone = true;
      }
    }
    if (Empty) {
      R.End = nowNs();
      break;
    }
    struct pollfd Fds[2] = {{SigFd, POLLIN, 0}, {LogRead, POLLIN, 0}};
    int Wait = -1;
    if (Deadline) {
      long long Left = Deadline - nowNs();
      if (Left <= 0) {
        killTree(Main, R.MainStatus, Main, R.MainDone);
        R.Killed = R.TimedOut = true;
        R.End = nowNs();
        break;
      }
      Wait = int(std::min<long long>(Left / 1000000 + 1, 1000));
    }
    int N = poll(Fds, LogOpen ? 2 : 1, Wait);
    if (N < 0 && errno != EINTR)
      break;
    if (Fds[0].revents & POLLIN) {
      struct signalfd_siginfo Info;
      bool Stop = false;
      while (read(SigFd, &Info, sizeof(Info)) == sizeof(Info))
        if (Info.ssi_signo != SIGCHLD)
          Stop = true;
      if (Stop) {
        killTree(Main, R.MainStatus, Main, R.MainDone);
        R.Killed = true;
        R.End = nowNs();
        break;
      }
    }
    if (LogOpen && (Fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
      LogOpen = readLog(LogRead, R.Log);
  }
  // What is still in the log pipe (its writers are gone).
  while (LogOpen)
    LogOpen = readLog(LogRead, R.Log);
  return R;
}

/// Writes the report of run \p R of \p Main, started at \p Start, to \p Fd.
void writeReport(int Fd, const Outcome &R, pid_t Main, long long Start,
                 int Exit, int Signal) {
  struct rusage Usage;
  std::memset(&Usage, 0, sizeof(Usage));
  getrusage(RUSAGE_CHILDREN, &Usage);
  char Head[512];
  int Len = std::snprintf(
      Head, sizeof(Head),
      "maxcode-timer-report 1\nwall_ns %lld\nuser_us %lld\nsystem_us %lld\n"
      "maxrss_kb %ld\nexit %d\nsignal %d\nmain_pid %d\nkilled %d\n"
      "timed_out %d\nlog_bytes %zu\n",
      R.End - Start,
      (long long)Usage.ru_utime.tv_sec * 1000000 + Usage.ru_utime.tv_usec,
      (long long)Usage.ru_stime.tv_sec * 1000000 + Usage.ru_stime.tv_usec,
      Usage.ru_maxrss, Exit, Signal, int(Main), R.Killed ? 1 : 0,
      R.TimedOut ? 1 : 0, R.Log.size());
  writeAll(Fd, Head, size_t(Len));
  writeAll(Fd, R.Log.data(), R.Log.size());
  close(Fd);
}

} // namespace

int main(int argc, char **argv) {
  Options O = parseOptions(argc, argv);
  if (fcntl(int(O.ReportFd), F_SETFD, FD_CLOEXEC) != 0) {
    std::fprintf(stderr, "maxcode-timer: no report descriptor %ld\n",
                 O.ReportFd);
    return 125;
  }
  // Out of the program's reach: no /proc/PID/fd, no ptrace, no core.
  prctl(PR_SET_DUMPABLE, 0);
  prctl(PR_SET_CHILD_SUBREAPER, 1);

  int LogPipe[2] = {-1, -1};
  if (O.LogFd >= 0 && pipe2(LogPipe, O_CLOEXEC) != 0) {
    std::perror("maxcode-timer: pipe");
    return 125;
  }
  // Children and stop requests arrive on one descriptor, so the end of the
  // last process is seen at once (the wall time ends there).
  sigset_t Mask, Old;
  sigemptyset(&Mask);
  for (int S : {SIGCHLD, SIGTERM, SIGINT, SIGHUP})
    sigaddset(&Mask, S);
  sigprocmask(SIG_BLOCK, &Mask, &Old);
  int SigFd = signalfd(-1, &Mask, SFD_CLOEXEC | SFD_NONBLOCK);
  if (SigFd < 0) {
    std::perror("maxcode-timer: signalfd");
    return 125;
  }

  long long Start = nowNs();
  pid_t Main = fork();
  if (Main < 0) {
    std::perror("maxcode-timer: fork");
    return 125;
  }
  if (Main == 0)
    becomeProgram(O, LogPipe[1], Old, argv);
  setpgid(Main, Main); // Also here: no race with an early stop.
  if (LogPipe[1] >= 0)
    close(LogPipe[1]);

  long long Deadline = O.Timeout > 0 ? Start + (long long)(O.Timeout * 1e9) : 0;
  Outcome R = superviseTree(Main, SigFd, LogPipe[0], Deadline);
  int Exit =
      R.MainDone && WIFEXITED(R.MainStatus) ? WEXITSTATUS(R.MainStatus) : -1;
  int Signal =
      R.MainDone && WIFSIGNALED(R.MainStatus) ? WTERMSIG(R.MainStatus) : 0;
  writeReport(int(O.ReportFd), R, Main, Start, Exit, Signal);
  // Pass the program's fate on, so a caller without the report classifies
  // it the same way.
  if (Signal) {
    signal(Signal, SIG_DFL);
    sigset_t One;
    sigemptyset(&One);
    sigaddset(&One, Signal);
    sigprocmask(SIG_UNBLOCK, &One, nullptr);
    kill(getpid(), Signal);
  }
  return Exit < 0 ? 125 : Exit;
}
