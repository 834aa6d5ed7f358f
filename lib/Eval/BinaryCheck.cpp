//===-- BinaryCheck.cpp - The linked program's check ----------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Eval/BinaryCheck.h"
#include "maxcode/Rewrite/Screen.h"
#include "maxcode/Support/Options.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include <mutex>

using namespace maxcode;

namespace {

/// An instruction the check counts: its MC opcode name, the name it is
/// known by, and the --allow-api category it belongs to.
struct WatchedInstruction {
  llvm::StringLiteral Opcode;
  llvm::StringLiteral Name;
  ApiCategory Category;
};

constexpr WatchedInstruction Watched[] = {
    // The time-stamp and performance counters: clocks no library call shows.
    {"RDTSC", "rdtsc", ApiCategory::Clock},
    {"RDTSCP", "rdtscp", ApiCategory::Clock},
    {"RDPMC", "rdpmc", ApiCategory::Clock},
    // The processor's identity: valgrind's virtual CPU reports its own.
    {"CPUID", "cpuid", ApiCategory::MeasurementAwareness},
    // A system call made without the C library: any of the screen's
    // categories, under no name.
    {"SYSCALL", "syscall", ApiCategory::ProcessCreation},
    {"SYSENTER", "sysenter", ApiCategory::ProcessCreation},
};

/// valgrind's client requests (valgrind.h) begin with this preamble on
/// x86-64: rolq $3, $13, $61, $51 on %rdi. Under valgrind they stop or
/// toggle the instruction count; a program has no other use for them.
constexpr unsigned char ValgrindPreamble[] = {
    0x48, 0xc1, 0xc7, 0x03, 0x48, 0xc1, 0xc7, 0x0d,
    0x48, 0xc1, 0xc7, 0x3d, 0x48, 0xc1, 0xc7, 0x33};
constexpr llvm::StringLiteral ValgrindRequest = "valgrind client request";
constexpr llvm::StringLiteral Int80 = "int $0x80";

/// The screen's category of \p Symbol, a name as the linker sees it: a C
/// name, or a mangled C++ one of a standard clock.
std::optional<ApiCategory> symbolCategory(llvm::StringRef Symbol) {
  Symbol = Symbol.split('@').first; // A version, where one is spelled.
  if (auto C = apiCategoryOf(Symbol))
    return C;
  if (!Symbol.starts_with("_Z"))
    return std::nullopt;
  // The standard library's clocks are C++ functions: a variant that reads
  // one through a template argument or an alias imports it all the same.
  std::string D = llvm::demangle(Symbol.str());
  llvm::StringRef N(D);
  if ((N.starts_with("std::chrono::") && N.contains("::now()")) ||
      N.starts_with("std::filesystem::last_write_time") ||
      N.starts_with("std::filesystem::__file_clock::now"))
    return ApiCategory::Clock;
  return std::nullopt;
}

/// The display name of \p Symbol: demangled where C++.
std::string symbolName(llvm::StringRef Symbol) {
  Symbol = Symbol.split('@').first;
  return Symbol.starts_with("_Z") ? llvm::demangle(Symbol.str()) : Symbol.str();
}

void noteSymbol(llvm::StringRef Name, BinaryFacts &Out) {
  if (auto C = symbolCategory(Name); C && *C != ApiCategory::FileSystem)
    Out.WatchedSymbols.emplace(symbolName(Name), apiCategoryKey(*C).str());
}

/// One disassembler for x86-64 (the tool's own machine); nothing where the
/// target is not built into LLVM.
struct Disassembler {
  std::unique_ptr<const llvm::MCRegisterInfo> MRI;
  std::unique_ptr<const llvm::MCAsmInfo> MAI;
  std::unique_ptr<const llvm::MCSubtargetInfo> STI;
  std::unique_ptr<const llvm::MCInstrInfo> MII;
  std::unique_ptr<llvm::MCContext> Ctx;
  std::unique_ptr<const llvm::MCDisassembler> DisAsm;
};

std::unique_ptr<Disassembler> makeDisassembler(const llvm::Triple &TT) {
  static std::once_flag Once;
  std::call_once(Once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllDisassemblers();
  });
  std::string Error;
  const llvm::Target *T = llvm::TargetRegistry::lookupTarget(TT, Error);
  if (!T)
    return nullptr;
  auto D = std::make_unique<Disassembler>();
  D->MRI.reset(T->createMCRegInfo(TT));
  if (!D->MRI)
    return nullptr;
  llvm::MCTargetOptions Options;
  D->MAI.reset(T->createMCAsmInfo(*D->MRI, TT, Options));
  D->STI.reset(T->createMCSubtargetInfo(TT, "", ""));
  D->MII.reset(T->createMCInstrInfo());
  if (!D->MAI || !D->STI || !D->MII)
    return nullptr;
  D->Ctx = std::make_unique<llvm::MCContext>(TT, D->MAI.get(), D->MRI.get(),
                                             D->STI.get());
  D->DisAsm.reset(T->createMCDisassembler(*D->STI, *D->Ctx));
  if (!D->DisAsm)
    return nullptr;
  return D;
}

/// Counts the watched instructions of \p Code, an executable section at
/// \p Address, by a linear sweep (bytes that do not decode are skipped one
/// at a time, so data in a code section cannot hide what follows it).
void countInstructions(const Disassembler &D, llvm::ArrayRef<uint8_t> Code,
                       uint64_t Address, BinaryFacts &Out) {
  for (uint64_t At = 0; At < Code.size();) {
    llvm::MCInst I;
    uint64_t Size = 0;
    auto S = D.DisAsm->getInstruction(I, Size, Code.slice(At), Address + At,
                                      llvm::nulls());
    if (S != llvm::MCDisassembler::Success || Size == 0) {
      ++At;
      continue;
    }
    llvm::StringRef Op = D.MII->getName(I.getOpcode());
    for (const WatchedInstruction &W : Watched)
      if (Op == W.Opcode)
        ++Out.Instructions[W.Name.str()];
    if (Op == "INT" && I.getNumOperands() == 1 && I.getOperand(0).isImm() &&
        I.getOperand(0).getImm() == 0x80)
      ++Out.Instructions[Int80.str()];
    At += Size;
  }
  // The preamble is four ordinary instructions: found by its bytes, at any
  // alignment.
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Code.data()),
                        Code.size());
  llvm::StringRef Needle(reinterpret_cast<const char *>(ValgrindPreamble),
                         sizeof(ValgrindPreamble));
  for (size_t At = Bytes.find(Needle); At != llvm::StringRef::npos;
       At = Bytes.find(Needle, At + 1))
    ++Out.Instructions[ValgrindRequest.str()];
}

std::optional<ApiCategory> instructionCategory(llvm::StringRef Name) {
  for (const WatchedInstruction &W : Watched)
    if (W.Name == Name)
      return W.Category;
  if (Name == Int80)
    return ApiCategory::ProcessCreation;
  if (Name == ValgrindRequest)
    return ApiCategory::MeasurementAwareness;
  return std::nullopt;
}

} // namespace

llvm::Expected<BinaryFacts> maxcode::readBinaryFacts(llvm::StringRef Path) {
  auto Bin = llvm::object::ObjectFile::createObjectFile(Path);
  if (!Bin)
    return llvm::createStringError("cannot read the linked program " + Path +
                                   ": " + llvm::toString(Bin.takeError()));
  const llvm::object::ObjectFile &Obj = *Bin->getBinary();
  const auto *Elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(&Obj);
  if (!Elf)
    return llvm::createStringError("the linked program " + Path +
                                   " is not an ELF file");
  BinaryFacts Out;
  bool Dynamic = false;
  for (const llvm::object::ELFSymbolRef &S : Elf->getDynamicSymbolIterators()) {
    Dynamic = true;
    if (auto N = S.getName())
      noteSymbol(*N, Out);
    else
      llvm::consumeError(N.takeError());
  }
  // A statically linked program imports nothing: what it calls is in it.
  if (!Dynamic)
    for (const llvm::object::SymbolRef &S : Obj.symbols()) {
      if (auto N = S.getName())
        noteSymbol(*N, Out);
      else
        llvm::consumeError(N.takeError());
    }
  llvm::Triple TT = Obj.makeTriple();
  if (TT.getArch() != llvm::Triple::x86_64 && TT.getArch() != llvm::Triple::x86)
    return Out;
  std::unique_ptr<Disassembler> D = makeDisassembler(TT);
  if (!D)
    return Out;
  for (const llvm::object::SectionRef &Sec : Obj.sections()) {
    if (!Sec.isText() || Sec.isVirtual())
      continue;
    auto Contents = Sec.getContents();
    if (!Contents) {
      llvm::consumeError(Contents.takeError());
      continue;
    }
    countInstructions(*D, llvm::arrayRefFromStringRef(*Contents),
                      Sec.getAddress(), Out);
  }
  Out.InstructionsRead = true;
  return Out;
}

std::optional<std::string>
maxcode::judgeBinary(const BinaryFacts &Original, const BinaryFacts &Variant,
                     llvm::ArrayRef<std::string> AllowApis, OptionNames Names) {
  for (const auto &[Name, Key] : Variant.WatchedSymbols) {
    if (Original.WatchedSymbols.count(Name) ||
        llvm::is_contained(AllowApis, Name) ||
        llvm::is_contained(AllowApis, Key))
      continue;
    return "the linked program uses " + Name + " (" + Key +
           "), which the original's does not: the code reaches it under a "
           "name the screen did not see (allow it with " +
           Names("AllowApi") + "=" +
           (Name.find_first_of(" :(") == std::string::npos ? Name : Key) +
           " if it is meant)";
  }
  if (!Variant.InstructionsRead || !Original.InstructionsRead)
    return std::nullopt;
  for (const auto &[Name, Count] : Variant.Instructions) {
    auto It = Original.Instructions.find(Name);
    unsigned Before = It == Original.Instructions.end() ? 0 : It->second;
    if (Count <= Before)
      continue;
    ApiCategory C =
        instructionCategory(Name).value_or(ApiCategory::MeasurementAwareness);
    if (apiAllowedByUser(AllowApis, Name, C))
      continue;
    return llvm::formatv("the linked program holds {0} {1} instruction{2} "
                         "where the original's holds {3}: code that reads "
                         "the clock, the processor or the kernel, or talks "
                         "to valgrind, directly (allow it with "
                         "{5}={4} if it is meant)",
                         Count, Name, Count == 1 ? "" : "s", Before,
                         Name.find(' ') == std::string::npos
                             ? Name
                             : apiCategoryKey(C).str(),
                         Names("AllowApi"))
        .str();
  }
  return std::nullopt;
}
