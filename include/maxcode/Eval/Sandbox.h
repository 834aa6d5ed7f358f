//===-- maxcode/Eval/Sandbox.h - Running untrusted code safely --*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// DESIGN section 7: every build and run gets a fresh scratch folder, its own
/// process group and limits; with bubblewrap also no network, a read-only view
/// of the system, and the user's tree and the expected outputs hidden. As
/// root, children run as an unprivileged user of their own, one per scratch
/// folder, so that the process limit holds (the kernel does not apply
/// RLIMIT_NPROC to root) and one fork bomb cannot starve other evaluations.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_EVAL_SANDBOX_H
#define MAXCODE_EVAL_SANDBOX_H

#include "maxcode/Support/Options.h"
#include "maxcode/Support/Process.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace maxcode {

/// How far a result obtained under sandbox mode \p M can be trusted, as the
/// outputs say it: "full" with bubblewrap; "weaker (sandbox none)" without,
/// where a run shares the machine, its files and its kernel state with the
/// user and with other runs (docs/Security.md says what exactly).
llvm::StringRef integrityOf(SandboxMode M);

/// What one sandboxed process may see and write (DESIGN section 7). With
/// bubblewrap the file system is an allow-list, the same for builds and
/// runs: the system toolchain and the folders below read-only, the writable
/// folders read-write, a private /tmp of TmpBytes; nothing else of the
/// machine (the user's home, the store, transcripts, reports) is there.
struct SandboxPolicy {
  /// Bwrap or None (Auto resolved by resolveSandboxMode).
  SandboxMode Mode = SandboxMode::None;
  /// Visible read-only at their own path: the compile command's include
  /// folders, the source's folder, a toolchain outside /usr, our helpers.
  std::vector<std::string> ReadOnly;
  /// Folders the process may write, at their own path (a build's scratch).
  std::vector<std::string> Writable;
  /// A host file or folder shown at another path inside the sandbox: every
  /// run sees its fresh working folder and its binary at the same place.
  struct Mount {
    std::string Host, Inside;
    bool Writable = false;
  };
  std::vector<Mount> Mounts;
  /// Files or folders never visible, even inside a ReadOnly folder (the
  /// expected outputs, the store, transcripts, reports).
  std::vector<std::string> Hidden;
  /// Device nodes passed through (a GPU's /dev/nvidia*); bwrap's /dev
  /// otherwise holds only the basic devices.
  std::vector<std::string> Devices;
  /// Size of the private /tmp (bwrap); without bwrap there is none.
  uint64_t TmpBytes = 256ull << 20;
  /// The user to run as when started as root (the scratch folder's owner);
  /// -1 for `nobody`.
  int Uid = -1;
  int Gid = -1;
  /// maxcode-timer: when set, the program runs under it (see its file
  /// comment) and the report arrives in ProcessResult::Report.
  std::string Supervisor;
  /// With a supervisor: a descriptor of the program that is a pipe whose
  /// content the report carries (valgrind's --log-fd).
  int LogFd = -1;
  /// With a supervisor: its own deadline for the run, after which it kills
  /// the whole tree and still reports (0: none). The process's own
  /// WallSeconds should be later, as a backstop.
  double SupervisorTimeout = 0;
  /// With a supervisor: close what the kernel keeps between runs besides
  /// files (page-cache residency, keyrings, IPC, Unix sockets; DESIGN
  /// section 4, rule 12) for a variant's run. Builds are the toolchain's
  /// and keep them. Unix sockets stay open where Devices are given.
  bool SealKernel = false;
};

/// Auto picks bwrap when it is installed and works, else None. Asking for
/// bwrap where it does not work is an error, which \p Names name.
llvm::Expected<SandboxMode> resolveSandboxMode(SandboxMode Requested,
                                               OptionNames Names);

/// Wraps \p Spec for \p Policy: the supervisor, the bwrap command line, the
/// user to run as.
ProcessSpec sandboxed(ProcessSpec Spec, const SandboxPolicy &Policy);

/// Where the user's own command runs when it must leave the user's tree as
/// it was (--profile-cmd; DESIGN section 7). It is the user's command, with
/// the user's environment and rights: nothing is hidden from it, but with
/// bubblewrap the whole machine is read-only to it, except a writable copy
/// of the tree shown at the tree's own path (so its build folder and its
/// absolute paths hold, and what it writes there goes to the copy), the
/// system's temporary folder and the folders in Writable. Without
/// bubblewrap it starts in the copy where it would have started in the
/// tree: relative paths land in the copy, absolute ones into the tree do
/// not (the docs say so).
struct TreeCopyView {
  std::string Tree; ///< The user's folder, left unchanged.
  std::string Copy; ///< Its copy; empty when there is none (read-only).
  std::vector<std::string> Writable;
  bool Bwrap = false;
};

/// \p Spec, run in \p View.
ProcessSpec inTreeCopy(ProcessSpec Spec, const TreeCopyView &View);

/// Why a program under \p P may not find what it reads, when it is so: a
/// path the policy shows (reads, writes, runs) that the sandbox's user
/// cannot read itself (as root, builds and runs are an unprivileged user's;
/// a folder above the path that the user cannot enter is no obstacle, as
/// sandboxed() makes such a path reachable). It names the path, its mode
/// and owner, the user and the fix; empty when every path is readable.
std::string unreachableAdvice(const SandboxPolicy &P);

/// A fresh folder removed on destruction; writable by the sandboxed user.
class ScratchDir {
public:
  /// As root, the folder is handed to \p Owner, or, when that is -1, to a
  /// user of its own (from a hash of its unique name).
  static llvm::Expected<ScratchDir>
  create(llvm::StringRef Prefix, llvm::StringRef Parent = "", int Owner = -1);
  /// Creates exactly \p Path (its parent must exist; it must not), handed
  /// to \p Owner as root.
  static llvm::Expected<ScratchDir> createAt(llvm::StringRef Path,
                                             int Owner = -1);
  ScratchDir(ScratchDir &&Other);
  ScratchDir &operator=(ScratchDir &&Other);
  ~ScratchDir();
  const std::string &path() const { return Path; }
  /// The unprivileged user owning the folder when running as root, else -1.
  int uid() const { return Uid; }
  /// Keeps the folder (for debugging a failed evaluation).
  void keep() {
    Keep = true;
    unregisterScratch(Slot);
    Slot = -1;
  }

private:
  ScratchDir() = default;
  std::string Path;
  bool Keep = false;
  int Uid = -1;
  /// Its registerScratch slot: removed if an interrupt ends the process.
  int Slot = -1;
};

/// What the supervisor reported about one run (see maxcode-timer).
struct SupervisorReport {
  double WallSeconds = 0, UserSeconds = 0, SystemSeconds = 0;
  uint64_t MaxRSSBytes = 0;
  int ExitCode = -1;
  int Signal = 0;
  int MainPid = 0;
  bool Killed = false;
  bool TimedOut = false; ///< Its own deadline (--timeout) ended the run.
  std::string Log;
};
/// Parses ProcessResult::Report; a missing or malformed report is an error
/// of that run (never replaced by another number).
llvm::Expected<SupervisorReport> parseSupervisorReport(llvm::StringRef Text);

/// uid and gid of `nobody`, or -1 when not running as root.
std::pair<int, int> sandboxUser();

/// First of the uids given to scratch folders (as root): an unused range,
/// far above the ids distributions hand out.
constexpr int FirstSandboxUid = 3000000;
constexpr int SandboxUidCount = 100000;

} // namespace maxcode

#endif // MAXCODE_EVAL_SANDBOX_H
