//===-- MaxcodeTimer.cpp - Time one run from inside the sandbox -----------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// maxcode-timer REPORT PROGRAM [ARGS...]
///
/// Runs PROGRAM (stdin, stdout and stderr inherited) and writes one line to
/// REPORT: "wall_ns user_us system_us maxrss_kb exit_code signal". The
/// evaluator starts it inside the sandbox so that a timed run measures the
/// program alone, not the sandbox's set-up (namespaces cost tens of
/// milliseconds, more than many test programs take). Deliberately free of
/// LLVM: it must start fast and stay out of the measurement.
///
//===----------------------------------------------------------------------===//

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static long long nowNs() {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec * 1000000000LL + T.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: maxcode-timer REPORT PROGRAM [ARGS...]\n");
    return 125;
  }
  long long Start = nowNs();
  pid_t Pid = fork();
  if (Pid < 0) {
    std::perror("maxcode-timer: fork");
    return 125;
  }
  if (Pid == 0) {
    execvp(argv[2], argv + 2);
    std::fprintf(stderr, "maxcode-timer: cannot run %s: %s\n", argv[2],
                 std::strerror(errno));
    _exit(127);
  }
  int Status = 0;
  struct rusage Usage;
  std::memset(&Usage, 0, sizeof(Usage));
  while (wait4(Pid, &Status, 0, &Usage) < 0 && errno == EINTR)
    ;
  long long Wall = nowNs() - Start;
  int Exit = WIFEXITED(Status) ? WEXITSTATUS(Status) : -1;
  int Signal = WIFSIGNALED(Status) ? WTERMSIG(Status) : 0;
  if (FILE *F = std::fopen(argv[1], "w")) {
    std::fprintf(F, "%lld %lld %lld %ld %d %d\n", Wall,
                 (long long)Usage.ru_utime.tv_sec * 1000000 +
                     Usage.ru_utime.tv_usec,
                 (long long)Usage.ru_stime.tv_sec * 1000000 +
                     Usage.ru_stime.tv_usec,
                 Usage.ru_maxrss, Exit, Signal);
    std::fclose(F);
  }
  // Pass the program's fate on, so the caller classifies it the same way.
  if (Signal) {
    signal(Signal, SIG_DFL);
    kill(getpid(), Signal);
  }
  return Exit < 0 ? 125 : Exit;
}
