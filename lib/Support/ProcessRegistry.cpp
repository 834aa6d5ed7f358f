//===-- ProcessRegistry.cpp - The children this process started -----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The tool's own process: the children it started, the strays it reaps as a
// subreaper, what an interrupt does (the children killed, the scratch
// folders removed, blocking work given a grace period), and the scratch
// folders registered for that.
//
//===----------------------------------------------------------------------===//

#include "ProcessRegistry.h"
#include "maxcode/Support/Process.h"
#include "maxcode/Support/TreeCopy.h"
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

namespace {
/// The children runProcess started and has not reaped yet. Anything else
/// whose parent is this process is a stray: a descendant of a child whose
/// supervisor died, re-parented here because we are a subreaper.
std::mutex ChildrenMutex;
std::set<pid_t> &liveChildren() {
  static std::set<pid_t> Children;
  return Children;
}
std::atomic<bool> IsSubreaper{false};

std::atomic<int> InterruptSignal{0};

/// What endNow() must undo, kept where a signal handler can read it without
/// a lock: the live children (a copy of liveChildren()) and the scratch
/// folders (registerScratch).
constexpr unsigned MaxTrackedChildren = 1024;
std::atomic<pid_t> ChildSlots[MaxTrackedChildren];
constexpr unsigned MaxScratch = 256;
struct ScratchSlot {
  /// 0: free; 1: being written; 2: Path holds a folder.
  std::atomic<int> State{0};
  char Path[PATH_MAX];
};
ScratchSlot ScratchSlots[MaxScratch];

void trackChild(pid_t Pid) {
  for (std::atomic<pid_t> &Slot : ChildSlots) {
    pid_t Free = 0;
    if (Slot.compare_exchange_strong(Free, Pid))
      return;
  }
}

void untrackChild(pid_t Pid) {
  for (std::atomic<pid_t> &Slot : ChildSlots) {
    pid_t Expected = Pid;
    if (Slot.compare_exchange_strong(Expected, 0))
      return;
  }
}

/// Removes \p Name (relative to \p ParentFd) and everything under it with
/// async-signal-safe calls only (no allocation, no locks): openat,
/// getdents64, unlinkat. Folders a program made read-only are opened up
/// first.
void removeTreeNow(int ParentFd, const char *Name, unsigned Depth) {
  int Fd =
      ::openat(ParentFd, Name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (Fd < 0) {
    ::unlinkat(ParentFd, Name, 0);
    return;
  }
  ::fchmod(Fd, 0700);
  // Entries removed while the folder is read may hide others from this
  // pass: read it again until it is empty (or nothing more goes).
  for (int Pass = 0; Pass < 4 && Depth < 64; ++Pass) {
    bool Removed = false;
    ::lseek(Fd, 0, SEEK_SET);
    alignas(8) char Buf[2048];
    long N;
    while ((N = ::syscall(SYS_getdents64, Fd, Buf, sizeof(Buf))) > 0) {
      for (long Off = 0; Off < N;) {
        // struct linux_dirent64: ino (8), off (8), reclen (2), type (1),
        // then the name; the C library declares no such struct.
        unsigned short RecLen;
        memcpy(&RecLen, Buf + Off + 16, sizeof(RecLen));
        unsigned char Type = static_cast<unsigned char>(Buf[Off + 18]);
        const char *Entry = Buf + Off + 19;
        Off += RecLen;
        if (!strcmp(Entry, ".") || !strcmp(Entry, ".."))
          continue;
        if (Type == DT_DIR ||
            (::unlinkat(Fd, Entry, 0) != 0 && errno == EISDIR))
          removeTreeNow(Fd, Entry, Depth + 1);
        Removed = true;
      }
    }
    if (!Removed)
      break;
  }
  ::close(Fd);
  ::unlinkat(ParentFd, Name, AT_REMOVEDIR);
}

/// Ends the process now, from a signal handler: kills the children's
/// process groups, removes the scratch folders, and dies of the interrupt's
/// signal (so that the parent sees it, as with any interrupted tool).
void endNow(int) {
  int Signal = InterruptSignal.load();
  if (!Signal)
    Signal = SIGTERM;
  for (std::atomic<pid_t> &Slot : ChildSlots) {
    pid_t Pid = Slot.load();
    if (Pid > 0) {
      ::kill(-Pid, SIGKILL);
      ::kill(Pid, SIGKILL);
    }
  }
  for (ScratchSlot &S : ScratchSlots)
    if (S.State.load() == 2)
      removeTreeNow(AT_FDCWD, S.Path, 0);
  static const char Msg[] =
      "interrupted: children stopped, scratch folders removed\n";
  if (::write(STDERR_FILENO, Msg, sizeof(Msg) - 1) < 0) {
    // Nothing else to tell it to.
  }
  ::signal(Signal, SIG_DFL);
  sigset_t Set;
  sigemptyset(&Set);
  sigaddset(&Set, Signal);
  ::sigprocmask(SIG_UNBLOCK, &Set, nullptr);
  ::raise(Signal);
  ::_exit(128 + Signal);
}

/// Work in progress that cannot look at interrupted() (BlockingWork).
std::atomic<int> BlockingWorkInFlight{0};

/// How long blocking work (a parse: Clang cannot be asked to stop) may go on
/// after an interrupt before endNow() cuts it short; after that, how often
/// the handler looks again for blocking work begun since. Everything else
/// unwinds on its own, printing what it has (how to --resume).
constexpr long InterruptGraceMicros = 800000;
constexpr long InterruptRecheckMicros = 100000;

void armDeadline(long Micros) {
  struct itimerval Deadline = {};
  Deadline.it_value.tv_usec = Micros;
  ::setitimer(ITIMER_REAL, &Deadline, nullptr);
}

void onDeadline(int Signal) {
  if (!InterruptSignal.load())
    return; // Not ours: no interrupt came.
  if (BlockingWorkInFlight.load() > 0)
    endNow(Signal);
  else
    armDeadline(InterruptRecheckMicros);
}

void onInterrupt(int Signal) {
  // A second Ctrl-C ends the process at once, the way people expect.
  if (InterruptSignal.load() && Signal == SIGINT) {
    endNow(Signal);
    return;
  }
  if (InterruptSignal.exchange(Signal))
    return;
  armDeadline(InterruptGraceMicros);
}

/// The pids whose parent is this process, from /proc.
std::vector<pid_t> childrenFromProc() {
  std::vector<pid_t> Out;
  pid_t Self = getpid();
  DIR *D = opendir("/proc");
  if (!D)
    return Out;
  while (struct dirent *E = readdir(D)) {
    llvm::StringRef Name(E->d_name);
    pid_t Pid;
    if (Name.getAsInteger(10, Pid))
      continue;
    auto Buf = llvm::MemoryBuffer::getFileAsStream("/proc/" + Name + "/stat");
    if (!Buf)
      continue;
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
    llvm::StringRef Stat = (*Buf)->getBuffer();
    size_t Close = Stat.rfind(')');
    if (Close == llvm::StringRef::npos)
      continue;
    llvm::SmallVector<llvm::StringRef, 4> F;
    Stat.drop_front(Close + 1).split(F, ' ', 3, false);
    pid_t Parent;
    if (F.size() >= 2 && !F[1].getAsInteger(10, Parent) && Parent == Self)
      Out.push_back(Pid);
  }
  closedir(D);
  return Out;
}

} // namespace

void proc::killStrays() {
  if (!IsSubreaper.load())
    return;
  static std::atomic<int64_t> LastNs{0};
  int64_t Now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    std::chrono::steady_clock::now().time_since_epoch())
                    .count();
  int64_t Last = LastNs.load();
  if (Now - Last < 200000000 || !LastNs.compare_exchange_strong(Last, Now))
    return;
  std::vector<pid_t> Strays;
  {
    std::lock_guard<std::mutex> L(ChildrenMutex);
    for (pid_t P : childrenFromProc())
      if (!liveChildren().count(P))
        Strays.push_back(P);
  }
  for (pid_t P : Strays) {
    ::kill(P, SIGKILL);
    int Status;
    while (waitpid(P, &Status, 0) < 0 && errno == EINTR)
      ;
  }
}

std::mutex &proc::childrenLock() { return ChildrenMutex; }

void proc::addLiveChild(pid_t Pid) {
  liveChildren().insert(Pid);
  trackChild(Pid);
}

void proc::removeLiveChild(pid_t Pid) {
  liveChildren().erase(Pid);
  untrackChild(Pid);
}

void maxcode::becomeSubreaper() {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) == 0)
    IsSubreaper.store(true);
}

void maxcode::installInterruptHandlers() {
  struct sigaction SA;
  memset(&SA, 0, sizeof(SA));
  SA.sa_handler = onInterrupt;
  sigemptyset(&SA.sa_mask);
  for (int S : {SIGINT, SIGTERM, SIGHUP})
    sigaction(S, &SA, nullptr);
  struct sigaction Alarm;
  memset(&Alarm, 0, sizeof(Alarm));
  Alarm.sa_handler = onDeadline;
  // The unwinding the deadline waits for is not to see EINTR from it.
  Alarm.sa_flags = SA_RESTART;
  sigemptyset(&Alarm.sa_mask);
  sigaction(SIGALRM, &Alarm, nullptr);
}

BlockingWork::BlockingWork() { BlockingWorkInFlight.fetch_add(1); }
BlockingWork::~BlockingWork() { BlockingWorkInFlight.fetch_sub(1); }

int maxcode::registerScratch(llvm::StringRef Path) {
  if (Path.empty() || Path.size() >= PATH_MAX)
    return -1;
  for (unsigned I = 0; I < MaxScratch; ++I) {
    int Free = 0;
    if (!ScratchSlots[I].State.compare_exchange_strong(Free, 1))
      continue;
    memcpy(ScratchSlots[I].Path, Path.data(), Path.size());
    ScratchSlots[I].Path[Path.size()] = 0;
    ScratchSlots[I].State.store(2);
    return int(I);
  }
  return -1;
}

void maxcode::unregisterScratch(int Slot) {
  if (Slot >= 0 && unsigned(Slot) < MaxScratch)
    ScratchSlots[Slot].State.store(0);
}

llvm::Expected<TempFolder> TempFolder::create(llvm::StringRef Prefix) {
  llvm::SmallString<128> Dir;
  if (std::error_code EC = llvm::sys::fs::createUniqueDirectory(Prefix, Dir))
    return llvm::createStringError("cannot create a scratch folder: " +
                                   EC.message());
  TempFolder F;
  F.Path = std::string(Dir);
  F.Slot = registerScratch(F.Path);
  return F;
}

TempFolder::TempFolder(TempFolder &&Other)
    : Path(std::move(Other.Path)), Slot(Other.Slot) {
  Other.Path.clear();
  Other.Slot = -1;
}

TempFolder::~TempFolder() {
  if (!Path.empty())
    llvm::consumeError(removeTree(Path));
  unregisterScratch(Slot);
}

bool maxcode::interrupted() { return InterruptSignal.load() != 0; }
int maxcode::interruptSignal() { return InterruptSignal.load(); }
void maxcode::requestInterrupt(int Signal) { InterruptSignal.store(Signal); }
