//===-- KernelSeal.h - No state through the kernel between runs -*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A seccomp filter that closes the kernel's channels between runs (DESIGN
/// section 4, rule 12; docs/Security.md lists each channel and how it is
/// closed). Files are rule 2's: every run has a fresh folder and /tmp. What
/// the kernel keeps besides files, and a later run could read, is closed
/// here, for the program and every process it starts:
///
///  - page-cache residency, read (mincore, cachestat, preadv2 with
///    RWF_NOWAIT) and shaped (posix_fadvise, readahead, madvise's
///    WILLNEED/COLD/PAGEOUT, process_madvise): probes fail, hints do
///    nothing and say they succeeded, as the kernel may;
///  - io_uring, which carries the same requests past this filter;
///  - keyrings (keyctl, add_key, request_key): the user keyring is shared
///    by every process of the user;
///  - System V IPC and POSIX message queues;
///  - Unix sockets (abstract ones outlive no run, but reach concurrent
///    ones where there is no network namespace), except for a GPU's
///    program, whose driver may talk to its daemons.
///
/// A system call of another ABI (i386's int 0x80 or x32 on x86-64) fails:
/// its numbers are not the ones this filter reads.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_TIMER_KERNELSEAL_H
#define MAXCODE_TIMER_KERNELSEAL_H

namespace maxcode_timer {

/// Installs the filter in the calling process (inherited by what it
/// executes and forks). \p UnixSockets leaves AF_UNIX sockets open. False,
/// with errno set, when the kernel refuses it.
bool installKernelSeal(bool UnixSockets);

} // namespace maxcode_timer

#endif // MAXCODE_TIMER_KERNELSEAL_H
