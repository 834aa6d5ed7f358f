//===-- TargetList.cpp - Printing targets ---------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Report/TargetList.h"
#include "maxcode/Support/Process.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace maxcode;

void maxcode::writeTargetJSON(llvm::json::OStream &J, const Target &T) {
  J.object([&] {
    J.attribute("name", T.Name);
    J.attribute("kind", targetKindName(T.Kind));
    J.attribute("file", T.File);
    J.attribute("line", T.Line);
    J.attribute("end_line", T.EndLine);
    J.attribute("usr", T.USR);
    J.attribute("signature", T.Signature);
    J.attribute("hash", T.TextHash);
    J.attributeArray("launch_sites", [&] {
      for (const SourcePosition &P : T.LaunchSites)
        J.object([&] {
          J.attribute("line", P.Line);
          J.attribute("column", P.Column);
          if (!P.Via.empty())
            J.attributeArray("via", [&] {
              for (const std::string &Step : P.Via)
                J.value(Step);
            });
        });
    });
    J.attribute("loop_depth", T.LoopDepth);
    if (T.Share)
      J.attribute("share", *T.Share);
    else
      J.attribute("share", nullptr);
    J.attribute("pass", T.DevicePass ? "device" : "host");
    if (T.InclusiveShare)
      J.attribute("inclusive_share", *T.InclusiveShare);
    else
      J.attribute("inclusive_share", nullptr);
  });
}

void maxcode::printTargetsJSON(llvm::ArrayRef<Target> Targets,
                               llvm::raw_ostream &OS,
                               const DiscoveryReport &Report) {
  llvm::json::OStream J(OS, /*IndentSize=*/2);
  J.object([&] {
    J.attribute("version", JSONOutputVersion);
    J.attributeArray("targets", [&] {
      for (const Target &T : Targets)
        writeTargetJSON(J, T);
    });
    J.attribute("parse_errors", Report.ParseErrors);
    J.attributeArray("blocked", [&] {
      for (const BlockedTarget &B : Report.Blocked)
        J.object([&] {
          J.attribute("name", B.T.Name);
          J.attribute("kind", targetKindName(B.T.Kind));
          J.attribute("file", B.T.File);
          J.attribute("line", B.T.Line);
          J.attribute("end_line", B.T.EndLine);
          J.attribute("reason", B.Reason);
        });
    });
    J.attributeArray("unknown_flags", [&] {
      for (const DiscoveryReport::UnknownFlag &U : Report.UnknownFlags)
        J.object([&] {
          J.attribute("file", U.File);
          J.attribute("flag", U.Flag);
        });
    });
  });
  OS << "\n";
}

/// The lines after the table: what errors blocked, and how many there were.
static void printBlocked(const DiscoveryReport &Report, llvm::raw_ostream &OS) {
  for (const BlockedTarget &B : Report.Blocked)
    OS << "blocked: " << B.T.Name << " (" << targetKindName(B.T.Kind) << ", "
       << llvm::sys::path::filename(B.T.File) << ":" << B.T.Line << "-"
       << B.T.EndLine << "): " << B.Reason << "\n";
  if (Report.ParseErrors)
    OS << "parse errors: " << Report.ParseErrors
       << (Report.Blocked.empty()
               ? " (outside every target: they block none)"
               : " (each blocks only the targets it touches)")
       << "\n";
}

void maxcode::printTargetsText(llvm::ArrayRef<Target> Targets,
                               llvm::raw_ostream &OS,
                               const DiscoveryReport &Report) {
  if (Targets.empty()) {
    if (Report.Blocked.empty())
      OS << "no function or kernel definitions found\n";
    printBlocked(Report, OS);
    return;
  }
  size_t NameW = 4, LocW = 8;
  std::vector<std::string> Locs, Names;
  for (const Target &T : Targets) {
    Locs.push_back(llvm::formatv("{0}:{1}-{2}",
                                 llvm::sys::path::filename(T.File), T.Line,
                                 T.EndLine)
                       .str());
    // As --target takes it: NAME:LINE where a name has several definitions.
    Names.push_back(targetSelector(T, Targets));
    NameW = std::max(NameW, Names.back().size());
    LocW = std::max(LocW, Locs.back().size());
  }
  // The inclusive share, beside the one that ranks, when a profile gave it.
  bool Inclusive = llvm::any_of(
      Targets, [](const Target &T) { return T.InclusiveShare.has_value(); });
  OS << llvm::left_justify("NAME", NameW) << ' '
     << llvm::left_justify("KIND", 20) << ' '
     << llvm::left_justify("LOCATION", LocW) << "  LOOPS LAUNCHES  SHARE"
     << (Inclusive ? "   INCL\n" : "\n");
  for (size_t I = 0; I < Targets.size(); ++I) {
    const Target &T = Targets[I];
    auto Percent = [](const std::optional<double> &S) {
      return S ? llvm::formatv("{0:f1}%", *S * 100).str() : std::string("-");
    };
    std::string Share = Percent(T.Share);
    OS << llvm::left_justify(Names[I], NameW) << ' '
       << llvm::left_justify(targetKindName(T.Kind), 20) << ' '
       << llvm::left_justify(Locs[I], LocW) << ' '
       << llvm::right_justify(std::to_string(T.LoopDepth), 6) << ' '
       << llvm::right_justify(std::to_string(T.LaunchSites.size()), 8) << ' '
       << llvm::right_justify(Share, 6);
    if (Inclusive)
      OS << ' ' << llvm::right_justify(Percent(T.InclusiveShare), 6);
    OS << '\n';
  }
  printBlocked(Report, OS);
}

void maxcode::printParseCommandsText(
    llvm::ArrayRef<clang::tooling::CompileCommand> Cs, llvm::raw_ostream &OS) {
  for (const clang::tooling::CompileCommand &C : Cs) {
    OS << "cd " << shellQuote(C.Directory) << " &&";
    for (const std::string &Arg : C.CommandLine)
      OS << " " << shellQuote(Arg);
    OS << "\n";
  }
}

void maxcode::printParseCommandsJSON(
    llvm::ArrayRef<clang::tooling::CompileCommand> Cs, llvm::raw_ostream &OS) {
  // compile_commands.json entries, in the usual order of their fields.
  llvm::json::OStream J(OS, /*IndentSize=*/2);
  J.object([&] {
    J.attribute("version", JSONOutputVersion);
    J.attributeArray("commands", [&] {
      for (const clang::tooling::CompileCommand &C : Cs)
        J.object([&] {
          J.attribute("directory", C.Directory);
          J.attribute("file", C.Filename);
          J.attributeArray("arguments", [&] {
            for (const std::string &Arg : C.CommandLine)
              J.value(Arg);
          });
        });
    });
  });
  OS << "\n";
}
