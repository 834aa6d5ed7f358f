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

#include "maxcode/Support/Process.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace maxcode {

enum class SandboxMode { Auto, Bwrap, None };

llvm::StringRef sandboxModeName(SandboxMode M);

/// What one sandboxed process may see and write.
struct SandboxPolicy {
  /// Bwrap or None (Auto resolved by resolveSandboxMode).
  SandboxMode Mode = SandboxMode::None;
  /// Folders the process may write (its scratch folder).
  std::vector<std::string> Writable;
  /// Folders that must look empty to the process (the user's tree, the
  /// expected outputs).
  std::vector<std::string> Hidden;
  /// Files or folders kept visible, read-only, even inside a hidden folder
  /// (the tool's own helpers).
  std::vector<std::string> ReadOnly;
  /// Device nodes passed through (a GPU's /dev/nvidia*); bwrap's /dev
  /// otherwise holds only the basic devices.
  std::vector<std::string> Devices;
  /// The user to run as when started as root (the scratch folder's owner);
  /// -1 for `nobody`.
  int Uid = -1;
  int Gid = -1;
};

/// Auto picks bwrap when it is installed and works, else None. Asking for
/// bwrap where it does not work is an error.
llvm::Expected<SandboxMode> resolveSandboxMode(SandboxMode Requested);

/// Wraps \p Spec for \p Policy: the bwrap command line, the user to run as.
ProcessSpec sandboxed(ProcessSpec Spec, const SandboxPolicy &Policy);

/// A fresh folder removed on destruction; writable by the sandboxed user.
class ScratchDir {
public:
  static llvm::Expected<ScratchDir> create(llvm::StringRef Prefix,
                                           llvm::StringRef Parent = "");
  ScratchDir(ScratchDir &&Other);
  ScratchDir &operator=(ScratchDir &&Other);
  ~ScratchDir();
  const std::string &path() const { return Path; }
  /// The unprivileged user owning the folder when running as root, else -1.
  int uid() const { return Uid; }
  /// Keeps the folder (for debugging a failed evaluation).
  void keep() { Keep = true; }

private:
  ScratchDir() = default;
  std::string Path;
  bool Keep = false;
  int Uid = -1;
};

/// uid and gid of `nobody`, or -1 when not running as root.
std::pair<int, int> sandboxUser();

/// First of the uids given to scratch folders (as root): an unused range,
/// far above the ids distributions hand out.
constexpr int FirstSandboxUid = 3000000;
constexpr int SandboxUidCount = 100000;

} // namespace maxcode

#endif // MAXCODE_EVAL_SANDBOX_H
