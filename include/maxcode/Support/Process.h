//===-- maxcode/Support/Process.h - Child processes with limits -*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The one way clang-maxcode starts a child process: its own process group,
/// resource limits, a wall-clock deadline that kills the whole group, and
/// captured output with a cap. Profiling (Frontend) and evaluation (Eval) both
/// go through it.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_SUPPORT_PROCESS_H
#define MAXCODE_SUPPORT_PROCESS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <atomic>
#include <csignal>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace maxcode {

/// Limits applied to a child and, where the kernel allows, to everything it
/// starts. A zero means "no limit".
struct ProcessLimits {
  double WallSeconds = 0;
  unsigned CpuSeconds = 0;
  uint64_t MemoryBytes = 0;   ///< Address space (RLIMIT_AS).
  uint64_t FileSizeBytes = 0; ///< Largest file the child may write.
  unsigned MaxProcesses = 0;  ///< RLIMIT_NPROC of the user the child runs as.
  uint64_t OutputBytes = 64ull
                         << 20; ///< Cap on captured stdout, and on stderr.
};

struct ProcessSpec {
  /// Argv[0] is looked up on PATH when it has no slash.
  std::vector<std::string> Argv;
  /// Working directory; empty for the current one.
  std::string WorkingDir;
  /// Variables set on top of the environment the child starts from.
  std::vector<std::pair<std::string, std::string>> Env;
  /// Start from the parent's whole environment. Off by default: a child
  /// starts from the allow-list (safeEnvironmentNames() and PassEnv), so no
  /// secret of the user's reaches it (DESIGN section 7). Only the user's own
  /// commands (--profile-cmd) and our own tools inherit everything.
  bool InheritEnvironment = false;
  /// Further variables passed from the parent's environment (--pass-env);
  /// "SLURM_*" passes every variable with that prefix.
  std::vector<std::string> PassEnv;
  /// File fed on stdin; empty for /dev/null.
  std::string StdinFile;
  ProcessLimits Limits;
  /// When running as root, run the child as this uid/gid instead, so that
  /// RLIMIT_NPROC is enforced (the kernel does not apply it to root).
  /// -1 keeps the current user.
  int RunAsUid = -1;
  int RunAsGid = -1;
  /// As root: files and folders the child's user can read but not reach,
  /// because a folder above them is closed to it (a project under /root, or
  /// under a 0700 temporary folder), each with the topmost such folder. The
  /// child is given a mount namespace of its own where each of those
  /// folders is an empty tmpfs holding only these paths, bound at their own
  /// paths: they become reachable, and nothing else there is visible. The
  /// user's system is unchanged (the namespace is the child's alone).
  struct Exposed {
    std::string Path;
    std::string Cover;
  };
  std::vector<Exposed> Expose;
  /// Give the child descriptor 3, the write end of a pipe whose content
  /// becomes ProcessResult::Report. Only for our own supervisor
  /// (maxcode-timer), which keeps it from the program it runs; every other
  /// child sees descriptors 0, 1 and 2 only.
  bool ReportPipe = false;
  /// How long a child asked to stop (timeout, cancel, interrupt) has to end
  /// on SIGTERM before its group is killed: our own supervisor and tools
  /// clean up in that time.
  double StopGraceSeconds = 2;
  /// When given, polled while the child runs: once it reads true the whole
  /// group is killed and the result says Cancelled (an editor's "stop").
  const std::atomic<bool> *Cancel = nullptr;
  /// When given, called from the waiting loop about every 100 ms while the
  /// child runs, and once after it ended (an editor's progress file is read
  /// this way, with no thread of its own).
  std::function<void()> WhileRunning;
};

struct ProcessResult {
  int ExitCode = -1;     ///< Valid when Signal == 0 and !TimedOut.
  int Signal = 0;        ///< Signal that ended the child, 0 if it exited.
  bool TimedOut = false; ///< Killed at the wall-clock deadline.
  bool OutputLimitExceeded = false; ///< Killed for writing too much output.
  bool Cancelled = false;   ///< Killed because ProcessSpec::Cancel was set.
  bool Interrupted = false; ///< Killed because the tool was interrupted.
  std::string Stdout;
  std::string Stderr;
  /// What the child wrote to its report pipe (ProcessSpec::ReportPipe).
  std::string Report;
  double WallSeconds = 0;
  double UserSeconds = 0;
  double SystemSeconds = 0;
  uint64_t MaxRSSBytes = 0;
  /// The scheduler's id of the job that ran the process (Slurm); empty when
  /// it ran on this machine.
  std::string JobId;
  /// Jobs that ran the process before JobId and were lost with their node.
  std::vector<std::string> LostJobIds;

  bool succeeded() const {
    return !TimedOut && !OutputLimitExceeded && !Cancelled && !Interrupted &&
           Signal == 0 && ExitCode == 0;
  }
  /// "exited with code 3", "killed by signal 11 (Segmentation fault)", ...
  std::string describe() const;
  /// The error for a command of the user's that failed: "\p What
  /// describe()", then the last 2000 bytes of its stderr, where the cause is.
  llvm::Error failure(const llvm::Twine &What) const;
};

/// Runs \p Spec to completion. Fails only when the child could not be
/// started (the program is missing, fork failed, ...); a child that fails is
/// a successful ProcessResult describing that failure.
llvm::Expected<ProcessResult> runProcess(const ProcessSpec &Spec);

/// Where a user's own command is run: \p Spec as it is to run, given a
/// folder it must be able to write (its report's); the identity where
/// nothing says otherwise.
using CommandPlacement =
    std::function<ProcessSpec(ProcessSpec Spec, llvm::StringRef Writable)>;

/// Runs the user's own command \p Command through /bin/sh, after the words
/// of \p Wrapper (a profiler; none for the command alone), unmodified: with
/// the user's environment and \p Env on top, placed by \p Place with
/// \p Writable (where it writes its report), within \p TimeoutSeconds. An
/// error with the command's output when it fails.
llvm::Error runUserCommand(llvm::StringRef Command,
                           std::vector<std::string> Wrapper,
                           std::vector<std::pair<std::string, std::string>> Env,
                           const CommandPlacement &Place,
                           llvm::StringRef Writable, double TimeoutSeconds);

/// The variables a child gets from the parent's environment by default:
/// what compilers, shells and the C library need, nothing that holds a
/// credential (PATH, LANG, LC_*, TZ, LD_LIBRARY_PATH, CUDA's paths, ...).
llvm::ArrayRef<llvm::StringLiteral> safeEnvironmentNames();

/// Makes this process a child subreaper, so that a descendant whose parent
/// died (a grandchild that escaped its supervisor) is re-parented here and
/// killed by runProcess instead of living on. Tools call it once in main().
void becomeSubreaper();

/// SIGINT, SIGTERM and SIGHUP set a flag instead of ending the process:
/// every runProcess then stops its child, and the callers see interrupted()
/// and unwind (scratch folders removed, the store left consistent). Blocking
/// work (a parse: Clang cannot be asked to stop) still in progress 0.8 s
/// after the signal, or begun after that, ends the process: the children's
/// process groups killed, the folders of registerScratch removed, and the
/// process dies of the signal. A second SIGINT does that at once. Tools
/// call it once in main().
void installInterruptHandlers();

/// Marks, while it lives, work that cannot look at interrupted() (a Clang
/// parse), so that an interrupt ends the process within a second even then
/// (installInterruptHandlers).
class BlockingWork {
public:
  BlockingWork();
  ~BlockingWork();
  BlockingWork(const BlockingWork &) = delete;
  BlockingWork &operator=(const BlockingWork &) = delete;
};

/// Registers \p Path, a scratch folder, for removal when an interrupt ends
/// the process before its owner could remove it; returns the slot for
/// unregisterScratch (-1 when none is free: the folder is then left).
int registerScratch(llvm::StringRef Path);
void unregisterScratch(int Slot);
/// A fresh folder in the system's temporary folder for the tool's own
/// files (a profiler's output), removed with its contents on destruction
/// and, through registerScratch, when an interrupt ends the process first.
class TempFolder {
public:
  /// Names the folder after \p Prefix; the error says why it cannot be.
  static llvm::Expected<TempFolder> create(llvm::StringRef Prefix);
  TempFolder(TempFolder &&Other);
  TempFolder &operator=(TempFolder &&Other) = delete;
  ~TempFolder();
  const std::string &path() const { return Path; }

private:
  TempFolder() = default;
  std::string Path;
  int Slot = -1;
};

/// True once an interrupt arrived (or requestInterrupt() was called).
bool interrupted();
/// The signal that interrupted, or 0.
int interruptSignal();
void requestInterrupt(int Signal = SIGTERM);

/// Splits a shell-style command line into words (quotes and backslashes as
/// POSIX sh does; no expansions).
std::vector<std::string> splitCommandLine(llvm::StringRef Command);

/// Quotes \p Word for /bin/sh.
std::string shellQuote(llvm::StringRef Word);

} // namespace maxcode

#endif // MAXCODE_SUPPORT_PROCESS_H
