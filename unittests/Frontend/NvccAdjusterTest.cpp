//===-- NvccAdjusterTest.cpp - nvcc flags translated for Clang ------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/NvccAdjuster.h"
#include "maxcode/Frontend/ParseSupport.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace maxcode;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Not;

namespace {

ParseSettings settings() {
  ParseSettings S;
  S.ClangPath = "/usr/lib/llvm-22/bin/clang++";
  S.ResourceDir = "/res";
  S.CudaPath = "/cuda";
  S.CompatHeader = "/compat/maxcode_cuda_compat.h";
  // A GCC whose include folder is /gcc/<compiler>; anything else is not GCC.
  S.HostCompilerIncludeDir = [](llvm::StringRef Compiler) -> std::string {
    if (Compiler.contains("clang"))
      return "";
    return "/gcc/" + llvm::sys::path::filename(Compiler).str();
  };
  return S;
}

/// The index of \p Arg in \p Args, or -1.
long indexOf(const std::vector<std::string> &Args, llvm::StringRef Arg) {
  auto It = std::find(Args.begin(), Args.end(), Arg);
  return It == Args.end() ? -1 : It - Args.begin();
}

std::vector<std::string>
translate(std::vector<std::string> Args,
          std::vector<std::string> *Dropped = nullptr) {
  return translateNvccArguments(Args, "/build", settings(), Dropped);
}

TEST(NvccAdjusterTest, ArchitectureNames) {
  EXPECT_EQ(clangGpuArchFor("sm_80"), "sm_80");
  EXPECT_EQ(clangGpuArchFor("compute_75"), "sm_75");
  EXPECT_EQ(clangGpuArchFor("sm_90a"), "sm_90a");
  // Clang 22 knows Blackwell's and their "a" feature sets; an "f" family
  // and a number it does not know are parsed as the nearest one below.
  EXPECT_EQ(clangGpuArchFor("sm_100a"), "sm_100a");
  EXPECT_EQ(clangGpuArchFor("sm_120"), "sm_120");
  EXPECT_EQ(clangGpuArchFor("compute_103a"), "sm_103a");
  EXPECT_EQ(clangGpuArchFor("sm_100f"), "sm_100");
  EXPECT_EQ(clangGpuArchFor("sm_95"), "sm_90");
  EXPECT_EQ(clangGpuArchFor("sm_107a"), "sm_103");
  EXPECT_EQ(clangGpuArchFor("sm_130"), "sm_121");
  // ... and nothing before sm_20.
  EXPECT_EQ(clangGpuArchFor("sm_13"), "sm_20");
  EXPECT_EQ(clangGpuArchFor("compute_10"), "sm_20");
  EXPECT_EQ(clangGpuArchFor("native"), "");
  EXPECT_EQ(clangGpuArchFor("all-major"), "");
}

TEST(NvccAdjusterTest, RecognisesNvcc) {
  EXPECT_TRUE(isNvccCommand({"/usr/local/cuda/bin/nvcc", "-c", "a.cu"}));
  EXPECT_TRUE(isNvccCommand({"nvcc"}));
  EXPECT_FALSE(isNvccCommand({"/usr/bin/g++", "-c", "a.cpp"}));
  EXPECT_FALSE(isNvccCommand({}));
}

TEST(NvccAdjusterTest, ArchFlagsBecomeOneCudaGpuArch) {
  auto Out = translate({"nvcc", "-arch=sm_80", "-c", "a.cu"});
  EXPECT_THAT(Out, Contains("--cuda-gpu-arch=sm_80"));
  Out = translate({"nvcc", "-arch", "sm_70", "-c", "a.cu"});
  EXPECT_THAT(Out, Contains("--cuda-gpu-arch=sm_70"));
  Out = translate({"nvcc", "--gpu-architecture=compute_86", "a.cu"});
  EXPECT_THAT(Out, Contains("--cuda-gpu-arch=sm_86"));
  Out = translate({"nvcc", "-gencode", "arch=compute_80,code=sm_80",
                   "--generate-code=arch=compute_90,code=[compute_90,sm_90]",
                   "a.cu"});
  EXPECT_EQ(std::count_if(Out.begin(), Out.end(),
                          [](const std::string &A) {
                            return A.rfind("--cuda-gpu-arch=", 0) == 0;
                          }),
            1);
  EXPECT_THAT(Out, Contains("--cuda-gpu-arch=sm_90"));
  EXPECT_THAT(Out, Not(Contains("-gencode")));
  Out = translate({"nvcc", "-arch=sm_100", "a.cu"});
  EXPECT_THAT(Out, Contains("--cuda-gpu-arch=sm_100"));
  Out = translate({"nvcc", "a.cu"});
  EXPECT_THAT(Out, Contains("--cuda-gpu-arch=sm_121"));
}

TEST(NvccAdjusterTest, TranslatesAndDropsNvccOnlyFlags) {
  std::vector<std::string> Dropped;
  auto Out = translate({"/usr/local/cuda/bin/nvcc",
                        "-ccbin",
                        "/usr/bin/g++",
                        "--expt-relaxed-constexpr",
                        "--extended-lambda",
                        "-rdc=true",
                        "-Xcompiler",
                        "-fPIC,-Wall",
                        "-Xcompiler=-O2",
                        "-Xptxas",
                        "-v",
                        "--use_fast_math",
                        "-lineinfo",
                        "-G",
                        "-std",
                        "c++17",
                        "-x",
                        "cu",
                        "-DFOO=1",
                        "-I/inc",
                        "-O3",
                        "-o",
                        "a.o",
                        "-c",
                        "a.cu"},
                       &Dropped);
  EXPECT_EQ(Out.front(), "/usr/lib/llvm-22/bin/clang++");
  for (const char *Gone :
       {"-ccbin", "/usr/bin/g++", "--expt-relaxed-constexpr",
        "--extended-lambda", "-rdc=true", "-Xcompiler", "-Xptxas", "-v",
        "--use_fast_math", "-lineinfo", "-G", "cu"})
    EXPECT_THAT(Out, Not(Contains(Gone))) << Gone;
  for (const char *Kept :
       {"-fPIC", "-Wall", "-O2", "-fgpu-rdc", "-ffast-math", "-std=c++17",
        "cuda", "-DFOO=1", "-I/inc", "-O3", "a.cu"})
    EXPECT_THAT(Out, Contains(Kept)) << Kept;
  EXPECT_THAT(Dropped, Contains("-ccbin /usr/bin/g++"));
  EXPECT_THAT(Dropped, Contains("-lineinfo"));
}

TEST(NvccAdjusterTest, HostCompilerFlagsAreWordsAndCommas) {
  auto Out = translate({"nvcc", "-Xcompiler", "-fopenmp -O2",
                        "--compiler-options=-fPIC,-Wall", "a.cu"});
  for (const char *Kept : {"-fopenmp", "-O2", "-fPIC", "-Wall"})
    EXPECT_THAT(Out, Contains(Kept)) << Kept;
  EXPECT_THAT(Out, Not(Contains("-fopenmp -O2")));
}

TEST(NvccAdjusterTest, HostCompilersHeadersComeLast) {
  // nvcc's default host compiler, g++, unless -ccbin names another.
  auto Out = translate({"nvcc", "-c", "a.cu"});
  long After = indexOf(Out, "/gcc/g++");
  ASSERT_GT(After, 0);
  EXPECT_EQ(Out[After - 1], "-idirafter");
  Out = translate({"nvcc", "-ccbin", "/opt/gcc-13/bin/g++-13", "a.cu"});
  EXPECT_THAT(Out, Contains("/gcc/g++-13"));
  // A host compiler that is not GCC brings no folder.
  Out = translate({"nvcc", "-ccbin=clang++", "a.cu"});
  EXPECT_THAT(Out, Not(Contains("-idirafter")));
  // A GCC command gets its own compiler's folder; a Clang command none.
  Out = adjustForParsing({"/usr/bin/g++-12", "-fopenmp", "-c", "a.cpp"},
                         "/src/a.cpp", "/build", settings());
  EXPECT_THAT(Out, Contains("/gcc/g++-12"));
  Out = adjustForParsing({"clang++", "-c", "a.cpp"}, "/src/a.cpp", "/build",
                         settings());
  EXPECT_THAT(Out, Not(Contains("-idirafter")));
}

TEST(NvccAdjusterTest, NvccLongSpellings) {
  std::vector<std::string> Dropped;
  auto Out = translate({"nvcc",
                        "--include-path",
                        "/inc",
                        "--system-include=/sys",
                        "--define-macro",
                        "A=1",
                        "--undefine-macro=B",
                        "--pre-include",
                        "first.h",
                        "--compile",
                        "-Xlinker",
                        "-rpath",
                        "--linker-options=-z",
                        "--library",
                        "cublas",
                        "--library-path=/lib",
                        "-maxrregcount=32",
                        "--ptxas-options",
                        "-v",
                        "--threads=0",
                        "-t",
                        "4",
                        "-lineinfo",
                        "--gpu-name",
                        "sm_80",
                        "a.cu"},
                       &Dropped);
  for (const char *Kept :
       {"-I/inc", "-isystem", "/sys", "-DA=1", "-UB", "-include", "first.h",
        "-c", "--cuda-gpu-arch=sm_80", "a.cu"})
    EXPECT_THAT(Out, Contains(Kept)) << Kept;
  for (const char *Gone :
       {"--include-path", "-Xlinker", "-rpath", "--linker-options=-z",
        "--library", "cublas", "-maxrregcount=32", "--ptxas-options", "-v",
        "--threads=0", "-t", "4", "-lineinfo", "--gpu-name"})
    EXPECT_THAT(Out, Not(Contains(Gone))) << Gone;
  EXPECT_THAT(Dropped, Contains("-t 4"));
  EXPECT_THAT(Dropped, Contains("-Xlinker -rpath"));
}

TEST(NvccAdjusterTest, NvccWerrorKindsAreDroppedTheHostsKept) {
  std::vector<std::string> Dropped;
  auto Out = translate({"nvcc", "--Werror", "cross-execution-space-call",
                        "-Werror=reorder,all-warnings", "-Werror",
                        "-Werror=unused-variable", "a.cu"},
                       &Dropped);
  EXPECT_THAT(Out, Not(Contains("--Werror")));
  EXPECT_THAT(Out, Not(Contains("cross-execution-space-call")));
  EXPECT_THAT(Out, Not(Contains("-Werror=reorder,all-warnings")));
  // GCC's and Clang's -Werror forms pass on.
  EXPECT_THAT(Out, Contains("-Werror"));
  EXPECT_THAT(Out, Contains("-Werror=unused-variable"));
  EXPECT_THAT(Out, Contains("a.cu"));
  EXPECT_THAT(Dropped, Contains("--Werror cross-execution-space-call"));
}

TEST(NvccAdjusterTest, AddedFlagsGoBeforeADoubleDash) {
  // Commands inferred for headers end in "-- file": what follows is a file.
  auto Out = translate({"nvcc", "-rdc=true", "-x", "cu", "--", "a.cuh"});
  long Dash = indexOf(Out, "--");
  ASSERT_GT(Dash, 0);
  EXPECT_LT(indexOf(Out, "--cuda-gpu-arch=sm_121"), Dash);
  EXPECT_LT(indexOf(Out, "-fgpu-rdc"), Dash);
  EXPECT_LT(indexOf(Out, "-idirafter"), Dash);
  EXPECT_EQ(Out.back(), "a.cuh");
}

TEST(NvccAdjusterTest, InlinesOptionsFiles) {
  llvm::SmallString<128> Path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("maxcode-opts", "rsp", Path));
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    OS << "-I\"/path with space/include\" -DFROM_FILE --expt-relaxed-constexpr";
  }
  auto Out = translate({"nvcc", "--options-file", std::string(Path), "a.cu"});
  EXPECT_THAT(Out, Contains("-I/path with space/include"));
  EXPECT_THAT(Out, Contains("-DFROM_FILE"));
  EXPECT_THAT(Out, Not(Contains("--expt-relaxed-constexpr")));
  EXPECT_THAT(Out, Not(Contains("--options-file")));
  Out = translate({"nvcc", "@" + std::string(Path), "a.cu"});
  EXPECT_THAT(Out, Contains("-DFROM_FILE"));
  llvm::sys::fs::remove(Path);
}

TEST(NvccAdjusterTest, DefaultStreamAndDeviceC) {
  auto Out =
      translate({"nvcc", "--default-stream", "per-thread", "-dc", "a.cu"});
  EXPECT_THAT(Out, Contains("-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1"));
  EXPECT_THAT(Out, Contains("-fgpu-rdc"));
  EXPECT_THAT(Out, Contains("-c"));
}

TEST(NvccAdjusterTest, ParsingAddsCudaSupport) {
  auto Out = adjustForParsing({"nvcc", "-c", "a.cu"}, "/src/a.cu", "/build",
                              settings());
  for (const char *Needed :
       {"-resource-dir=/res", "--cuda-path=/cuda", "--cuda-host-only",
        "-Wno-unknown-cuda-version", "/cuda/include/cccl"})
    EXPECT_THAT(Out, Contains(Needed)) << Needed;
  // The compatibility header first, before any -include of the project's.
  ASSERT_GE(Out.size(), 3u);
  EXPECT_EQ(Out[1], "-include");
  EXPECT_EQ(Out[2], "/compat/maxcode_cuda_compat.h");
  // A C++ file gets the resource dir only.
  Out = adjustForParsing({"g++", "-std=c++17", "-c", "a.cpp"}, "/src/a.cpp",
                         "/build", settings());
  EXPECT_THAT(Out, Contains("-resource-dir=/res"));
  EXPECT_THAT(Out, Not(Contains("--cuda-host-only")));
  EXPECT_THAT(Out, Not(Contains("/compat/maxcode_cuda_compat.h")));
  EXPECT_EQ(Out.front(), "g++");
}

// Found by fuzz/CompileDatabaseFuzzer.cpp: a database entry with an empty
// command line read past the end of the arguments.
TEST(NvccAdjusterTest, EmptyCommandGetsADriverName) {
  auto Out = adjustForParsing({}, "/src/a.cpp", "/build", settings());
  EXPECT_THAT(Out,
              ElementsAre("clang++", "-resource-dir=/res", "-ferror-limit=0",
                          "-Wno-missing-template-arg-list-after-template-kw",
                          "-Wno-pragma-once-outside-header", "-Wno-error",
                          "-Qunused-arguments"));
}

// nvcc 12.x-13.x's newer flags: dropped with their values or translated, in
// either number of dashes.
TEST(NvccAdjusterTest, NewerFlags) {
  std::vector<std::string> Dropped;
  auto Out = translateNvccArguments(
      {"nvcc", "-compress-mode=size", "--compress-mode", "speed",
       "--split-compile-extended=4", "-jtd", "10", "-dw", "-noeh", "--optimize",
       "3", "--ftemplate-depth", "900", "-fdevice-syntax-only",
       "--device-stack-protector=true", "-c", "k.cu"},
      "/build", settings(), &Dropped);
  EXPECT_THAT(Out, Contains("-fno-exceptions"));
  EXPECT_THAT(Out, Contains("-O3"));
  EXPECT_THAT(Out, Contains("-ftemplate-depth=900"));
  EXPECT_THAT(Out, Not(Contains("speed")));
  EXPECT_THAT(Out, Not(Contains("10")));
  for (const std::string &A : Out)
    EXPECT_FALSE(llvm::StringRef(A).contains("compress")) << A;
  EXPECT_THAT(Dropped, Contains("-compress-mode=size"));
  EXPECT_THAT(Dropped, Contains("--compress-mode speed"));
  EXPECT_THAT(Dropped, Contains("-jtd 10"));
  EXPECT_THAT(Dropped, Contains("-fdevice-syntax-only"));
}

// What Clang's driver does not know is left out of the parse and named;
// a flag's separate value goes with it unless it is an option or a file.
TEST(NvccAdjusterTest, UnknownOptionsAreDroppedAndNamed) {
  std::vector<std::string> Unknown;
  auto Out = adjustForParsing({"g++", "-O2", "-fno-gnu-unique", "--future",
                               "12", "-fipa-pta", "-c", "a.cpp"},
                              "/src/a.cpp", "/build", settings(), &Unknown);
  EXPECT_THAT(Unknown,
              ElementsAre("-fno-gnu-unique", "--future 12", "-fipa-pta"));
  EXPECT_THAT(Out, Not(Contains("-fno-gnu-unique")));
  EXPECT_THAT(Out, Not(Contains("12")));
  EXPECT_THAT(Out, Contains("-O2"));
  EXPECT_THAT(Out, Contains("a.cpp"));
  Unknown.clear();
  adjustForParsing({"clang++", "-std=c++17", "-c", "a.cpp"}, "/src/a.cpp",
                   "/build", settings(), &Unknown);
  EXPECT_THAT(Unknown, IsEmpty());
}

} // namespace

TEST(NvccAdjusterTest, DeviceSideArgsSwapThePass) {
  EXPECT_EQ(
      deviceSideArgs(
          {"clang++", "-x", "cuda", "--cuda-host-only", "-std=c++17", "k.cu"}),
      (std::vector<std::string>{"clang++", "-x", "cuda", "-nocudalib",
                                "--cuda-device-only", "-std=c++17", "k.cu"}));
  // Not a CUDA host-only parse: no device pass.
  EXPECT_EQ(deviceSideArgs({"clang++", "-std=c++17", "k.cpp"}), std::nullopt);
  EXPECT_TRUE(testsDevicePassMacros("#if __CUDA_ARCH__ >= 800\n#endif"));
  EXPECT_TRUE(testsDevicePassMacros("#ifdef __NVPTX__\n#endif"));
  EXPECT_FALSE(testsDevicePassMacros("__global__ void k() {}"));
}

TEST(NvccAdjusterTest, CompilesAsCudaIsTheOneAnswer) {
  EXPECT_TRUE(compilesAsCuda({"nvcc", "-c", "a.cpp"}, "a.cpp"));
  EXPECT_TRUE(compilesAsCuda({"ccache", "/opt/cuda/bin/nvcc", "-c", "a.cpp"},
                             "a.cpp"));
  EXPECT_TRUE(compilesAsCuda({"nvcc_wrapper", "-c", "a.cpp"}, "a.cpp"));
  EXPECT_TRUE(compilesAsCuda({"clang++", "-x", "cuda", "a.cpp"}, "a.cpp"));
  EXPECT_TRUE(compilesAsCuda({"clang++", "-xcuda", "a.cpp"}, "a.cpp"));
  EXPECT_TRUE(compilesAsCuda({"clang++", "-c", "k.CU"}, "k.CU"));
  EXPECT_TRUE(compilesAsCuda({"clang++", "-c", "k.cuh"}, "k.cuh"));
  EXPECT_TRUE(compilesAsCuda({}, "k.cu"));
  // The command's own -x wins over the name.
  EXPECT_FALSE(compilesAsCuda({"clang++", "-x", "c++", "k.cu"}, "k.cu"));
  EXPECT_FALSE(compilesAsCuda({"g++", "-c", "a.cpp"}, "a.cpp"));
  EXPECT_FALSE(compilesAsCuda({"g++", "-c", "a.cuda.cpp"}, "a.cuda.cpp"));
}

namespace {

TEST(CloseUpLaunchChevrons, SpacedLaunchesKeepOffsetsAndLines) {
  llvm::StringRef Text = "void f() {\n"
                         "  k<< <g, b >> > (p);\n"
                         "  t<float> << <g, b>> >(p);\n"
                         "  k<<\n      <g, b>>\n      >(p);\n"
                         "  k<<<g, b>> >(p);\n"
                         "}\n";
  std::optional<std::string> Out = closeUpLaunchChevrons(Text);
  ASSERT_TRUE(Out);
  EXPECT_EQ(*Out, "void f() {\n"
                  "  k<<< g, b >>>  (p);\n"
                  "  t<float> <<< g, b>>> (p);\n"
                  "  k<<<\n      g, b>>>\n      (p);\n"
                  "  k<<<g, b>>> (p);\n"
                  "}\n");
  EXPECT_EQ(Out->size(), Text.size());
}

TEST(CloseUpLaunchChevrons, LeavesWhatIsNoLaunch) {
  // Already closed up, template arguments' `>> >`, `operator<< <T>`, a
  // shift, and a `<< <` without `>>>` and a call after it.
  for (llvm::StringRef Text :
       {"k<<<g, b>>>(p);",
        "std::map<int, std::vector<std::pair<int, int>> > m;",
        "operator<< <P>(o, P());", "int x = a << 2 > b;", "bool y = a << <b;"})
    EXPECT_FALSE(closeUpLaunchChevrons(Text)) << Text.str();
}

TEST(CloseUpLaunchChevrons, ConfigurationWithBracketsAndTemplates) {
  std::optional<std::string> Out = closeUpLaunchChevrons(
      "k<< <dim3(f<int>(a), 2), std::min<int>(b, c)>> >(p);");
  ASSERT_TRUE(Out);
  EXPECT_EQ(*Out, "k<<< dim3(f<int>(a), 2), std::min<int>(b, c)>>> (p);");
}

TEST(IsSpelledForNvcc, NvccOnlyFlags) {
  using V = std::vector<std::string>;
  EXPECT_TRUE(isSpelledForNvcc(V{"-arch=sm_90", "-O3"}));
  EXPECT_TRUE(isSpelledForNvcc(V{"-arch", "sm_90"}));
  EXPECT_TRUE(isSpelledForNvcc(V{"-gencode", "arch=compute_90,code=sm_90"}));
  EXPECT_TRUE(isSpelledForNvcc(V{"--use_fast_math"}));
  EXPECT_TRUE(isSpelledForNvcc(V{"-Xcompiler", "-fopenmp"}));
  EXPECT_FALSE(isSpelledForNvcc(V{"-x", "cuda", "--cuda-gpu-arch=sm_90"}));
  EXPECT_FALSE(isSpelledForNvcc(V{"-std=c++17", "-O2", "-DN=3"}));
  EXPECT_FALSE(isSpelledForNvcc(V{"--no-such-flag"}));
}

} // namespace
