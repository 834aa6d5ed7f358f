//===-- EvalResult.cpp - What one evaluation found ------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/EvalResult.h"
#include "llvm/Support/ErrorHandling.h"

using namespace maxcode;

llvm::StringRef maxcode::evalStatusName(EvalStatus S) {
  switch (S) {
  case EvalStatus::Ok:
    return "ok";
  case EvalStatus::WrongOutput:
    return "wrong-output";
  case EvalStatus::Timeout:
    return "timeout";
  case EvalStatus::Crash:
    return "crash";
  case EvalStatus::BuildError:
    return "build-error";
  case EvalStatus::Rejected:
    return "rejected";
  }
  llvm_unreachable("unknown status");
}

std::optional<EvalStatus> maxcode::parseEvalStatus(llvm::StringRef Name) {
  for (EvalStatus S :
       {EvalStatus::Ok, EvalStatus::WrongOutput, EvalStatus::Timeout,
        EvalStatus::Crash, EvalStatus::BuildError, EvalStatus::Rejected})
    if (evalStatusName(S) == Name)
      return S;
  return std::nullopt;
}
