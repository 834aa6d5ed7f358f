//===-- Sanitize.cpp - A winner's build under the sanitizers --------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Tests show what a program prints, not whether it reads past an array or
// overflows a signed integer on the way: a variant that does either passes
// them today and may not tomorrow, with another compiler or input. Before a
// winner is reported it is built once with AddressSanitizer and
// UndefinedBehaviorSanitizer and every test runs under them; a finding the
// original's sanitizer build does not have makes it unsafe
// (docs/Evaluation.md, "The review of a winner").
//
//===----------------------------------------------------------------------===//

#include "EvaluatorImpl.h"
#include "maxcode/Support/Debug.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#define DEBUG_TYPE "maxcode-eval"

using namespace maxcode;
using namespace maxcode::evaldetail;

std::vector<std::string> evaldetail::sanitizerFlags() {
  return {"-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
          "-fno-omit-frame-pointer", "-g"};
}

std::vector<std::pair<std::string, std::string>>
evaldetail::sanitizerEnvironment() {
  std::string Code = std::to_string(SanitizerExitCode);
  return {
      {"ASAN_OPTIONS", "detect_leaks=0:abort_on_error=0:exitcode=" + Code +
                           ":allocator_may_return_null=1:"
                           "detect_stack_use_after_return=1"},
      {"UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=0:exitcode=" + Code}};
}

/// "line 18" for the first frame of \p Report in \p SourceName; empty when
/// no frame is in it.
static std::string placeIn(llvm::StringRef Report, llvm::StringRef SourceName) {
  for (llvm::StringRef L : llvm::split(Report, '\n')) {
    // "    #0 0x55d in f /sandbox/x/histogram.cpp:18:5"
    size_t At = L.find(("/" + SourceName + ":").str());
    if (At == llvm::StringRef::npos)
      continue;
    llvm::StringRef Rest = L.drop_front(At + SourceName.size() + 2);
    unsigned Line = 0;
    if (!Rest.consumeInteger(10, Line))
      return "line " + std::to_string(Line);
  }
  return "";
}

std::string evaldetail::sanitizerFinding(llvm::StringRef Stderr,
                                         llvm::StringRef SourceName) {
  // UBSan: "histogram.cpp:18:23: runtime error: signed integer overflow".
  static const llvm::Regex UB("([^ :]+):([0-9]+):[0-9]+: runtime error: (.*)");
  for (llvm::StringRef L : llvm::split(Stderr, '\n')) {
    llvm::SmallVector<llvm::StringRef, 4> M;
    if (!UB.match(L, &M))
      continue;
    std::string Where = llvm::sys::path::filename(M[1]) == SourceName
                            ? " at line " + M[2].str()
                            : " in " + llvm::sys::path::filename(M[1]).str();
    return "UndefinedBehaviorSanitizer: " + M[3].rtrim().str() + Where;
  }
  // ASan: "==12==ERROR: AddressSanitizer: heap-buffer-overflow on ...",
  // then "READ of size 4 at ..." and the stack.
  size_t At = Stderr.find("ERROR: AddressSanitizer: ");
  if (At == llvm::StringRef::npos)
    return "";
  llvm::StringRef Report = Stderr.drop_front(At);
  llvm::StringRef Kind =
      Report.drop_front(strlen("ERROR: AddressSanitizer: ")).split('\n').first;
  Kind = Kind.split(" on ").first.split(" (").first.trim();
  std::string Text = "AddressSanitizer: " + Kind.str();
  for (llvm::StringRef L : llvm::split(Report, '\n')) {
    L = L.trim();
    if (L.starts_with("READ of size") || L.starts_with("WRITE of size")) {
      Text += ", " + L.split(" at ").first.str();
      break;
    }
  }
  std::string Place = placeIn(Report, SourceName);
  if (!Place.empty())
    Text += " at " + Place;
  return Text;
}

SanitizerVerdict EvaluatorImpl::sanitize(const Variant &V) {
  SanitizerVerdict Out;
  if (Config.cudaProgram()) {
    Out.Detail = "CUDA code is checked by compute-sanitizer on a GPU, "
                 "which this review does not run";
    return Out;
  }
  {
    // The original's findings, once: what a variant is not blamed for.
    std::lock_guard<std::mutex> L(SanitizeMutex);
    if (!BaselineFindings && SanitizeUnavailable.empty()) {
      Built B = build(Original, "sanitize-baseline", /*Sanitized=*/true);
      if (!B.Ok) {
        SanitizeUnavailable =
            "the original does not build with the sanitizers here (" +
            B.Result.Reason + "): the toolchain may lack their runtimes";
      } else if (auto F = Mode->sanitizerFindings(B)) {
        BaselineFindings = std::move(*F);
      } else {
        SanitizeUnavailable = llvm::toString(F.takeError());
      }
    }
    if (!SanitizeUnavailable.empty()) {
      Out.Detail = SanitizeUnavailable;
      return Out;
    }
  }
  Built B = build(V.Text, "sanitize", /*Sanitized=*/true);
  if (!B.Ok) {
    Out.Detail = "its build with the sanitizers failed (" + B.Result.Reason +
                 ") where the original's did not";
    return Out;
  }
  auto Findings = Mode->sanitizerFindings(B);
  if (!Findings) {
    Out.Detail = llvm::toString(Findings.takeError());
    return Out;
  }
  Out.Kind = SanitizerVerdict::Clean;
  for (size_t I = 0; I < Findings->size(); ++I) {
    if (I < BaselineFindings->size() && !(*BaselineFindings)[I].empty()) {
      ++Out.SkippedTests;
      continue;
    }
    ++Out.Tests;
    Out.DerivedInputs += Mode->derivedInput(I);
    if ((*Findings)[I].empty() || Out.Kind == SanitizerVerdict::Finding)
      continue;
    Out.Kind = SanitizerVerdict::Finding;
    Out.Detail = (*Findings)[I];
  }
  MAXCODE_DEBUG(llvm::dbgs()
                << DEBUG_TYPE << ": sanitizers: " << Out.Tests << " tests, "
                << Out.SkippedTests << " skipped: " << Out.Detail << "\n");
  return Out;
}
