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
/// `#if __CUDA_ARCH__`), each judged by the errors of that pass. GPU code the
/// host pass lists and the device pass does not see (the other branch of
/// such a test) is compiled for no GPU this command builds for: rewriting it
/// changes nothing that runs, so it is blocked, with the reason.
static void addDeviceOnlyTargets(ParsedFile &Device,
                                 std::vector<Target> &Targets,
                                 std::vector<BlockedTarget> &Blocked) {
  std::vector<BlockedTarget> DeviceBlocked;
  std::vector<Target> DeviceTargets = discoverTargets(Device, &DeviceBlocked);
  llvm::DenseSet<unsigned> HostSeen, DeviceSeen;
  for (const Target &T : Targets)
    HostSeen.insert(T.BeginOffset);
  for (const BlockedTarget &B : Blocked)
    HostSeen.insert(B.T.BeginOffset);
  for (const Target &T : DeviceTargets)
    DeviceSeen.insert(T.BeginOffset);
  for (const BlockedTarget &B : DeviceBlocked)
    DeviceSeen.insert(B.T.BeginOffset);

  std::vector<Target> Kept;
  for (Target &T : Targets) {
    if (T.HostCode || DeviceSeen.count(T.BeginOffset)) {
      Kept.push_back(std::move(T));
      continue;
    }
    Blocked.push_back({std::move(T),
                       "the device pass (the code the GPU runs) does not "
                       "compile it: it is in a branch of a __CUDA_ARCH__ "
                       "test that the command's architecture skips"});
  }
  Targets = std::move(Kept);

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

const Target *FileTargets::find(llvm::StringRef Name) const {
  for (const Target &T : Targets)
    if (T.Name == Name)
      return &T;
  return nullptr;
}

const Target *FileTargets::find(const Target &Like) const {
  const Target *Best = nullptr;
  auto Distance = [&](const Target &T) {
    return T.Line > Like.Line ? T.Line - Like.Line : Like.Line - T.Line;
  };
  for (const Target &T : Targets) {
    if (T.Name != Like.Name)
      continue;
    if (!Best || (T.USR == Like.USR && Best->USR != Like.USR) ||
        ((T.USR == Like.USR) == (Best->USR == Like.USR) &&
         Distance(T) < Distance(*Best)))
      Best = &T;
  }
  return Best;
}

llvm::Expected<FileTargets> maxcode::parseTargets(
    const clang::tooling::CompileCommand &Command, llvm::StringRef File,
    const ParseSettings &Settings, llvm::raw_ostream &Diags,
    std::optional<llvm::StringRef> Contents, ParseErrors Errors) {
  auto Host =
      parseFile(Command, File, Settings, Diags, Contents, nullptr, Errors);
  if (!Host)
    return Host.takeError();
  FileTargets F;
  F.Host = std::move(*Host);
  F.Targets = discoverTargets(F.Host, &F.Blocked);
  if (!needsDeviceParse(F.Host))
    return F;
  // The device pass's diagnostics are not printed: what it says of code the
  // host pass lists is the host pass's business (a host launch reads as an
  // error there), and an error that blocks a device-only target is that
  // target's reason.
  std::string Text;
  llvm::raw_string_ostream DeviceDiags(Text);
  auto Device = parseDeviceSide(F.Host, DeviceDiags);
  if (!Device) {
    llvm::WithColor::warning(Diags, "clang-maxcode")
        << "the device-side parse of '" << File
        << "' failed, so only what the host pass sees is listed: "
        << llvm::toString(Device.takeError()) << "\n";
    return F;
  }
  F.Device = std::move(*Device);
  addDeviceOnlyTargets(*F.Device, F.Targets, F.Blocked);
  return F;
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
    auto Parsed = parseTargets(RC.Command, File, Opts.Settings, Diags);
    if (!Parsed)
      return Parsed.takeError();
    for (const std::string &Flag : Parsed->Host.UnknownFlags) {
      llvm::WithColor::warning(Diags, "clang-maxcode")
          << "'" << Flag << "' (in the command of '" << Source
          << "') is unknown to Clang: left out of the parse; the build "
             "still uses it\n";
      if (Report)
        Report->UnknownFlags.push_back({File, Flag});
    }
    if (Report) {
      Report->ParseErrors += Parsed->Host.Errors.size();
      std::move(Parsed->Blocked.begin(), Parsed->Blocked.end(),
                std::back_inserter(Report->Blocked));
    }
    std::move(Parsed->Targets.begin(), Parsed->Targets.end(),
              std::back_inserter(All));
  }
  rankTargets(All);
  return All;
}
