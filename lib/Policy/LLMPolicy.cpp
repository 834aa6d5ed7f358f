//===-- LLMPolicy.cpp - Proposer, critic and RTG by LLM -------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Policy/LLMPolicy.h"
#include "maxcode/Frontend/Discovery.h"
#include "maxcode/LLM/ReplyParsing.h"
#include "maxcode/Policy/RulesCritic.h"
#include "maxcode/Support/Debug.h"
#include "maxcode/Support/Diff.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "maxcode-llm"

using namespace maxcode;

//===----------------------------------------------------------------------===//
// Replies to variants
//===----------------------------------------------------------------------===//

/// Whether \p Code defines main(): then it is a whole program, not a
/// definition to splice.
static bool definesMain(llvm::StringRef Code) {
  static const llvm::Regex MainDef(
      "(^|\n)[ \t]*(int|signed|signed int|auto)[ \t\n]+main[ \t]*\\(");
  return MainDef.match(Code);
}

static bool isIncludeLine(llvm::StringRef Line) {
  Line = Line.ltrim();
  if (!Line.consume_front("#"))
    return false;
  return Line.ltrim().starts_with("include");
}

namespace {
/// A namespace-scope declaration of some code, as its tokens: its text and
/// its tokens joined by single spaces, comments left out.
struct Chunk {
  llvm::StringRef Text;
  std::string Tokens;
};

/// \p Code cut into its top-level declarations, by the raw lexer: each
/// ends at a `;` outside brackets, or at the `}` that closes a function's
/// body (a class's is followed by its declarators and `;`). A preprocessor
/// line is one of its own.
std::vector<Chunk> topLevelChunks(llvm::StringRef Code) {
  clang::LangOptions LO;
  LO.CPlusPlus = LO.CPlusPlus11 = LO.CPlusPlus14 = LO.CPlusPlus17 = true;
  // The raw lexer stops at a NUL after the buffer, which a slice lacks.
  std::string Copy = Code.str();
  clang::Lexer L(clang::SourceLocation(), LO, Copy.data(), Copy.data(),
                 Copy.data() + Copy.size());
  std::vector<Chunk> Out;
  std::string Tokens;
  const char *Begin = nullptr;
  int Depth = 0;
  // Before the first `{` of the declaration: a class keyword, a `(`.
  bool TypeKeyword = false, Paren = false, InDirective = false;
  auto Close = [&](const char *End) {
    if (Begin)
      Out.push_back({llvm::StringRef(Begin, End - Begin), Tokens});
    Begin = nullptr;
    Tokens.clear();
    TypeKeyword = Paren = false;
  };
  clang::Token Tok;
  for (bool AtEnd = false; !AtEnd;) {
    AtEnd = L.LexFromRawLexer(Tok);
    if (Tok.is(clang::tok::eof))
      break;
    const char *At = Code.begin() + Tok.getLocation().getRawEncoding();
    llvm::StringRef Spelling(At, Tok.getLength());
    if (InDirective && !Tok.isAtStartOfLine()) {
      Tokens += Spelling.str() + " ";
      continue;
    }
    if (InDirective) {
      InDirective = false;
      Close(At);
    }
    if (Depth == 0 && Tok.is(clang::tok::hash) && Tok.isAtStartOfLine()) {
      Close(At);
      Begin = At;
      InDirective = true;
      Tokens = "# ";
      continue;
    }
    if (!Begin)
      Begin = At;
    Tokens += Spelling.str() + " ";
    if (Depth == 0 && Tok.is(clang::tok::raw_identifier) &&
        llvm::is_contained({"struct", "class", "union", "enum"}, Spelling))
      TypeKeyword = true;
    if (Depth == 0 && Tok.is(clang::tok::l_paren))
      Paren = true;
    if (Tok.isOneOf(clang::tok::l_brace, clang::tok::l_paren,
                    clang::tok::l_square))
      ++Depth;
    else if (Tok.isOneOf(clang::tok::r_brace, clang::tok::r_paren,
                         clang::tok::r_square))
      --Depth;
    if (Depth == 0 &&
        (Tok.is(clang::tok::semi) ||
         (Tok.is(clang::tok::r_brace) && (Paren || !TypeKeyword))))
      Close(At + Tok.getLength());
  }
  Close(Code.end());
  return Out;
}
} // namespace

std::string maxcode::dropRepeatedDeclarations(llvm::StringRef Block,
                                              llvm::StringRef Current,
                                              llvm::StringRef TargetName) {
  llvm::StringSet<> Existing;
  for (const Chunk &C : topLevelChunks(Current))
    Existing.insert(C.Tokens);
  llvm::StringRef Ident = TargetName.rsplit("::").second;
  if (Ident.empty())
    Ident = TargetName;
  std::string Out;
  size_t Kept = 0;
  for (const Chunk &C : topLevelChunks(Block)) {
    // The target's own definition is never dropped: an unchanged one is a
    // repeat the search sees for itself.
    if (!Existing.count(C.Tokens) ||
        llvm::StringRef(C.Tokens).contains((Ident + " (").str()))
      continue;
    size_t B = C.Text.begin() - Block.begin(), E = C.Text.end() - Block.begin();
    // Its whole lines, and the comment lines right above it.
    size_t LineStart = Block.rfind('\n', B);
    LineStart = LineStart == llvm::StringRef::npos ? 0 : LineStart + 1;
    size_t LineEnd = Block.find('\n', E);
    LineEnd = LineEnd == llvm::StringRef::npos ? Block.size() : LineEnd + 1;
    if (LineStart >= Kept && Block.slice(LineStart, B).trim().empty() &&
        Block.slice(E, LineEnd).trim().empty()) {
      B = LineStart;
      E = LineEnd;
      while (B > Kept) {
        size_t Prev = Block.rfind('\n', B - 1);
        Prev = Prev == llvm::StringRef::npos ? 0 : Prev + 1;
        if (Prev < Kept || !Block.slice(Prev, B).trim().starts_with("//"))
          break;
        B = Prev;
      }
    }
    Out += Block.slice(Kept, B);
    Kept = E;
  }
  Out += Block.drop_front(Kept);
  return Out;
}

llvm::Expected<std::string> maxcode::spliceReply(llvm::StringRef Reply,
                                                 const ReplySplice &S) {
  auto Block = chooseCodeBlock(Reply, S.TargetName);
  if (!Block) {
    // Under --scope=file a whole program is welcome even when it no longer
    // has the target (the model may have folded it into main).
    if (S.Scope != EditScope::File)
      return Block.takeError();
    auto Program = chooseCodeBlock(Reply, "main");
    if (!Program || !definesMain(Program->Code)) {
      // No whole program either: the target's error says what was missing.
      if (!Program)
        llvm::consumeError(Program.takeError());
      return Block.takeError();
    }
    // The whole program answers instead.
    llvm::consumeError(Block.takeError());
    return Program->Code;
  }
  if (S.Scope == EditScope::File && definesMain(Block->Code))
    return Block->Code;
  if (!S.T)
    return llvm::createStringError(
        "the code block is not a whole program, and the current code has no "
        "definition of '" +
        S.TargetName + "' to replace");

  // Include lines go with the file's own, from every block of the reply
  // (models often give them a block of their own); the rest of the chosen
  // block replaces the target, so that helpers declared in it come right
  // before it.
  std::vector<std::string> Includes;
  for (const CodeBlock &B : extractCodeBlocks(Reply))
    if (B.Closed && isSourceLanguage(B.Language) && B.Line != Block->Line)
      for (llvm::StringRef Line : llvm::split(B.Code, '\n'))
        if (isIncludeLine(Line))
          Includes.push_back(Line.trim().str());
  std::string Body;
  for (llvm::StringRef Line : llvm::split(Block->Code, '\n')) {
    if (isIncludeLine(Line))
      Includes.push_back(Line.trim().str());
    else
      Body += (Line + "\n").str();
  }
  // A helper the current code has already, repeated word for word (models
  // repeat what the prompt showed), is the one there.
  Body = llvm::StringRef(dropRepeatedDeclarations(
                             Body, S.CurrentText.take_front(S.T->BeginOffset),
                             S.TargetName))
             .trim()
             .str();
  if (Body.empty())
    return llvm::createStringError("the code block holds only #include lines");

  llvm::StringRef Cur = S.CurrentText;
  std::string Before = Cur.substr(0, S.T->BeginOffset).str();
  std::string After = Cur.substr(S.T->EndOffset).str();
  std::string Added;
  for (const std::string &Inc : Includes) {
    bool Present = false;
    for (llvm::StringRef Line : llvm::split(Cur, '\n'))
      if (Line.trim() == Inc)
        Present = true;
    if (!Present && !llvm::StringRef(Added).contains(Inc))
      Added += Inc + "\n";
  }
  if (!Added.empty()) {
    // After the last #include before the target, else at the top.
    size_t Insert = 0, Pos = 0;
    for (llvm::StringRef Line : llvm::split(Before, '\n')) {
      size_t Next = Pos + Line.size() + 1;
      if (isIncludeLine(Line))
        Insert = std::min(Next, Before.size());
      Pos = Next;
    }
    if (Insert > 0 && Before[Insert - 1] != '\n') {
      Before.insert(Insert, "\n");
      ++Insert;
    }
    Before.insert(Insert, Added);
  }
  return Before + Body + After;
}

//===----------------------------------------------------------------------===//
// Observations in words
//===----------------------------------------------------------------------===//

/// The hot lines with their source and share, the hottest first; nothing
/// when no line of the program holds a tenth of a percent.
static std::string describeHotLines(llvm::ArrayRef<HotLine> Lines,
                                    llvm::StringRef Text,
                                    llvm::StringRef Whose) {
  llvm::SmallVector<llvm::StringRef> Src;
  Text.split(Src, '\n');
  std::string Out;
  double Covered = 0;
  unsigned Shown = 0;
  for (const HotLine &H : Lines)
    Covered += H.Share;
  for (const HotLine &H : Lines) {
    if (H.Share < 0.001 || Shown == 5)
      break;
    llvm::StringRef L =
        H.Line >= 1 && H.Line <= Src.size() ? Src[H.Line - 1].trim() : "";
    if (L.empty())
      continue;
    std::string Code =
        L.size() > 100 ? (L.take_front(97) + "...").str() : L.str();
    Out += llvm::formatv("- line {0} ({1:f1}%): `{2}`\n", H.Line, H.Share * 100,
                         Code)
               .str();
    ++Shown;
  }
  if (Out.empty())
    return "";
  return llvm::formatv("Where {0} spends its instructions (callgrind):\n{1}"
                       "(the program's ten hottest lines hold {2:f1}% of the "
                       "cost; the rest is start-up and library code)\n",
                       Whose, Out, Covered * 100)
      .str();
}

std::string maxcode::describeBuild(llvm::ArrayRef<std::string> Argv) {
  if (Argv.empty())
    return "(unknown)";
  // What decides the language and the code generated; not where the
  // output goes or where headers are.
  std::string Out = llvm::sys::path::filename(Argv.front()).str();
  for (size_t I = 1; I < Argv.size(); ++I) {
    llvm::StringRef A = Argv[I];
    if (A == "-o" || A == "-MF" || A == "-MT" || A == "-MQ" || A == "-I" ||
        A == "-isystem" || A == "-include" || A == "-Xclang") {
      ++I;
      continue;
    }
    bool Keep = A.starts_with("-O") || A.starts_with("-std=") ||
                A.starts_with("--std") || A == "-ansi" || A.starts_with("-m") ||
                A.starts_with("-D") || A.starts_with("-arch") ||
                A.starts_with("--gpu-architecture") ||
                A.starts_with("-gencode") || A == "--use_fast_math" ||
                A == "-pedantic" || A == "-fopenmp" ||
                (A.starts_with("-f") && !A.starts_with("-fdiagnostics") &&
                 !A.starts_with("-fcolor") && !A.starts_with("-fdebug") &&
                 !A.starts_with("-fmessage"));
    if (Keep)
      Out += " " + A.str();
  }
  return Out;
}

std::string maxcode::describeMeasure(MeasureMode M, bool Bench) {
  switch (M) {
  case MeasureMode::Instructions:
    return std::string("instructions, counted by callgrind over the whole ") +
           (Bench ? "bench" : "run on each timed input") +
           " (every process it starts): fewer instructions is faster; time "
           "is not what is scored, so a rewrite that runs more, cheaper "
           "instructions (vector code) can score worse.";
  case MeasureMode::CudaKernel:
    return "GPU time of every kernel of the run (CUPTI), warm-up runs first "
           "and the L2 cache flushed between runs.";
  case MeasureMode::Time:
    return std::string("wall time of the whole ") +
           (Bench ? "bench" : "run on each timed input") +
           " (every process it starts), interleaved with the original's "
           "runs; differences inside the noise count as 1.000x.";
  }
  llvm_unreachable("unknown measure");
}

std::string maxcode::describeWorkload(const WorkloadFacts &W,
                                      llvm::StringRef OriginalText,
                                      const Target &T) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  if (!W.Inputs.empty()) {
    OS << llvm::formatv("The program reads each input on stdin. The search "
                        "sees {0} input{1}",
                        W.Inputs.size(), W.Inputs.size() == 1 ? "" : "s");
    if (W.HeldOutInputs)
      OS << llvm::formatv("; {0} more {1} held out: they verify the winner "
                          "and are never shown",
                          W.HeldOutInputs, W.HeldOutInputs == 1 ? "is" : "are");
    OS << ":\n";
    for (const InputFacts &F : W.Inputs) {
      OS << llvm::formatv("- `{0}`: {1} bytes, {2} line{3}", F.Name, F.Bytes,
                          F.Lines, F.Lines == 1 ? "" : "s");
      if (F.Numbers)
        OS << llvm::formatv(", {0} number{1} (largest {2})", F.Numbers,
                            F.Numbers == 1 ? "" : "s", F.Largest);
      if (F.Timed)
        OS << " (timed)";
      OS << "\n";
    }
    if (!W.Head.empty())
      OS << "\nThe largest timed input begins:\n\n```text\n"
         << W.Head << "\n```\n";
  } else if (!W.BenchCmd.empty() || !W.TestCmd.empty()) {
    OS << "The project is built with its own command and measured by ";
    OS << (W.BenchCmd.empty() ? "its test command"
                              : "its bench command: `" + W.BenchCmd + "`");
    if (!W.TestCmd.empty())
      OS << "; correctness is its test command: `" << W.TestCmd << "`";
    OS << ".\n";
  }
  if (T.Share)
    OS << llvm::formatv("\nThe profile gives `{0}` {1:f1}% of the run's cost "
                        "by its own code{2}.\n",
                        T.Name, *T.Share * 100,
                        T.InclusiveShare
                            ? llvm::formatv(" ({0:f1}% with what it calls)",
                                            *T.InclusiveShare * 100)
                                  .str()
                            : std::string());
  if (W.BaselineCost > 0)
    OS << llvm::formatv("\nThe original costs {0} on the timed inputs.\n",
                        formatCost(W.BaselineCost, W.CostUnit));
  std::string Hot =
      describeHotLines(W.BaselineHotLines, OriginalText, "the original");
  if (!Hot.empty())
    OS << (W.BaselineCost > 0 ? "" : "\n") << Hot;
  std::string Out = llvm::StringRef(OS.str()).trim().str();
  return Out.empty() ? "(no description of the workload)" : Out;
}

std::string maxcode::languageStandard(const ParsedFile &Parsed) {
  const clang::LangOptions &LO = Parsed.AST->getASTContext().getLangOpts();
  std::string Std = LO.CPlusPlus26   ? "C++26"
                    : LO.CPlusPlus23 ? "C++23"
                    : LO.CPlusPlus20 ? "C++20"
                    : LO.CPlusPlus17 ? "C++17"
                    : LO.CPlusPlus14 ? "C++14"
                    : LO.CPlusPlus11 ? "C++11"
                    : LO.CPlusPlus   ? "C++98"
                                     : "C";
  return LO.CUDA ? "CUDA " + Std : Std;
}

/// What the language line adds for a standard whose limits models forget.
static std::string standardNote(llvm::StringRef Standard) {
  if (Standard == "C++98")
    return "; no C++11 or later: no auto, lambdas, nullptr, range-for, "
           "<cstdint>, <unordered_map> or <array>";
  return "";
}

std::string maxcode::describeFeedback(const std::optional<EvalResult> &R,
                                      llvm::StringRef Text) {
  if (!R)
    return "This is the original code: it builds, passes every test and is "
           "the baseline (speedup 1.000x).";
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << "Status: " << evalStatusName(R->Status);
  if (!R->Reason.empty())
    OS << " (" << R->Reason << ")";
  OS << ".\n";
  if (R->TestsTotal)
    OS << llvm::formatv("Tests passed: {0} of {1}.\n", R->TestsPassed,
                        R->TestsTotal);
  if (R->FirstFailure) {
    const TestFailure &F = *R->FirstFailure;
    OS << "First failing test: " << F.Test;
    if (F.Line)
      OS << llvm::formatv(", line {0}: expected `{1}`, got `{2}`", F.Line,
                          F.Expected, F.Actual);
    if (!F.Detail.empty())
      OS << " (" << F.Detail << ")";
    OS << ".\n";
  }
  unsigned Shown = 0;
  for (const BuildDiagnostic &D : R->Diagnostics) {
    if (D.Severity != "error" || ++Shown > 5)
      continue;
    OS << llvm::formatv("Compiler error at line {0}:{1}: {2}\n", D.Line,
                        D.Column, D.Message);
  }
  // A winner is not credited an edit that adds a warning (the minimiser
  // drops it): the model should see them as it sees errors.
  unsigned Warnings = 0;
  for (const BuildDiagnostic &D : R->Diagnostics) {
    if (R->Status == EvalStatus::BuildError || D.Severity != "warning" ||
        ++Warnings > 5)
      continue;
    OS << llvm::formatv("Compiler warning at line {0}:{1}: {2} (the final "
                        "code must add no warning)\n",
                        D.Line, D.Column, D.Message);
  }
  if (R->ok()) {
    OS << llvm::formatv("Speedup over the original: {0:f3}x ({1} against "
                        "{2}; noise {3:f1}%).\n",
                        R->Ratio, formatCost(R->VariantCost, R->CostUnit),
                        formatCost(R->BaselineCost, R->CostUnit),
                        R->Noise * 100);
    OS << describeHotLines(R->HotLines, Text, "the variant");
    for (const auto &[Name, Value] : R->Metrics)
      OS << llvm::formatv("Metric {0}: {1}\n", Name, Value);
  }
  // The tool's own notes (a build that is not incremental, a cache it
  // could not write) are the user's business, not the model's.
  return llvm::StringRef(OS.str()).rtrim().str();
}

static llvm::StringRef languageOf(TargetKind K) {
  return K == TargetKind::CpuFunction ? "C++" : "CUDA";
}

static std::string targetText(llvm::StringRef Text, const Target &T) {
  if (T.EndOffset > Text.size() || T.BeginOffset > T.EndOffset)
    return "";
  return Text.slice(T.BeginOffset, T.EndOffset).str();
}

/// "1", "0.95": the discount as a person writes it.
static std::string formatGamma(double G) {
  std::string S;
  llvm::raw_string_ostream(S) << llvm::format("%g", G);
  return S;
}

static std::string formatReward(double R) {
  return llvm::formatv("{0:f3}", R).str();
}

/// "llm sample 2 of expansion 1 (read each packet in one call): ok,
/// 1.820x".
static std::string attemptLine(const Attempt &A) {
  std::string Outcome = A.Status == EvalStatus::Ok
                            ? llvm::formatv("ok, {0:f3}x", A.Reward).str()
                            : evalStatusName(A.Status).str();
  return A.Description + ": " + Outcome;
}

static std::string historyText(llvm::ArrayRef<Attempt> History) {
  if (History.empty())
    return "(none yet)";
  std::string S;
  for (const Attempt &A : History)
    S += "- " + attemptLine(A) + "\n";
  return llvm::StringRef(S).rtrim().str();
}

/// The changes of \p After against \p Before, for prompts that judge them.
static std::string changes(llvm::StringRef Before, llvm::StringRef After) {
  if (Before == After)
    return "(unchanged)";
  return llvm::StringRef(unifiedDiff(Before, After, "a/original", "b/variant"))
      .rtrim()
      .str();
}

//===----------------------------------------------------------------------===//
// LLMProposer
//===----------------------------------------------------------------------===//

LLMProposer::LLMProposer(LLMClient &Client, PromptLibrary &Prompts,
                         clang::tooling::CompileCommand Command,
                         std::string File, ParseSettings Settings,
                         EditScope Scope, uint64_t Seed, PromptFacts Facts,
                         LLMCallSink Sink)
    : Client(Client), Prompts(Prompts), Command(std::move(Command)),
      File(std::move(File)), Settings(std::move(Settings)), Scope(Scope),
      Seed(Seed), Facts(std::move(Facts)), Sink(std::move(Sink)) {}

/// The Critique section: the current node's critique, then up to two
/// earlier ones on its path, each saying which attempt it is about.
static std::string critiqueText(const Observation &Obs) {
  // The current node's critique first, then at most two earlier ones on
  // its path, newest first: each says which attempt it is about, so that
  // an old "1.000x" is not read as news.
  std::string Out;
  unsigned Shown = 0;
  for (size_t I = Obs.Critiques.size(); I-- > 0 && Shown < 3;) {
    llvm::StringRef Text = llvm::StringRef(Obs.Critiques[I].Text).trim();
    if (Text.empty())
      continue;
    std::string About = I < Obs.CritiquedAttempts.size()
                            ? attemptLine(Obs.CritiquedAttempts[I])
                            : "an earlier attempt";
    Out +=
        (I + 1 == Obs.Critiques.size() ? "Of the current code ("
                                       : "Of an earlier step on this path (") +
        About + "):\n" + Text.str() + "\n\n";
    ++Shown;
  }
  return Out.empty() ? "(none yet)" : llvm::StringRef(Out).rtrim().str();
}

llvm::Expected<std::vector<ChatMessage>> maxcode::renderProposerPrompt(
    PromptLibrary &Prompts, const ProposerPromptInput &In,
    const Observation &Obs, std::optional<Target> *CurrentOut) {
  const Target &OT = Obs.OriginalTarget;
  const PromptFacts &Facts = In.Facts;
  std::optional<Target> Current;
  std::string Context;
  std::string Standard = "Standard C++";
  std::string Diags;
  llvm::raw_string_ostream DOS(Diags);
  auto Parsed =
      parseTargets(In.Command, In.File, In.Settings, DOS,
                   llvm::StringRef(Obs.CurrentText), ParseErrors::Fail);
  if (Parsed) {
    if (const Target *T = Parsed->find(OT))
      Current = *T;
    Standard = languageStandard(Parsed->Host);
    if (Current)
      Context = targetContext(Parsed->parseOf(*Current), *Current,
                              Facts.ContextTokens);
  } else {
    llvm::Error E = Parsed.takeError();
    MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": the prompt shows the whole "
                               << "current text, which does not parse: "
                               << llvm::toString(std::move(E)) << "\n");
    llvm::consumeError(std::move(E));
  }
  if (Context.empty())
    Context = "// (nothing beyond the standard library)";

  std::string Feedback = describeFeedback(Obs.Feedback, Obs.CurrentText);
  // At the root, why the original is slow; below it, the root's children's
  // critiques carry it.
  if (!Obs.Feedback && Obs.Evidence && !Obs.Evidence->empty())
    Feedback += "\n\nWhy the original is slow, as measured and as the "
                "compiler reports it:\n" +
                critiqueOfEvidence(*Obs.Evidence, Obs.OriginalText).Text;
  if (!In.Unusable.empty()) {
    Feedback += "\n\nRecent replies for this code that could not be used:\n";
    for (const std::string &U : In.Unusable)
      Feedback += "- " + U + "\n";
  }

  std::map<std::string, std::string> V{
      {"target_name", OT.Name},
      {"target_kind", targetKindName(OT.Kind).str()},
      {"target_signature", OT.Signature},
      {"build", Facts.Build},
      {"standard", Standard},
      {"standard_note", standardNote(Standard)},
      {"measure", Facts.Measure},
      {"workload", Facts.Workload},
      {"original_code", targetText(Obs.OriginalText, OT)},
      {"current_code",
       Current ? targetText(Obs.CurrentText, *Current) : Obs.CurrentText},
      {"context", Context},
      {"feedback", llvm::StringRef(Feedback).rtrim().str()},
      {"critique", critiqueText(Obs)},
      {"best_speedup", formatReward(Obs.IncumbentReward)},
      {"u", formatReward(Obs.U)},
      {"gamma", formatGamma(Facts.Gamma)},
      {"history", historyText(Obs.History)}};
  if (OT.Kind != TargetKind::CpuFunction) {
    std::string Sites;
    llvm::SmallVector<llvm::StringRef> Lines;
    llvm::StringRef(Obs.OriginalText).split(Lines, '\n');
    for (const SourcePosition &P : OT.LaunchSites)
      if (P.Line >= 1 && P.Line <= Lines.size())
        Sites += llvm::formatv("// line {0}\n{1}\n", P.Line,
                               Lines[P.Line - 1].trim())
                     .str();
    V["launch_sites"] =
        Sites.empty() ? "// (no launch found in this file)" : Sites;
  }
  if (CurrentOut)
    *CurrentOut = Current;
  return Prompts.renderMessages(
      OT.Kind == TargetKind::CpuFunction ? "proposer-cpp" : "proposer-cuda", V);
}

/// The first error line of a Clang diagnostic dump, with the file name of
/// the original replaced by "line".
static std::string firstError(llvm::StringRef Diags, llvm::StringRef File) {
  for (llvm::StringRef L : llvm::split(Diags, '\n'))
    if (L.contains("error:")) {
      if (L.consume_front(File) && L.consume_front(":"))
        return ("line " + L).str();
      return L.str();
    }
  return "the parser reported an error";
}

llvm::Expected<std::vector<Variant>>
LLMProposer::propose(const Observation &Obs, unsigned K) {
  K = std::max(1u, K);
  std::optional<Target> Current;
  llvm::StringSet<> Seen;
  for (const std::string &H : Obs.SeenTextHashes)
    Seen.insert(H);
  std::vector<Variant> Out;
  std::string FirstError;
  bool AnyAnswered = false;
  std::string Node = variantHash(Obs.CurrentText);
  // A second round, with the reasons of the first shown to the model, when
  // the first gave nothing usable.
  for (unsigned Round = 0; Round < 2 && Out.empty(); ++Round) {
    if (Round > 0 && !AnyAnswered)
      break;
    Current.reset();
    std::vector<std::string> &Reasons = Unusable[Node];
    auto Messages = renderProposerPrompt(
        Prompts, {Command, File, Settings, Facts, Reasons}, Obs, &Current);
    if (!Messages)
      return Messages.takeError();

    uint64_t Base = Seed + uint64_t(Obs.ExpansionIndex + Round) * 1000 +
                    uint64_t(Expansions) * 100000;
    std::vector<Sample> Samples = requestSamples(*Messages, K, Base);
    ++Expansions;

    ReplySplice S;
    S.CurrentText = Obs.CurrentText;
    S.T = Current;
    S.TargetName = Obs.OriginalTarget.Name;
    S.Scope = Scope;
    size_t Before = Out.size();
    size_t Old = Reasons.size();
    for (unsigned I = 0; I < K; ++I) {
      LLMCallEvent E;
      E.Role = "proposer";
      E.Model = Client.options().Model;
      if (!Samples[I].Response) {
        E.Error = Samples[I].Error;
        if (FirstError.empty())
          FirstError = E.Error;
        Sink(E);
        continue;
      }
      AnyAnswered = true;
      useSample(*Samples[I].Response, I, S, Seen, E, Out);
      Sink(E);
    }
    // Once a reply for this code is used, the older reasons are history:
    // only this round's stay.
    if (Out.size() > Before)
      Reasons.erase(Reasons.begin(), Reasons.begin() + Old);
    // Only the most recent reasons are worth the model's attention.
    if (Reasons.size() > 4)
      Reasons.erase(Reasons.begin(), Reasons.end() - 4);
  }
  if (Out.empty() && !AnyAnswered)
    return llvm::createStringError("every LLM request failed; the first: " +
                                   FirstError);
  return Out;
}

std::vector<LLMProposer::Sample>
LLMProposer::requestSamples(const std::vector<ChatMessage> &Messages,
                            unsigned K, uint64_t Base) {
  // k samples as k requests with their own seeds: every server supports
  // it (not all honour n), and each request has its own record/replay key.
  std::vector<Sample> Samples(K);
  // The requests wait on the network, not the CPU: one thread each.
  llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(K));
  for (unsigned I = 0; I < K; ++I)
    Pool.async([&, I] {
      ChatRequest R;
      R.Messages = Messages;
      R.Seed = Base + I;
      auto Resp = Client.complete(R);
      if (Resp)
        Samples[I].Response = std::move(*Resp);
      else
        Samples[I].Error = llvm::toString(Resp.takeError());
    });
  Pool.wait();
  return Samples;
}

/// What a reply tried, in one line: its "Idea:" line, else the first
/// comment of its code that is not the template's, else its size.
static std::string ideaOf(llvm::StringRef Reply, llvm::StringRef Before,
                          llvm::StringRef After) {
  std::string Idea = replyIdea(Reply);
  if (!Idea.empty())
    return Idea;
  for (const CodeBlock &B : extractCodeBlocks(Reply))
    for (llvm::StringRef L : llvm::split(B.Code, '\n')) {
      L = L.trim();
      if (!L.consume_front("//"))
        continue;
      L = L.trim();
      if (L.size() >= 12 && !L.starts_with("optional:"))
        return L.size() > 100 ? (L.take_front(97) + "...").str() : L.str();
    }
  unsigned Added = 0, Removed = 0;
  for (const DiffHunk &H : diffLines(Before, After)) {
    Added += H.AfterCount;
    Removed += H.BeforeCount;
  }
  return llvm::formatv("{0} lines added, {1} removed", Added, Removed).str();
}

void LLMProposer::useSample(const ChatResponse &R, unsigned I,
                            const ReplySplice &S, llvm::StringSet<> &Seen,
                            LLMCallEvent &E, std::vector<Variant> &Out) {
  E.Model = R.Model.empty() ? E.Model : R.Model;
  E.RequestHash = R.RequestHash;
  E.Usage = R.Usage;
  E.Attempts = R.Attempts;
  E.Replayed = R.Replayed;
  std::vector<std::string> &Reasons = Unusable[variantHash(S.CurrentText)];
  for (const ChatChoice &C : R.Choices) {
    std::string Reason;
    auto Text = spliceReply(C.Content, S);
    if (!Text) {
      Reason = llvm::toString(Text.takeError());
    } else if (Seen.count(variantHash(*Text))) {
      Reason = "the code is the same as an earlier proposal";
    } else {
      Reason = parseError(*Text);
      // Asked about again, it is a repeat, not a new parse.
      Seen.insert(variantHash(*Text));
    }
    if (C.FinishReason == "length" && !Reason.empty() &&
        !llvm::StringRef(Reason).contains("cut off"))
      Reason += " (the reply was cut off at the token limit)";
    if (!Reason.empty()) {
      E.Notes.push_back(Reason);
      Reasons.push_back(Reason);
      continue;
    }
    E.Notes.push_back("used");
    Variant V;
    V.Description =
        llvm::formatv("llm sample {0} of expansion {1} ({2})", I + 1,
                      Expansions, ideaOf(C.Content, S.CurrentText, *Text))
            .str();
    V.Text = std::move(*Text);
    V.Rules = {"llm"};
    Out.push_back(std::move(V));
  }
}

std::string LLMProposer::parseError(llvm::StringRef Text) {
  std::string Diags;
  llvm::raw_string_ostream DOS(Diags);
  auto P = parseFile(Command, File, Settings, DOS, Text);
  if (P)
    return "";
  // Clang's first error says more than that the parse failed.
  llvm::consumeError(P.takeError());
  return "the code does not compile: " + firstError(DOS.str(), File);
}

llvm::Expected<std::vector<ChatMessage>> maxcode::renderSimplifyPrompt(
    PromptLibrary &Prompts, const ProposerPromptInput &In,
    const Observation &Obs, std::optional<Target> *CurrentOut) {
  const Target &OT = Obs.OriginalTarget;
  const PromptFacts &Facts = In.Facts;
  std::string Diags;
  llvm::raw_string_ostream DOS(Diags);
  auto Parsed =
      parseTargets(In.Command, In.File, In.Settings, DOS,
                   llvm::StringRef(Obs.CurrentText), ParseErrors::Fail);
  if (!Parsed)
    return Parsed.takeError();
  if (CurrentOut)
    if (const Target *T = Parsed->find(OT))
      *CurrentOut = *T;
  std::string Standard = languageStandard(Parsed->Host);
  std::string Diff = changes(Obs.OriginalText, Obs.CurrentText);
  unsigned Changed = 0;
  for (const DiffHunk &H : diffLines(Obs.OriginalText, Obs.CurrentText))
    Changed += H.BeforeCount + H.AfterCount;
  double Speedup = Obs.Feedback ? Obs.Feedback->Ratio : Obs.IncumbentReward;
  std::map<std::string, std::string> Values{
      {"language", languageOf(OT.Kind).str()},
      {"target_name", OT.Name},
      {"target_kind", targetKindName(OT.Kind).str()},
      {"speedup", formatReward(Speedup)},
      {"measure", Facts.Measure},
      {"build", Facts.Build},
      {"standard", Standard},
      {"original_code", targetText(Obs.OriginalText, OT)},
      {"winner_diff", llvm::StringRef(Diff).rtrim().str()},
      {"changed_lines", std::to_string(Changed)}};
  return Prompts.renderMessages("simplify", Values);
}

llvm::Expected<std::optional<Variant>>
LLMProposer::simplify(const Observation &Obs) {
  const Target &OT = Obs.OriginalTarget;
  std::optional<Target> Current;
  auto Messages = renderSimplifyPrompt(
      Prompts, {Command, File, Settings, Facts, {}}, Obs, &Current);
  if (!Messages)
    return Messages.takeError();
  std::vector<Sample> Samples =
      requestSamples(*Messages, 1, Seed + 7777777 + uint64_t(Expansions));
  LLMCallEvent E;
  E.Role = "simplify";
  E.Model = Client.options().Model;
  if (!Samples[0].Response) {
    E.Error = Samples[0].Error;
    Sink(E);
    return llvm::createStringError(E.Error);
  }
  const ChatResponse &R = *Samples[0].Response;
  E.Model = R.Model.empty() ? E.Model : R.Model;
  E.RequestHash = R.RequestHash;
  E.Usage = R.Usage;
  E.Attempts = R.Attempts;
  E.Replayed = R.Replayed;
  // The plainer code replaces the winner's target, helpers and all: the
  // declaration simplifier then takes out what it no longer calls.
  ReplySplice S;
  S.CurrentText = Obs.CurrentText;
  S.T = Current;
  S.TargetName = OT.Name;
  S.Scope = Scope;
  llvm::StringRef Reply = R.Choices.front().Content;
  auto Text = spliceReply(Reply, S);
  std::string Why = Text ? parseError(*Text) : llvm::toString(Text.takeError());
  if (!Why.empty()) {
    E.Notes.push_back(Why);
    Sink(E);
    return llvm::createStringError(Why);
  }
  E.Notes.push_back("used");
  Sink(E);
  Variant V;
  V.Text = std::move(*Text);
  V.Rules = {"llm"};
  V.Description = "the model's plainer form (" +
                  ideaOf(Reply, Obs.CurrentText, V.Text) + ")";
  return V;
}

//===----------------------------------------------------------------------===//
// LLMCritic
//===----------------------------------------------------------------------===//

LLMCritic::LLMCritic(LLMClient &Client, PromptLibrary &Prompts,
                     Critic *Fallback, PromptFacts Facts, LLMCallSink Sink)
    : Client(Client), Prompts(Prompts), Fallback(Fallback),
      Facts(std::move(Facts)), Sink(std::move(Sink)) {}

llvm::Expected<std::vector<ChatMessage>> maxcode::renderCriticPrompt(
    PromptLibrary &Prompts, const PromptFacts &Facts, const EvalResult &R,
    const Variant &V, const Observation &Parent, llvm::StringRef Findings) {
  const Target &T = Parent.OriginalTarget;
  std::string Feedback = describeFeedback(R, V.Text);
  if (!Findings.empty())
    Feedback += "\n\nAutomatic findings:\n" + Findings.str();
  std::map<std::string, std::string> Values{
      {"language", languageOf(T.Kind).str()},
      {"target_name", T.Name},
      {"target_kind", targetKindName(T.Kind).str()},
      {"build", Facts.Build},
      {"measure", Facts.Measure},
      {"target_signature", T.Signature},
      {"original_code", targetText(Parent.OriginalText, T)},
      {"variant_code", changes(Parent.OriginalText, V.Text)},
      {"feedback", llvm::StringRef(Feedback).rtrim().str()}};
  return Prompts.renderMessages("critic", Values);
}

Critique LLMCritic::critique(const EvalResult &R, const Variant &V,
                             const Observation &Parent) {
  Critique Base;
  if (Fallback)
    Base = Fallback->critique(R, V, Parent);
  LLMCallEvent E;
  E.Role = "critic";
  E.Model = Client.options().Model;
  auto Messages = renderCriticPrompt(Prompts, Facts, R, V, Parent, Base.Text);
  if (!Messages) {
    E.Error = llvm::toString(Messages.takeError());
    Sink(E);
    return Base;
  }
  ChatRequest Req;
  Req.Messages = std::move(*Messages);
  auto Resp = Client.complete(Req);
  if (!Resp) {
    E.Error = llvm::toString(Resp.takeError());
    Sink(E);
    return Base;
  }
  E.Model = Resp->Model.empty() ? E.Model : Resp->Model;
  E.RequestHash = Resp->RequestHash;
  E.Usage = Resp->Usage;
  E.Attempts = Resp->Attempts;
  E.Replayed = Resp->Replayed;
  E.Notes.push_back("used");
  Sink(E);
  Critique C = Base;
  C.Text = llvm::StringRef(Resp->Choices.front().Content).trim().str();
  return C;
}

//===----------------------------------------------------------------------===//
// LLMRTG
//===----------------------------------------------------------------------===//

llvm::ArrayRef<RTGBin> maxcode::rtgBins() {
  static const RTGBin Bins[] = {
      {"fails", "does not build, crashes, times out or gives wrong output",
       0.01},
      {"slower", "correct but more than 5% slower than the original", 0.8},
      {"same", "correct, within 5% of the original", 1.0},
      {"faster", "correct, 1.05x to 1.5x as fast as the original", 1.25},
      {"much-faster", "correct, 1.5x to 3x as fast as the original", 2.0},
      {"dramatic", "correct, more than 3x as fast as the original", 4.0}};
  return Bins;
}

const RTGBin &maxcode::rtgBinOf(double Reward, bool Ok) {
  llvm::ArrayRef<RTGBin> B = rtgBins();
  if (!Ok)
    return B[0];
  if (Reward < 0.95)
    return B[1];
  if (Reward < 1.05)
    return B[2];
  if (Reward < 1.5)
    return B[3];
  if (Reward < 3)
    return B[4];
  return B[5];
}

const RTGBin *maxcode::parseRTGBin(llvm::StringRef Reply) {
  // The last BIN: line wins, as models sometimes think aloud first.
  const RTGBin *Found = nullptr;
  for (llvm::StringRef Line : llvm::split(Reply, '\n')) {
    Line = Line.trim().trim("*`");
    if (!Line.consume_front_insensitive("bin:"))
      continue;
    llvm::StringRef Label = Line.trim().trim("*`<>\"'.").trim();
    for (const RTGBin &B : rtgBins())
      if (Label.equals_insensitive(B.Label))
        Found = &B;
  }
  return Found;
}

LLMRTG::LLMRTG(LLMClient &Client, PromptLibrary &Prompts,
               std::vector<RTGShot> Shots, LLMCallSink Sink)
    : Client(Client), Prompts(Prompts), Shots(std::move(Shots)),
      Sink(std::move(Sink)) {}

llvm::Expected<std::vector<ChatMessage>>
maxcode::renderRTGPrompt(PromptLibrary &Prompts, const Observation &Obs,
                         const Variant &Candidate,
                         llvm::ArrayRef<RTGShot> Shots) {
  const Target &T = Obs.OriginalTarget;
  std::string Examples;
  auto AddShot = [&](llvm::StringRef Description, llvm::StringRef Status,
                     double Reward) {
    Examples +=
        llvm::formatv("- {0}: {1}, speedup {2:f3} -> BIN: {3}\n", Description,
                      Status, Reward, rtgBinOf(Reward, Status == "ok").Label)
            .str();
  };
  for (const RTGShot &S : Shots)
    AddShot(S.Description, S.Status, S.Reward);
  for (const Attempt &A : Obs.History)
    AddShot(A.Description, evalStatusName(A.Status), A.Reward);
  if (Examples.empty())
    Examples = "(none yet)";
  std::string Bins;
  for (const RTGBin &B : rtgBins())
    Bins += ("- " + B.Label + ": " + B.Meaning + "\n").str();

  std::map<std::string, std::string> Values{
      {"language", languageOf(T.Kind).str()},
      {"target_name", T.Name},
      {"target_kind", targetKindName(T.Kind).str()},
      {"target_signature", T.Signature},
      {"original_code", targetText(Obs.OriginalText, T)},
      {"current_code", changes(Obs.OriginalText, Obs.CurrentText)},
      {"variant_code", changes(Obs.OriginalText, Candidate.Text)},
      {"best_speedup", formatReward(Obs.IncumbentReward)},
      {"u", formatReward(Obs.U)},
      {"examples", llvm::StringRef(Examples).rtrim().str()},
      {"bins", llvm::StringRef(Bins).rtrim().str()}};
  return Prompts.renderMessages("rtg", Values);
}

std::vector<double> LLMRTG::score(const Observation &Obs,
                                  llvm::ArrayRef<Variant> Candidates) {
  const RTGBin &Neutral = rtgBins()[2];
  std::vector<double> Scores(Candidates.size(), Neutral.Score);
  std::vector<std::string> Errors(Candidates.size());
  std::vector<std::optional<ChatResponse>> Responses(Candidates.size());
  // One thread per request, as for the proposals.
  llvm::DefaultThreadPool Pool(
      llvm::hardware_concurrency(std::max<size_t>(1, Candidates.size())));
  for (size_t I = 0; I < Candidates.size(); ++I) {
    auto Messages = renderRTGPrompt(Prompts, Obs, Candidates[I], Shots);
    if (!Messages) {
      Errors[I] = llvm::toString(Messages.takeError());
      continue;
    }
    Pool.async([&, I, M = std::move(*Messages)]() mutable {
      ChatRequest R;
      R.Messages = std::move(M);
      R.Temperature = 0;
      R.MaxTokens = 64;
      auto Resp = Client.complete(R);
      if (Resp)
        Responses[I] = std::move(*Resp);
      else
        Errors[I] = llvm::toString(Resp.takeError());
    });
  }
  Pool.wait();
  for (size_t I = 0; I < Candidates.size(); ++I) {
    LLMCallEvent E;
    E.Role = "rtg";
    E.Model = Client.options().Model;
    if (!Responses[I]) {
      E.Error = Errors[I];
      Sink(E);
      continue;
    }
    const ChatResponse &R = *Responses[I];
    E.Model = R.Model.empty() ? E.Model : R.Model;
    E.RequestHash = R.RequestHash;
    E.Usage = R.Usage;
    E.Attempts = R.Attempts;
    E.Replayed = R.Replayed;
    if (const RTGBin *B = parseRTGBin(R.Choices.front().Content)) {
      Scores[I] = B->Score;
      E.Notes.push_back(("bin " + B->Label).str());
    } else {
      E.Notes.push_back("the reply names no bin; scored as 'same'");
    }
    Sink(E);
  }
  return Scores;
}
