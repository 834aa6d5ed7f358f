//===-- ProcessRegistry.h - The children this process started ---*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Private to lib/Support: the children runProcess started, which an
/// interrupt kills and a stray sweep spares (ProcessRegistry.cpp, with the
/// interrupt handlers and the scratch folders an interrupt removes).
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_LIB_SUPPORT_PROCESSREGISTRY_H
#define MAXCODE_LIB_SUPPORT_PROCESSREGISTRY_H

#include <mutex>
#include <sys/types.h>

namespace maxcode {
namespace proc {

/// Held while a child is forked and registered, and while it is forgotten:
/// a stray sweep never sees a child between its fork and its registration.
std::mutex &childrenLock();
/// With childrenLock() held: \p Pid is a live child of runProcess.
void addLiveChild(pid_t Pid);
/// With childrenLock() held: \p Pid was reaped.
void removeLiveChild(pid_t Pid);
/// Kills and reaps every stray: a process whose parent is this one (a
/// subreaper) and that runProcess did not start. Rate-limited, since each
/// running child's monitor calls it.
void killStrays();

} // namespace proc
} // namespace maxcode

#endif // MAXCODE_LIB_SUPPORT_PROCESSREGISTRY_H
