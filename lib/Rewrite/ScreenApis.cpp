//===-- ScreenApis.cpp - The calls the static screen looks for ------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Rewrite/Screen.h"
#include "llvm/ADT/STLExtras.h"

using namespace maxcode;

llvm::StringRef maxcode::apiCategoryName(ApiCategory C) {
  switch (C) {
  case ApiCategory::ProcessCreation:
    return "process creation";
  case ApiCategory::MeasurementAwareness:
    return "measurement awareness";
  case ApiCategory::Clock:
    return "clock";
  case ApiCategory::Socket:
    return "socket";
  case ApiCategory::InlineAssembly:
    return "inline assembly";
  case ApiCategory::ProcessExit:
    return "process exit";
  case ApiCategory::InstructionSet:
    return "instruction set";
  case ApiCategory::FileSystem:
    return "file system";
  }
  llvm_unreachable("unknown category");
}

llvm::StringRef maxcode::apiCategoryKey(ApiCategory C) {
  switch (C) {
  case ApiCategory::ProcessCreation:
    return "process";
  case ApiCategory::MeasurementAwareness:
    return "measurement";
  case ApiCategory::Clock:
    return "clock";
  case ApiCategory::Socket:
    return "socket";
  case ApiCategory::InlineAssembly:
    return "asm";
  case ApiCategory::ProcessExit:
    return "exit";
  case ApiCategory::InstructionSet:
    return "isa";
  case ApiCategory::FileSystem:
    return "filesystem";
  }
  llvm_unreachable("unknown category");
}

namespace {
struct ApiEntry {
  llvm::StringLiteral Name;
  ApiCategory Category;
};

// The library functions and variables the screen looks for, by the name
// they have in the C library (std:: and ::-qualified spellings resolve to
// them). docs/Evaluation.md lists the same.
constexpr ApiEntry Apis[] = {
    // A child process hides work from callgrind and from the timer's view.
    {"fork", ApiCategory::ProcessCreation},
    {"vfork", ApiCategory::ProcessCreation},
    {"_Fork", ApiCategory::ProcessCreation},
    {"__fork", ApiCategory::ProcessCreation},
    {"clone", ApiCategory::ProcessCreation},
    {"clone3", ApiCategory::ProcessCreation},
    {"__clone", ApiCategory::ProcessCreation},
    {"execl", ApiCategory::ProcessCreation},
    {"execle", ApiCategory::ProcessCreation},
    {"execlp", ApiCategory::ProcessCreation},
    {"execv", ApiCategory::ProcessCreation},
    {"execve", ApiCategory::ProcessCreation},
    {"execvp", ApiCategory::ProcessCreation},
    {"execvpe", ApiCategory::ProcessCreation},
    {"execveat", ApiCategory::ProcessCreation},
    {"fexecve", ApiCategory::ProcessCreation},
    {"system", ApiCategory::ProcessCreation},
    {"popen", ApiCategory::ProcessCreation},
    {"posix_spawn", ApiCategory::ProcessCreation},
    {"posix_spawnp", ApiCategory::ProcessCreation},
    {"daemon", ApiCategory::ProcessCreation},
    {"wordexp", ApiCategory::ProcessCreation},
    // A raw system call can be any of the above, or of the below.
    {"syscall", ApiCategory::ProcessCreation},
    // Knowing that it is measured lets a program skip the work then.
    {"getrlimit", ApiCategory::MeasurementAwareness},
    {"getrlimit64", ApiCategory::MeasurementAwareness},
    {"setrlimit", ApiCategory::MeasurementAwareness},
    {"prlimit", ApiCategory::MeasurementAwareness},
    {"prlimit64", ApiCategory::MeasurementAwareness},
    {"getrusage", ApiCategory::MeasurementAwareness},
    {"getenv", ApiCategory::MeasurementAwareness},
    {"secure_getenv", ApiCategory::MeasurementAwareness},
    {"environ", ApiCategory::MeasurementAwareness},
    {"__environ", ApiCategory::MeasurementAwareness},
    {"ptrace", ApiCategory::MeasurementAwareness},
    {"prctl", ApiCategory::MeasurementAwareness},
    {"getppid", ApiCategory::MeasurementAwareness},
    {"getauxval", ApiCategory::MeasurementAwareness},
    {"dlopen", ApiCategory::MeasurementAwareness},
    {"dlmopen", ApiCategory::MeasurementAwareness},
    {"dlsym", ApiCategory::MeasurementAwareness},
    {"dlvsym", ApiCategory::MeasurementAwareness},
    {"_environ", ApiCategory::MeasurementAwareness},
    // The loaded objects and the processor: where the program runs, and
    // under what (valgrind's own objects, a CPU it reports).
    {"dl_iterate_phdr", ApiCategory::MeasurementAwareness},
    {"dladdr", ApiCategory::MeasurementAwareness},
    {"dladdr1", ApiCategory::MeasurementAwareness},
    {"dlinfo", ApiCategory::MeasurementAwareness},
    {"_r_debug", ApiCategory::MeasurementAwareness},
    {"_dl_find_object", ApiCategory::MeasurementAwareness},
    {"__get_cpuid", ApiCategory::MeasurementAwareness},
    {"__get_cpuid_count", ApiCategory::MeasurementAwareness},
    {"__get_cpuid_max", ApiCategory::MeasurementAwareness},
    {"__builtin_cpu_init", ApiCategory::MeasurementAwareness},
    {"__builtin_cpu_is", ApiCategory::MeasurementAwareness},
    {"__builtin_cpu_supports", ApiCategory::MeasurementAwareness},
    {"program_invocation_name", ApiCategory::MeasurementAwareness},
    {"program_invocation_short_name", ApiCategory::MeasurementAwareness},
    {"__progname", ApiCategory::MeasurementAwareness},
    // Ending the process before the harness does: a bench that prints a
    // figure of its own choosing and exits before the real one is printed.
    {"exit", ApiCategory::ProcessExit},
    {"_exit", ApiCategory::ProcessExit},
    {"_Exit", ApiCategory::ProcessExit},
    {"quick_exit", ApiCategory::ProcessExit},
    {"abort", ApiCategory::ProcessExit},
    // Clocks: the one thing a program needs to behave differently when timed.
    {"clock_gettime", ApiCategory::Clock},
    {"clock_getres", ApiCategory::Clock},
    {"gettimeofday", ApiCategory::Clock},
    {"settimeofday", ApiCategory::Clock},
    {"time", ApiCategory::Clock},
    {"clock", ApiCategory::Clock},
    {"clock64", ApiCategory::Clock},
    {"times", ApiCategory::Clock},
    {"ftime", ApiCategory::Clock},
    {"timespec_get", ApiCategory::Clock},
    {"timespec_getres", ApiCategory::Clock},
    // Every other clock and timer of the C library and the kernel.
    {"sysinfo", ApiCategory::Clock},
    {"ntp_gettime", ApiCategory::Clock},
    {"ntp_gettimex", ApiCategory::Clock},
    {"ntp_adjtime", ApiCategory::Clock},
    {"adjtimex", ApiCategory::Clock},
    {"adjtime", ApiCategory::Clock},
    {"clock_adjtime", ApiCategory::Clock},
    {"clock_getcpuclockid", ApiCategory::Clock},
    {"pthread_getcpuclockid", ApiCategory::Clock},
    {"timerfd_create", ApiCategory::Clock},
    {"timerfd_settime", ApiCategory::Clock},
    {"timerfd_gettime", ApiCategory::Clock},
    {"timer_create", ApiCategory::Clock},
    {"timer_settime", ApiCategory::Clock},
    {"timer_gettime", ApiCategory::Clock},
    {"timer_getoverrun", ApiCategory::Clock},
    {"setitimer", ApiCategory::Clock},
    {"getitimer", ApiCategory::Clock},
    {"alarm", ApiCategory::Clock},
    {"ualarm", ApiCategory::Clock},
    {"last_write_time", ApiCategory::Clock},
    {"__rdtsc", ApiCategory::Clock},
    {"__rdtscp", ApiCategory::Clock},
    {"_rdtsc", ApiCategory::Clock},
    {"__builtin_ia32_rdtsc", ApiCategory::Clock},
    {"__builtin_ia32_rdtscp", ApiCategory::Clock},
    {"__builtin_readcyclecounter", ApiCategory::Clock},
    {"cudaEventCreate", ApiCategory::Clock},
    {"cudaEventCreateWithFlags", ApiCategory::Clock},
    {"cudaEventRecord", ApiCategory::Clock},
    {"cudaEventRecordWithFlags", ApiCategory::Clock},
    {"cudaEventQuery", ApiCategory::Clock},
    {"cudaEventSynchronize", ApiCategory::Clock},
    {"cudaEventElapsedTime", ApiCategory::Clock},
    {"cudaEventDestroy", ApiCategory::Clock},
    {"cuEventCreate", ApiCategory::Clock},
    {"cuEventRecord", ApiCategory::Clock},
    {"cuEventElapsedTime", ApiCategory::Clock},
    // Sockets: the sandbox has no network, and a variant has no use for one.
    {"socket", ApiCategory::Socket},
    {"socketpair", ApiCategory::Socket},
    {"connect", ApiCategory::Socket},
    {"bind", ApiCategory::Socket},
    {"listen", ApiCategory::Socket},
    {"accept", ApiCategory::Socket},
    {"accept4", ApiCategory::Socket},
    {"getaddrinfo", ApiCategory::Socket},
    {"gethostbyname", ApiCategory::Socket},
    {"gethostbyname2", ApiCategory::Socket},
    {"gethostbyaddr", ApiCategory::Socket},
    // Never rejected; an applied winner's summary warns about them.
    {"fopen", ApiCategory::FileSystem},
    {"fopen64", ApiCategory::FileSystem},
    {"freopen", ApiCategory::FileSystem},
    {"open", ApiCategory::FileSystem},
    {"open64", ApiCategory::FileSystem},
    {"openat", ApiCategory::FileSystem},
    {"creat", ApiCategory::FileSystem},
    {"opendir", ApiCategory::FileSystem},
    {"mkdir", ApiCategory::FileSystem},
    {"rmdir", ApiCategory::FileSystem},
    {"unlink", ApiCategory::FileSystem},
    {"unlinkat", ApiCategory::FileSystem},
    {"remove", ApiCategory::FileSystem},
    {"rename", ApiCategory::FileSystem},
    {"renameat", ApiCategory::FileSystem},
    {"link", ApiCategory::FileSystem},
    {"symlink", ApiCategory::FileSystem},
    {"truncate", ApiCategory::FileSystem},
    {"chmod", ApiCategory::FileSystem},
    {"chown", ApiCategory::FileSystem},
    {"mkfifo", ApiCategory::FileSystem},
};
} // namespace

std::optional<ApiCategory> maxcode::apiCategoryOf(llvm::StringRef Symbol) {
  for (const ApiEntry &E : Apis)
    if (E.Name == Symbol)
      return E.Category;
  return std::nullopt;
}

bool maxcode::apiAllowedByUser(llvm::ArrayRef<std::string> AllowApis,
                               llvm::StringRef Name, ApiCategory C) {
  return llvm::is_contained(AllowApis, Name) ||
         llvm::is_contained(AllowApis, apiCategoryKey(C));
}
