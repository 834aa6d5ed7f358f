//===-- TargetDiscoveryTest.cpp - Targets on real ASTs --------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/Target.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"
#include <map>

using namespace maxcode;

namespace {

std::vector<Target> discover(llvm::StringRef Code) {
  ParsedFile P;
  P.File = "input.cc";
  P.AST = clang::tooling::buildASTFromCodeWithArgs(
      Code, {"-std=c++17", "-resource-dir=" MAXCODE_CLANG_RESOURCE_DIR},
      P.File);
  EXPECT_TRUE(P.AST);
  EXPECT_FALSE(P.AST->getDiagnostics().hasErrorOccurred());
  return discoverTargets(P);
}

const Target *find(const std::vector<Target> &Ts, llvm::StringRef Name) {
  for (const Target &T : Ts)
    if (T.Name == Name)
      return &T;
  return nullptr;
}

const char *Code = R"cpp(int square(int x) { return x * x; }
namespace ns {
struct S {
  int get() const { return v; }
  int v = 0;
};
template <typename T>
T sum(const T *p, int n) {
  T s{};
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < 1; ++j)
      s += p[i];
  return s;
}
} // namespace ns
int decl_only(int);
int main() {
  auto l = [](int a) { return a; };
  int a[3] = {1, 2, 3};
  while (l(1) < 0) {}
  return ns::sum(a, 3) + square(2);
}
)cpp";

TEST(TargetDiscoveryTest, ListsDefinitionsInTheMainFile) {
  std::vector<Target> Ts = discover(Code);
  std::vector<std::string> Names;
  for (const Target &T : Ts)
    Names.push_back(T.Name);
  // Source order; no declarations, no lambdas, no instantiations.
  EXPECT_EQ(Names, (std::vector<std::string>{"square", "ns::S::get", "ns::sum",
                                             "main"}));
}

TEST(TargetDiscoveryTest, RangesSignaturesAndLoops) {
  std::vector<Target> Ts = discover(Code);
  const Target *Sum = find(Ts, "ns::sum");
  ASSERT_TRUE(Sum);
  EXPECT_EQ(Sum->Kind, TargetKind::CpuFunction);
  EXPECT_EQ(Sum->Line, 7u); // the template header
  EXPECT_EQ(Sum->EndLine, 14u);
  EXPECT_EQ(Sum->LoopDepth, 2u);
  EXPECT_EQ(Sum->Signature, "template <typename T> T sum(const T *p, int n)");
  llvm::StringRef Text(Code);
  EXPECT_TRUE(Text.slice(Sum->BeginOffset, Sum->EndOffset)
                  .starts_with("template <typename T>"));
  EXPECT_TRUE(Text.slice(Sum->BeginOffset, Sum->EndOffset).ends_with("}"));
  // Instantiations give the linker names a profile reports.
  ASSERT_EQ(Sum->MangledNames.size(), 1u);
  EXPECT_EQ(Sum->MangledNames[0], "_ZN2ns3sumIiEET_PKS1_i");
  const Target *Main = find(Ts, "main");
  ASSERT_TRUE(Main);
  EXPECT_EQ(Main->LoopDepth, 1u);
  EXPECT_EQ(Main->MangledNames, std::vector<std::string>{"main"});
  EXPECT_EQ(find(Ts, "square")->MangledNames,
            std::vector<std::string>{"_Z6squarei"});
  EXPECT_EQ(find(Ts, "square")->TextHash.size(), 64u);
  EXPECT_FALSE(find(Ts, "square")->USR.empty());
}

TEST(TargetDiscoveryTest, StaticRankingPrefersLoops) {
  std::vector<Target> Ts = discover(Code);
  rankTargets(Ts);
  EXPECT_EQ(Ts.front().Name, "ns::sum");
}

/// Parses \p Code (as input.cc) the way discovery does, errors recorded.
llvm::Expected<ParsedFile> parseWithErrors(llvm::StringRef Code,
                                           ParseErrors Policy) {
  clang::tooling::CompileCommand C;
  C.Directory = "/";
  C.Filename = "/maxcode-test/input.cc";
  C.CommandLine = {"clang++", "-std=c++17", C.Filename};
  ParseSettings S;
  S.ResourceDir = MAXCODE_CLANG_RESOURCE_DIR;
  std::string Diags;
  llvm::raw_string_ostream OS(Diags);
  return parseFile(C, C.Filename, S, OS, Code, nullptr, Policy);
}

const char *CodeWithErrors = R"cpp(int fine(int x) { return x; }
int broken(int x) { return x + undeclared; }
int callsBroken(int x) { return broken(x); }
struct Bad { Unknown u; };
int usesBad(const Bad &b) { return sizeof(b); }
template <typename T> int size(const T &t) { return t.nope(); }
int instantiates() { return size(1); }
int alsoFine() { return fine(2); }
)cpp";

TEST(TargetDiscoveryTest, ErrorsBlockOnlyTheTargetsTheyTouch) {
  auto P = parseWithErrors(CodeWithErrors, ParseErrors::BlockTheirTargets);
  ASSERT_TRUE(static_cast<bool>(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(P->Errors.size(), 3u);
  std::vector<BlockedTarget> Blocked;
  std::vector<Target> Ts = discoverTargets(*P, &Blocked);
  std::vector<std::string> Names;
  for (const Target &T : Ts)
    Names.push_back(T.Name);
  EXPECT_EQ(Names, (std::vector<std::string>{"fine", "alsoFine"}));
  std::map<std::string, std::string> Why;
  for (const BlockedTarget &B : Blocked)
    Why[B.T.Name] = B.Reason;
  ASSERT_EQ(Why.size(), 5u);
  EXPECT_NE(Why["broken"].find("an error in its definition"),
            std::string::npos);
  EXPECT_NE(Why["broken"].find("input.cc:2:32"), std::string::npos);
  EXPECT_NE(Why["callsBroken"].find("it uses 'broken', which has an error"),
            std::string::npos);
  EXPECT_NE(Why["usesBad"].find("it uses 'Bad', whose declaration has an "
                                "error"),
            std::string::npos);
  // The error is in the template's body, reported at its instantiation.
  EXPECT_NE(Why["size"].find("an error in its definition"), std::string::npos);
  EXPECT_NE(Why["instantiates"].find("it uses 'size'"), std::string::npos);
}

TEST(TargetDiscoveryTest, ErrorsFailTheParseWhenAskedTo) {
  auto P = parseWithErrors(CodeWithErrors, ParseErrors::Fail);
  ASSERT_FALSE(static_cast<bool>(P));
  EXPECT_NE(llvm::toString(P.takeError()).find("3 errors above"),
            std::string::npos);
}

TEST(TargetDiscoveryTest, AFatalErrorFailsTheParse) {
  // After a fatal error Clang reports nothing more, so no target can be
  // known to be free of errors.
  auto P = parseWithErrors("#include \"no-such-header.h\"\nint f() { return "
                           "1; }\n",
                           ParseErrors::BlockTheirTargets);
  ASSERT_FALSE(static_cast<bool>(P));
  std::string Message = llvm::toString(P.takeError());
  EXPECT_NE(Message.find("'no-such-header.h' file not found"),
            std::string::npos);
  EXPECT_NE(Message.find("stops Clang from checking the rest"),
            std::string::npos);
}

TEST(TargetDiscoveryTest, SelectingABlockedTargetSaysWhy) {
  Target Good;
  Good.Name = "good";
  BlockedTarget Bad;
  Bad.T.Name = "bad";
  Bad.Reason = "an error in its definition: x";
  auto Chosen = selectTargets({Good}, "bad", {Bad});
  ASSERT_FALSE(static_cast<bool>(Chosen));
  EXPECT_EQ(llvm::toString(Chosen.takeError()),
            "target 'bad' cannot be optimised: an error in its definition: x");
  // With no name, the first target that is not blocked.
  Chosen = selectTargets({Good}, "", {Bad});
  ASSERT_TRUE(static_cast<bool>(Chosen));
  EXPECT_EQ(Chosen->front().Name, "good");
  // Every target blocked: why the first one is.
  Chosen = selectTargets({}, "", {Bad});
  ASSERT_FALSE(static_cast<bool>(Chosen));
  EXPECT_NE(llvm::toString(Chosen.takeError()).find("'bad' cannot be"),
            std::string::npos);
}

TEST(TargetDiscoveryTest, TargetNamesKeepTheirOwnCommas) {
  Target Get, Dtor, Plain;
  Get.Name = "Cache<K, V>::get";
  Dtor.Name = "ns::Cache<K, V>::~Cache<K, V>";
  Plain.Name = "plain";
  std::vector<Target> Ranked = {Get, Dtor, Plain};
  auto Chosen = selectTargets(Ranked, "ns::Cache<K, V>::~Cache<K, V>", {});
  ASSERT_TRUE(static_cast<bool>(Chosen)) << llvm::toString(Chosen.takeError());
  ASSERT_EQ(Chosen->size(), 1u);
  EXPECT_EQ(Chosen->front().Name, Dtor.Name);
  // A list of such names, the comma between them as it would be typed.
  Chosen = selectTargets(Ranked, "plain,Cache<K, V>::get, plain", {});
  ASSERT_TRUE(static_cast<bool>(Chosen)) << llvm::toString(Chosen.takeError());
  ASSERT_EQ(Chosen->size(), 3u);
  EXPECT_EQ((*Chosen)[1].Name, Get.Name);
  // A name that is no target is still named whole up to its comma.
  Chosen = selectTargets(Ranked, "plain,Cache<K", {});
  ASSERT_FALSE(static_cast<bool>(Chosen));
  EXPECT_NE(llvm::toString(Chosen.takeError()).find("unknown target 'Cache<K'"),
            std::string::npos);
}

} // namespace

TEST(TargetDiscoveryTest, GpuOnlyCodeIsNotHostCode) {
  ParsedFile P;
  P.File = "input.cu";
  P.AST = clang::tooling::buildASTFromCodeWithArgs(
      R"cpp(#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __global__ __attribute__((global))
__device__ int onDevice(int x) { return x + 1; }
__host__ __device__ int both(int x) { return x * 2; }
__global__ void kernel(int *p) { *p = onDevice(both(*p)); }
int onHost(int x) { return both(x); }
)cpp",
      {"-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib",
       "--cuda-gpu-arch=sm_80", "-resource-dir=" MAXCODE_CLANG_RESOURCE_DIR},
      P.File);
  ASSERT_TRUE(P.AST);
  std::vector<Target> Ts = discoverTargets(P);
  std::map<std::string, bool> HostCode;
  for (const Target &T : Ts) {
    HostCode[T.Name] = T.HostCode;
    // A CUDA parse makes every target of the file CUDA, a plain host
    // function too: its scope and rules are CUDA's.
    EXPECT_TRUE(T.Cuda) << T.Name;
  }
  EXPECT_EQ(HostCode, (std::map<std::string, bool>{{"both", true},
                                                   {"kernel", false},
                                                   {"onDevice", false},
                                                   {"onHost", true}}));
  for (const Target &T : discover(Code))
    EXPECT_FALSE(T.Cuda) << T.Name;
}
