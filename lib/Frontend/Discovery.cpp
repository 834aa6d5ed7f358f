//===-- Discovery.cpp - Step 1 of a run -----------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Frontend/Discovery.h"
#include "maxcode/Frontend/Profile.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace maxcode;

/// Adds to \p Targets and \p Blocked the kernels and device functions that
/// only \p Device, the device-side parse, sees (code under
/// `#if __CUDA_ARCH__`), each judged by the errors of that pass.
static void addDeviceOnlyTargets(ParsedFile &Device,
                                 std::vector<Target> &Targets,
                                 std::vector<BlockedTarget> &Blocked) {
  llvm::DenseSet<unsigned> HostSeen;
  for (const Target &T : Targets)
    HostSeen.insert(T.BeginOffset);
  for (const BlockedTarget &B : Blocked)
    HostSeen.insert(B.T.BeginOffset);
  std::vector<BlockedTarget> DeviceBlocked;
  std::vector<Target> DeviceTargets = discoverTargets(Device, &DeviceBlocked);
  auto DeviceOnly = [&](Target &T) {
    if (T.Kind == TargetKind::CpuFunction || HostSeen.count(T.BeginOffset))
      return false;
    T.DevicePass = true;
    return true;
  };
  for (Target &T : DeviceTargets)
    if (DeviceOnly(T))
      Targets.push_back(std::move(T));
  for (BlockedTarget &B : DeviceBlocked)
    if (DeviceOnly(B.T))
      Blocked.push_back(std::move(B));
  std::stable_sort(Targets.begin(), Targets.end(),
                   [](const Target &A, const Target &B) {
                     return A.BeginOffset < B.BeginOffset;
                   });
}

/// The device-side pass of \p Host (the parse of \p Source): its targets
/// added. Its diagnostics are not printed: what it says of code the host
/// pass lists is the host pass's business (a host launch reads as an error
/// there), and an error that blocks a device-only target is that target's
/// reason. A device pass that fails leaves the host's targets, and says why.
static void addDeviceSide(const ParsedFile &Host, llvm::StringRef Source,
                          std::vector<Target> &Targets,
                          std::vector<BlockedTarget> &Blocked,
                          llvm::raw_ostream &Diags) {
  std::string Text;
  llvm::raw_string_ostream DeviceDiags(Text);
  auto Device = parseDeviceSide(Host, DeviceDiags);
  if (!Device) {
    llvm::WithColor::warning(Diags, "clang-maxcode")
        << "the device-side parse of '" << Source
        << "' failed, so only what the host pass sees is listed: "
        << llvm::toString(Device.takeError()) << "\n";
    return;
  }
  addDeviceOnlyTargets(*Device, Targets, Blocked);
}

llvm::Expected<std::vector<Target>>
maxcode::discoverAndRank(const LoadedDatabase &DB,
                         llvm::ArrayRef<std::string> Sources,
                         const DiscoveryOptions &Opts, llvm::raw_ostream &Diags,
                         DiscoveryReport *Report) {
  std::vector<Target> All;
  for (const std::string &Source : Sources) {
    std::string File = makeAbsolutePath(Source);
    if (!llvm::sys::fs::exists(File))
      return llvm::createStringError("source file '" + Source +
                                     "' does not exist");
    ResolvedCommand RC = resolveCompileCommand(DB, File);
    warnIfFallback(RC, Source, DB, Diags);
    auto Parsed =
        parseFile(RC.Command, File, Opts.Settings, Diags, std::nullopt, nullptr,
                  ParseErrors::BlockTheirTargets);
    if (!Parsed)
      return Parsed.takeError();
    for (const std::string &Flag : Parsed->UnknownFlags) {
      llvm::WithColor::warning(Diags, "clang-maxcode")
          << "'" << Flag << "' (in the command of '" << Source
          << "') is unknown to Clang: left out of the parse; the build "
             "still uses it\n";
      if (Report)
        Report->UnknownFlags.push_back({File, Flag});
    }
    std::vector<BlockedTarget> Blocked;
    std::vector<Target> Targets = discoverTargets(*Parsed, &Blocked);
    if (needsDeviceParse(*Parsed))
      addDeviceSide(*Parsed, Source, Targets, Blocked, Diags);
    if (Report) {
      Report->ParseErrors += Parsed->Errors.size();
      std::move(Blocked.begin(), Blocked.end(),
                std::back_inserter(Report->Blocked));
    }
    std::move(Targets.begin(), Targets.end(), std::back_inserter(All));
  }
  if (!Opts.ProfileCommand.empty()) {
    auto Profile = runUnderCallgrind(Opts.ProfileCommand, Opts.ProfileDirectory,
                                     Opts.ProfileTimeoutSeconds);
    if (!Profile)
      return Profile.takeError();
    attributeProfile(*Profile, All);
  }
  rankTargets(All);
  return All;
}
