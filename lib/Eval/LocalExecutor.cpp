//===-- LocalExecutor.cpp - Builds and runs on this machine ---------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/Executor.h"

#include <condition_variable>
#include <mutex>
#include <shared_mutex>

using namespace maxcode;

Executor::~Executor() = default;

namespace {
/// Builds and checks share the machine up to a width; a timed run takes it
/// whole (DESIGN section 5: build in parallel, measure alone).
class LocalExecutor : public Executor {
public:
  explicit LocalExecutor(unsigned Jobs) : Width(Jobs ? Jobs : 1) {}
  llvm::StringRef name() const override { return "local"; }
  unsigned parallelism() const override { return Width; }

  llvm::Expected<ProcessResult> run(const ProcessSpec &Spec, JobKind Kind,
                                    llvm::StringRef) override {
    if (Kind == JobKind::Timed) {
      std::unique_lock<std::shared_mutex> Alone(Machine);
      return runProcess(Spec);
    }
    std::shared_lock<std::shared_mutex> Shared(Machine);
    {
      std::unique_lock<std::mutex> L(SlotsMutex);
      SlotFree.wait(L, [&] { return InFlight < Width; });
      ++InFlight;
    }
    auto R = runProcess(Spec);
    {
      std::lock_guard<std::mutex> L(SlotsMutex);
      --InFlight;
    }
    SlotFree.notify_one();
    return R;
  }

private:
  unsigned Width;
  std::shared_mutex Machine;
  std::mutex SlotsMutex;
  std::condition_variable SlotFree;
  unsigned InFlight = 0;
};
} // namespace

std::unique_ptr<Executor> maxcode::createLocalExecutor(unsigned Jobs) {
  return std::make_unique<LocalExecutor>(Jobs);
}
