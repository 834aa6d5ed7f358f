//===-- KernelSeal.cpp - No state through the kernel between runs ---------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A classic BPF program, written out here because the timer links nothing
// but libc (libseccomp would be a dependency of every run for 40 lines).
//
//===----------------------------------------------------------------------===//

#include "KernelSeal.h"

#include <cerrno>
#include <cstddef>
#include <initializer_list>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

#if defined(__x86_64__)
#define MAXCODE_SEAL_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define MAXCODE_SEAL_ARCH AUDIT_ARCH_AARCH64
#endif

// Newer than some kernel headers; the numbers are the same on every
// architecture (the unified table from 5.1 on).
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#define __NR_io_uring_enter 426
#define __NR_io_uring_register 427
#endif
#ifndef __NR_process_madvise
#define __NR_process_madvise 440
#endif
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

namespace {

// posix_fadvise and madvise advice that moves pages into or out of the
// page cache; the rest (sequential, random, normal; dontneed of anonymous
// memory, which malloc uses) only tunes this process's own reads.
constexpr unsigned FadvWillNeed = 3, FadvDontNeed = 4, FadvNoReuse = 5;
constexpr unsigned MadvWillNeed = 3, MadvCold = 20, MadvPageOut = 21;
constexpr unsigned RwfNoWait = 0x8;

/// The low 32 bits of system call argument \p K.
constexpr unsigned argLow(unsigned K) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  return offsetof(struct seccomp_data, args) + 8 * K;
#else
  return offsetof(struct seccomp_data, args) + 8 * K + 4;
#endif
}

constexpr unsigned fail(int Errno) {
  return SECCOMP_RET_ERRNO | (unsigned(Errno) & SECCOMP_RET_DATA);
}
/// A hint that does nothing and reports success, as the kernel may.
constexpr unsigned Ignored = SECCOMP_RET_ERRNO | 0;
constexpr unsigned Allow = SECCOMP_RET_ALLOW;

class Program {
public:
  void stmt(unsigned short Code, unsigned K) {
    Insns.push_back(BPF_STMT(Code, K));
  }
  void jump(unsigned short Code, unsigned K, unsigned char T, unsigned char F) {
    Insns.push_back(BPF_JUMP(Code, K, T, F));
  }
  void loadNr() {
    stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
  }

  /// System call \p Nr returns \p Ret.
  void deny(long Nr, unsigned Ret) {
    loadNr();
    jump(BPF_JMP | BPF_JEQ | BPF_K, unsigned(Nr), 0, 1);
    stmt(BPF_RET | BPF_K, Ret);
  }

  /// System call \p Nr returns \p Ret when the low half of argument \p Arg
  /// is one of \p Values.
  void denyWhenArgIn(long Nr, unsigned Arg,
                     std::initializer_list<unsigned> Values, unsigned Ret) {
    unsigned char N = static_cast<unsigned char>(Values.size());
    loadNr();
    jump(BPF_JMP | BPF_JEQ | BPF_K, unsigned(Nr), 0, N + 3);
    stmt(BPF_LD | BPF_W | BPF_ABS, argLow(Arg));
    unsigned char J = 0;
    for (unsigned V : Values)
      jump(BPF_JMP | BPF_JEQ | BPF_K, V, N - J++, 0);
    stmt(BPF_RET | BPF_K, Allow);
    stmt(BPF_RET | BPF_K, Ret);
  }

  /// System call \p Nr returns \p Ret when argument \p Arg has a bit of
  /// \p Mask set.
  void denyWhenArgHas(long Nr, unsigned Arg, unsigned Mask, unsigned Ret) {
    loadNr();
    jump(BPF_JMP | BPF_JEQ | BPF_K, unsigned(Nr), 0, 4);
    stmt(BPF_LD | BPF_W | BPF_ABS, argLow(Arg));
    jump(BPF_JMP | BPF_JSET | BPF_K, Mask, 1, 0);
    stmt(BPF_RET | BPF_K, Allow);
    stmt(BPF_RET | BPF_K, Ret);
  }

  std::vector<struct sock_filter> Insns;
};

} // namespace

bool maxcode_timer::installKernelSeal(bool UnixSockets) {
#ifndef MAXCODE_SEAL_ARCH
  (void)UnixSockets;
  errno = ENOSYS;
  return false;
#else
  Program P;
  // Another ABI's numbers mean other calls: refused whole.
  P.stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
  P.jump(BPF_JMP | BPF_JEQ | BPF_K, MAXCODE_SEAL_ARCH, 1, 0);
  P.stmt(BPF_RET | BPF_K, fail(ENOSYS));
#ifdef __x86_64__
  P.loadNr();
  P.jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1); // x32
  P.stmt(BPF_RET | BPF_K, fail(ENOSYS));
#endif

  // Page-cache residency, read.
  P.deny(__NR_mincore, fail(ENOSYS));
  P.deny(__NR_cachestat, fail(ENOSYS));
  P.denyWhenArgHas(__NR_preadv2, 5, RwfNoWait, fail(EOPNOTSUPP));
  P.denyWhenArgHas(__NR_pwritev2, 5, RwfNoWait, fail(EOPNOTSUPP));
  // ... and shaped.
  P.deny(__NR_readahead, Ignored);
#ifdef __NR_fadvise64
  P.denyWhenArgIn(__NR_fadvise64, 3, {FadvWillNeed, FadvDontNeed, FadvNoReuse},
                  Ignored);
#endif
  P.denyWhenArgIn(__NR_madvise, 2, {MadvWillNeed, MadvCold, MadvPageOut},
                  Ignored);
  P.deny(__NR_process_madvise, fail(ENOSYS));
  for (long Nr :
       {__NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register})
    P.deny(Nr, fail(ENOSYS));
  // Keyrings, System V IPC, POSIX message queues.
  for (long Nr : {__NR_keyctl,          __NR_add_key,    __NR_request_key,
                  __NR_shmget,          __NR_shmat,      __NR_shmctl,
                  __NR_shmdt,           __NR_msgget,     __NR_msgsnd,
                  __NR_msgrcv,          __NR_msgctl,     __NR_semget,
                  __NR_semop,           __NR_semtimedop, __NR_semctl,
                  __NR_mq_open,         __NR_mq_unlink,  __NR_mq_timedsend,
                  __NR_mq_timedreceive, __NR_mq_notify,  __NR_mq_getsetattr})
    P.deny(Nr, fail(ENOSYS));
  // A socket pair is the process tree's own; a named or abstract socket
  // is not.
  if (!UnixSockets)
    P.denyWhenArgIn(__NR_socket, 0, {AF_UNIX}, fail(EACCES));
  P.stmt(BPF_RET | BPF_K, Allow);

  struct sock_fprog Prog;
  Prog.len = static_cast<unsigned short>(P.Insns.size());
  Prog.filter = P.Insns.data();
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return false;
  return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &Prog) == 0;
#endif
}
