//===-- Error.cpp - The user's errors and the tool's ----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/Error.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace maxcode;

char InternalError::ID;

void InternalError::log(llvm::raw_ostream &OS) const { OS << Message; }

std::error_code InternalError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

llvm::Error maxcode::createInternalError(const llvm::Twine &Message) {
  return llvm::make_error<InternalError>(Message.str());
}

llvm::Error maxcode::makeInternal(llvm::Error E) {
  return llvm::handleErrors(
      std::move(E), [](std::unique_ptr<llvm::ErrorInfoBase> EI) -> llvm::Error {
        if (EI->isA<InternalError>())
          return llvm::Error(std::move(EI));
        return createInternalError(EI->message());
      });
}

int maxcode::reportError(llvm::Error E, llvm::StringRef Tool,
                         llvm::raw_ostream &OS) {
  int Code = 1;
  llvm::handleAllErrors(std::move(E), [&](const llvm::ErrorInfoBase &EI) {
    if (EI.isA<InternalError>())
      Code = 2;
    llvm::WithColor::error(OS, Tool) << EI.message() << "\n";
  });
  return Code;
}
