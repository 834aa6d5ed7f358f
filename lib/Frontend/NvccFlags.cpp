//===-- NvccFlags.cpp - The table of nvcc's flags -------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "NvccFlags.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"

using namespace maxcode;
using namespace maxcode::nvcc;

// The one table of nvcc flags clang does not understand. Flags not listed are
// passed to clang unchanged (-I, -D, -U, -isystem, -include, -O*, -g, -W...).
static const NvccFlag NvccFlags[] = {
    {"-arch", true, NvccAction::Arch},
    {"--gpu-architecture", true, NvccAction::Arch},
    {"-code", true, NvccAction::Arch},
    {"--gpu-code", true, NvccAction::Arch},
    {"--gpu-name", true, NvccAction::Arch},
    {"-gencode", true, NvccAction::Gencode},
    {"--generate-code", true, NvccAction::Gencode},
    {"-Xcompiler", true, NvccAction::HostFlags},
    {"--compiler-options", true, NvccAction::HostFlags},
    {"-ccbin", true, NvccAction::HostCompiler},
    {"--compiler-bindir", true, NvccAction::HostCompiler},
    {"--include-path", true, NvccAction::IncludePath},
    {"--system-include", true, NvccAction::SystemInclude},
    {"--pre-include", true, NvccAction::PreInclude},
    {"--define-macro", true, NvccAction::DefineMacro},
    {"--undefine-macro", true, NvccAction::UndefineMacro},
    {"--compile", false, NvccAction::Compile},
    {"--use_fast_math", false, NvccAction::FastMath},
    {"-use_fast_math", false, NvccAction::FastMath},
    {"-rdc", true, NvccAction::Rdc},
    {"--relocatable-device-code", true, NvccAction::Rdc},
    {"-dc", false, NvccAction::DeviceC},
    {"--device-c", false, NvccAction::DeviceC},
    {"-std", true, NvccAction::Std},
    {"--std", true, NvccAction::Std},
    {"--options-file", true, NvccAction::OptionsFile},
    {"-optf", true, NvccAction::OptionsFile},
    {"--default-stream", true, NvccAction::DefaultStream},
    {"-default-stream", true, NvccAction::DefaultStream},
    {"-x", true, NvccAction::Language},
    {"--x", true, NvccAction::Language},
    {"-dlink", false, NvccAction::LinkOnly},
    {"--device-link", false, NvccAction::LinkOnly},
    // Dropped, with a value.
    {"-Xptxas", true, NvccAction::Drop},
    {"--ptxas-options", true, NvccAction::Drop},
    {"-Xnvlink", true, NvccAction::Drop},
    {"--nvlink-options", true, NvccAction::Drop},
    {"-Xcudafe", true, NvccAction::Drop},
    {"-Xfatbin", true, NvccAction::Drop},
    {"-Xarchive", true, NvccAction::Drop},
    {"--Werror", true, NvccAction::WarningKinds},
    {"-Werror", true, NvccAction::WarningKinds},
    {"-Xlinker", true, NvccAction::Drop},
    {"--linker-options", true, NvccAction::Drop},
    {"-l", true, NvccAction::Drop},
    {"--library", true, NvccAction::Drop},
    {"--library-path", true, NvccAction::Drop},
    {"-time", true, NvccAction::Drop},
    {"--time", true, NvccAction::Drop},
    {"--output-file", true, NvccAction::Drop},
    {"-arch-ls", false, NvccAction::Drop},
    {"-maxrregcount", true, NvccAction::Drop},
    {"--maxrregcount", true, NvccAction::Drop},
    {"-t", true, NvccAction::Drop},
    {"--threads", true, NvccAction::Drop},
    {"-cudart", true, NvccAction::Drop},
    {"--cudart", true, NvccAction::Drop},
    {"-cudadevrt", true, NvccAction::Drop},
    {"--cudadevrt", true, NvccAction::Drop},
    {"-split-compile", true, NvccAction::Drop},
    {"--split-compile", true, NvccAction::Drop},
    {"--diag-suppress", true, NvccAction::Drop},
    {"-diag-suppress", true, NvccAction::Drop},
    {"--diag_suppress", true, NvccAction::Drop},
    {"-diag_suppress", true, NvccAction::Drop},
    {"--diag-warn", true, NvccAction::Drop},
    {"--diag-error", true, NvccAction::Drop},
    {"--keep-dir", true, NvccAction::Drop},
    {"-odir", true, NvccAction::Drop},
    {"--output-directory", true, NvccAction::Drop},
    {"-MF", true, NvccAction::Drop},
    {"-MT", true, NvccAction::Drop},
    {"-MQ", true, NvccAction::Drop},
    {"--generate-dependencies-with-compile", false, NvccAction::Drop},
    {"-MD", false, NvccAction::Drop},
    {"-MMD", false, NvccAction::Drop},
    // Dropped switches.
    {"--expt-relaxed-constexpr", false, NvccAction::Drop},
    {"-expt-relaxed-constexpr", false, NvccAction::Drop},
    {"--expt-extended-lambda", false, NvccAction::Drop},
    {"-expt-extended-lambda", false, NvccAction::Drop},
    {"--extended-lambda", false, NvccAction::Drop},
    {"-extended-lambda", false, NvccAction::Drop},
    {"-forward-unknown-to-host-compiler", false, NvccAction::Drop},
    {"--forward-unknown-to-host-compiler", false, NvccAction::Drop},
    {"-forward-unknown-opts", false, NvccAction::Drop},
    {"--forward-unknown-opts", false, NvccAction::Drop},
    {"-lineinfo", false, NvccAction::Drop},
    {"--generate-line-info", false, NvccAction::Drop},
    {"-G", false, NvccAction::Drop},
    {"--device-debug", false, NvccAction::Drop},
    {"-allow-unsupported-compiler", false, NvccAction::Drop},
    {"--allow-unsupported-compiler", false, NvccAction::Drop},
    {"-Wno-deprecated-gpu-targets", false, NvccAction::Drop},
    {"--Wno-deprecated-gpu-targets", false, NvccAction::Drop},
    {"-res-usage", false, NvccAction::Drop},
    {"--resource-usage", false, NvccAction::Drop},
    {"-keep", false, NvccAction::Drop},
    {"--keep", false, NvccAction::Drop},
    {"--display-error-number", false, NvccAction::Drop},
    {"-static-global-template-stub", true, NvccAction::Drop},
    {"--static-global-template-stub", true, NvccAction::Drop},
    {"-restrict", false, NvccAction::Drop},
    {"--restrict", false, NvccAction::Drop},
    {"-ftz", true, NvccAction::Drop},
    {"--ftz", true, NvccAction::Drop},
    {"-prec-div", true, NvccAction::Drop},
    {"--prec-div", true, NvccAction::Drop},
    {"-prec-sqrt", true, NvccAction::Drop},
    {"--prec-sqrt", true, NvccAction::Drop},
    {"-fmad", true, NvccAction::Drop},
    {"--fmad", true, NvccAction::Drop},
    {"-extra-device-vectorization", false, NvccAction::Drop},
    {"--extra-device-vectorization", false, NvccAction::Drop},
    {"-ptx", false, NvccAction::Drop},
    {"--ptx", false, NvccAction::Drop},
    {"-cubin", false, NvccAction::Drop},
    {"--cubin", false, NvccAction::Drop},
    {"-fatbin", false, NvccAction::Drop},
    {"--fatbin", false, NvccAction::Drop},
    {"-deviceemu", false, NvccAction::Drop},
    {"-ewp", false, NvccAction::Drop},
    {"--extensible-whole-program", false, NvccAction::Drop},
    {"-src-in-ptx", false, NvccAction::Drop},
    {"--source-in-ptx", false, NvccAction::Drop},
    {"-dopt", true, NvccAction::Drop},
    {"--dopt", true, NvccAction::Drop},
    {"-dlto", false, NvccAction::Drop},
    {"--dlink-time-opt", false, NvccAction::Drop},
    {"-lto", false, NvccAction::Drop},
    {"-err-no", false, NvccAction::Drop},
    {"-use-local-env", false, NvccAction::Drop},
    {"--use-local-env", false, NvccAction::Drop},
    {"-noprof", false, NvccAction::Drop},
    {"--no-host-device-initializer-list", false, NvccAction::Drop},
    {"--no-host-device-move-forward", false, NvccAction::Drop},
    // nvcc 12.x-13.x (`nvcc --help` of CUDA 13.0). Each long flag is also
    // found by its one-dash spelling (lookupNvccFlag), as nvcc takes both.
    {"-dw", false, NvccAction::Compile},
    {"--device-w", false, NvccAction::Compile},
    {"-noeh", false, NvccAction::Translate, "-fno-exceptions"},
    {"--no-exceptions", false, NvccAction::Translate, "-fno-exceptions"},
    {"--disable-warnings", false, NvccAction::Translate, "-w"},
    {"--debug", false, NvccAction::Translate, "-g"},
    {"--m64", false, NvccAction::Translate, "-m64"},
    {"--optimize", true, NvccAction::Translate, "-O"},
    {"--ftemplate-depth", true, NvccAction::Translate, "-ftemplate-depth="},
    {"--ftemplate-backtrace-limit", true, NvccAction::Translate,
     "-ftemplate-backtrace-limit="},
    {"--link", false, NvccAction::LinkOnly},
    {"--lib", false, NvccAction::LinkOnly},
    {"--run", false, NvccAction::LinkOnly},
    {"--relocatable-link", false, NvccAction::LinkOnly},
    {"--compress-mode", true, NvccAction::Drop},
    {"--split-compile-extended", true, NvccAction::Drop},
    {"--jump-table-density", true, NvccAction::Drop},
    {"-jtd", true, NvccAction::Drop},
    {"--fdevice-time-trace", true, NvccAction::Drop},
    {"--device-entity-has-hidden-visibility", true, NvccAction::Drop},
    {"--device-stack-protector", true, NvccAction::Drop},
    {"--frandom-seed", true, NvccAction::Drop},
    {"--sanitize", true, NvccAction::Drop},
    {"--brief-diagnostics", true, NvccAction::Drop},
    {"-brief-diag", true, NvccAction::Drop},
    {"--machine", true, NvccAction::Drop},
    {"--archiver-binary", true, NvccAction::Drop},
    {"-arbin", true, NvccAction::Drop},
    {"--libdevice-directory", true, NvccAction::Drop},
    {"-ldir", true, NvccAction::Drop},
    {"--target-directory", true, NvccAction::Drop},
    {"-target-dir", true, NvccAction::Drop},
    {"--optimization-info", true, NvccAction::Drop},
    {"-opt-info", true, NvccAction::Drop},
    {"--entries", true, NvccAction::Drop},
    {"--host-linker-script", true, NvccAction::Drop},
    {"-hls", true, NvccAction::Drop},
    {"--input-drive-prefix", true, NvccAction::Drop},
    {"-idp", true, NvccAction::Drop},
    {"--dependency-drive-prefix", true, NvccAction::Drop},
    {"-ddp", true, NvccAction::Drop},
    {"--drive-prefix", true, NvccAction::Drop},
    {"-dp", true, NvccAction::Drop},
    {"--dependency-output", true, NvccAction::Drop},
    {"--dependency-target-name", true, NvccAction::Drop},
    {"--run-args", true, NvccAction::Drop},
    {"--no-compress", false, NvccAction::Drop},
    {"--fdevice-syntax-only", false, NvccAction::Drop},
    {"--forward-unknown-to-host-linker", false, NvccAction::Drop},
    {"--keep-device-functions", false, NvccAction::Drop},
    {"--jobserver", false, NvccAction::Drop},
    {"--relocatable-ptx", false, NvccAction::Drop},
    {"-reloc-ptx", false, NvccAction::Drop},
    {"--optix-ir", false, NvccAction::Drop},
    {"--ltoir", false, NvccAction::Drop},
    {"--gen-opt-lto", false, NvccAction::Drop},
    {"--objdir-as-tempdir", false, NvccAction::Drop},
    {"-objtemp", false, NvccAction::Drop},
    {"--force-cl-env-setup", false, NvccAction::Drop},
    {"--qpp-config", false, NvccAction::Drop},
    {"--compile-as-tools-patch", false, NvccAction::Drop},
    {"-astoolspatch", false, NvccAction::Drop},
    {"--list-gpu-code", false, NvccAction::Drop},
    {"-code-ls", false, NvccAction::Drop},
    {"--list-gpu-arch", false, NvccAction::Drop},
    {"--no-display-error-number", false, NvccAction::Drop},
    {"-no-err-no", false, NvccAction::Drop},
    {"--augment-host-linker-script", false, NvccAction::Drop},
    {"-aug-hls", false, NvccAction::Drop},
    {"--no-device-link", false, NvccAction::Drop},
    {"-nodlink", false, NvccAction::Drop},
    {"--save-temps", false, NvccAction::Drop},
    {"--clean-targets", false, NvccAction::Drop},
    {"-clean", false, NvccAction::Drop},
    {"--dryrun", false, NvccAction::Drop},
    {"--verbose", false, NvccAction::Drop},
    {"--no-align-double", false, NvccAction::Drop},
    {"--shared", false, NvccAction::Drop},
    {"--cuda", false, NvccAction::Drop},
};

/// Finds the table row for \p Arg spelled exactly as the row is.
static const NvccFlag *lookupNvccSpelling(llvm::StringRef Arg,
                                          std::string &Value, bool &Joined) {
  Joined = false;
  for (const NvccFlag &F : NvccFlags) {
    llvm::StringRef S(F.Spelling);
    if (Arg == S)
      return &F;
    if (F.TakesValue && Arg.starts_with(S) && Arg.size() > S.size() &&
        Arg[S.size()] == '=') {
      Value = Arg.drop_front(S.size() + 1).str();
      Joined = true;
      return &F;
    }
  }
  return nullptr;
}

const NvccFlag *nvcc::lookupNvccFlag(llvm::StringRef Arg, std::string &Value,
                                     bool &Joined) {
  if (const NvccFlag *F = lookupNvccSpelling(Arg, Value, Joined))
    return F;
  if (Arg.starts_with("--"))
    return lookupNvccSpelling(Arg.drop_front(), Value, Joined);
  if (Arg.starts_with("-") && Arg.size() > 2)
    return lookupNvccSpelling(("-" + Arg).str(), Value, Joined);
  return nullptr;
}

bool nvcc::isNvccWarningKindList(llvm::StringRef V) {
  if (V.empty())
    return false;
  llvm::SmallVector<llvm::StringRef, 4> Kinds;
  V.split(Kinds, ',');
  return llvm::all_of(Kinds, [](llvm::StringRef K) {
    return llvm::is_contained(
        {"all-warnings", "cross-execution-space-call", "reorder",
         "default-stream-launch", "missing-launch-bounds",
         "ext-lambda-captures-this", "deprecated-declarations"},
        K.trim());
  });
}
