// Tries each channel a run could leave state in for a later run besides
// files (DESIGN section 4, rule 12) and prints what the kernel answered:
// "NAME ok" or "NAME errno-name". Built and run by kernel-seal.test with and
// without maxcode-timer's seccomp filter.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <mqueue.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static void say(const char *Name, long R) {
  if (R >= 0)
    std::printf("%s ok\n", Name);
  else
    std::printf("%s %s\n", Name, strerrorname_np(errno));
}

/// posix_fadvise returns the error rather than setting errno.
static void sayCode(const char *Name, int Code) {
  if (Code == 0)
    std::printf("%s ok\n", Name);
  else
    std::printf("%s %s\n", Name, strerrorname_np(Code));
}

int main(int Argc, char **Argv) {
  const char *Path = Argc > 1 ? Argv[1] : "/proc/self/exe";
  int Fd = open(Path, O_RDONLY);
  if (Fd < 0) {
    std::perror(Path);
    return 1;
  }
  long Page = sysconf(_SC_PAGESIZE);
  void *Map = mmap(nullptr, size_t(Page), PROT_READ, MAP_SHARED, Fd, 0);
  unsigned char Vec[1];
  say("mincore", mincore(Map, size_t(Page), Vec));
  struct cachestat_range {
    unsigned long long off, len;
  } Range = {0, static_cast<unsigned long long>(Page)};
  unsigned long long Stat[8];
  say("cachestat", syscall(451, Fd, &Range, Stat, 0));
  char Buf[16];
  struct iovec Io = {Buf, sizeof(Buf)};
  say("preadv2-nowait", preadv2(Fd, &Io, 1, 0, RWF_NOWAIT));
  say("preadv2", preadv2(Fd, &Io, 1, 0, 0));
  sayCode("fadvise-dontneed", posix_fadvise(Fd, 0, Page, POSIX_FADV_DONTNEED));
  sayCode("fadvise-sequential",
          posix_fadvise(Fd, 0, Page, POSIX_FADV_SEQUENTIAL));
  say("readahead", readahead(Fd, 0, size_t(Page)));
  say("madvise-willneed", madvise(Map, size_t(Page), MADV_WILLNEED));
  say("madvise-pageout", madvise(Map, size_t(Page), MADV_PAGEOUT));
  void *Anon = mmap(nullptr, size_t(Page), PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  say("madvise-dontneed-anonymous", madvise(Anon, size_t(Page), MADV_DONTNEED));
  say("io_uring_setup", syscall(425, 1, Buf));
  say("add_key", syscall(SYS_add_key, "user", "maxcode", "x", 1, -4 /*@u*/));
  say("keyctl", syscall(SYS_keyctl, 0 /*GET_KEYRING_ID*/, -4, 0));
  say("shmget", shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600));
  say("msgget", msgget(IPC_PRIVATE, IPC_CREAT | 0600));
  say("semget", semget(IPC_PRIVATE, 1, IPC_CREAT | 0600));
  struct mq_attr Attr = {0, 1, 8, 0, {0}};
  mqd_t Q = mq_open("/maxcode-probe", O_CREAT | O_RDWR, 0600, &Attr);
  say("mq_open", long(Q));
  if (Q != mqd_t(-1))
    mq_unlink("/maxcode-probe");
  say("socket-unix", socket(AF_UNIX, SOCK_STREAM, 0));
  int Pair[2];
  say("socketpair-unix", socketpair(AF_UNIX, SOCK_STREAM, 0, Pair));
  say("getpid", getpid());
  return 0;
}
