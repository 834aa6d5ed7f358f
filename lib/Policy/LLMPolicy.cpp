//===-- LLMPolicy.cpp - Proposer, critic and RTG by LLM -------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Policy/LLMPolicy.h"
#include "maxcode/Frontend/Discovery.h"
#include "maxcode/LLM/ReplyParsing.h"
#include "maxcode/Support/Debug.h"
#include "maxcode/Support/Diff.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
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

  // Include lines go with the file's own; the rest replaces the target, so
  // that helpers declared in the block come right before it.
  std::vector<std::string> Includes;
  std::string Body;
  for (llvm::StringRef Line : llvm::split(Block->Code, '\n')) {
    if (isIncludeLine(Line))
      Includes.push_back(Line.trim().str());
    else
      Body += (Line + "\n").str();
  }
  Body = llvm::StringRef(Body).trim().str();
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

std::string maxcode::describeFeedback(const std::optional<EvalResult> &R) {
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
    OS << llvm::formatv("Speedup over the original: {0:f3}x ({1} {2} against "
                        "{3} {2}; noise {4:f1}%).\n",
                        R->Ratio, R->VariantCost, R->CostUnit, R->BaselineCost,
                        R->Noise * 100);
    for (size_t I = 0; I < R->HotLines.size() && I < 5; ++I)
      OS << llvm::formatv("Hot line {0}: {1:f1}% of the cost.\n",
                          R->HotLines[I].Line, R->HotLines[I].Share * 100);
    for (const auto &[Name, Value] : R->Metrics)
      OS << llvm::formatv("Metric {0}: {1}\n", Name, Value);
  }
  for (const std::string &N : R->Notes)
    OS << "Note: " << N << "\n";
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

static std::string formatReward(double R) {
  return llvm::formatv("{0:f3}", R).str();
}

static std::string historyText(llvm::ArrayRef<Attempt> History) {
  if (History.empty())
    return "(none yet)";
  std::string S;
  for (const Attempt &A : History)
    S += llvm::formatv("- {0}: {1}, reward {2:f3}\n", A.Description,
                       evalStatusName(A.Status), A.Reward)
             .str();
  return llvm::StringRef(S).rtrim().str();
}

/// The changes of \p After against \p Before, for prompts that judge them.
static std::string changes(llvm::StringRef Before, llvm::StringRef After) {
  if (Before == After)
    return "(unchanged)";
  return unifiedDiff(Before, After, "a/original", "b/variant");
}

//===----------------------------------------------------------------------===//
// LLMProposer
//===----------------------------------------------------------------------===//

LLMProposer::LLMProposer(LLMClient &Client, PromptLibrary &Prompts,
                         clang::tooling::CompileCommand Command,
                         std::string File, ParseSettings Settings,
                         EditScope Scope, uint64_t Seed, LLMCallSink Sink)
    : Client(Client), Prompts(Prompts), Command(std::move(Command)),
      File(std::move(File)), Settings(std::move(Settings)), Scope(Scope),
      Seed(Seed), Sink(std::move(Sink)) {}

llvm::Expected<std::map<std::string, std::string>>
LLMProposer::promptValues(const Observation &Obs,
                          std::optional<Target> &Current) {
  const Target &OT = Obs.OriginalTarget;
  std::string Declarations = "(none found)";
  std::string Diags;
  llvm::raw_string_ostream DOS(Diags);
  auto Parsed =
      parseTargets(Command, File, Settings, DOS,
                   llvm::StringRef(Obs.CurrentText), ParseErrors::Fail);
  if (Parsed) {
    if (const Target *T = Parsed->find(OT.Name))
      Current = *T;
    if (Current) {
      std::string D = declarationsUsedBy(Parsed->parseOf(*Current), *Current);
      if (!D.empty())
        Declarations = std::move(D);
    }
  } else {
    llvm::Error E = Parsed.takeError();
    MAXCODE_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": the prompt shows the whole "
                               << "current text, which does not parse: "
                               << llvm::toString(std::move(E)) << "\n");
    llvm::consumeError(std::move(E));
  }

  std::string Feedback = describeFeedback(Obs.Feedback);
  if (!Unusable.empty()) {
    Feedback += "\n\nRecent replies that could not be used:\n";
    for (const std::string &U : Unusable)
      Feedback += "- " + U + "\n";
  }
  std::string Critique;
  size_t First = Obs.Critiques.size() > 3 ? Obs.Critiques.size() - 3 : 0;
  for (size_t I = First; I < Obs.Critiques.size(); ++I)
    if (!Obs.Critiques[I].Text.empty())
      Critique += Obs.Critiques[I].Text + "\n\n";
  if (Critique.empty())
    Critique = "(none yet)";

  std::map<std::string, std::string> V{
      {"target_name", OT.Name},
      {"target_kind", targetKindName(OT.Kind).str()},
      {"target_signature", OT.Signature},
      {"original_code", targetText(Obs.OriginalText, OT)},
      {"current_code",
       Current ? targetText(Obs.CurrentText, *Current) : Obs.CurrentText},
      {"declarations", Declarations},
      {"feedback", Feedback},
      {"critique", llvm::StringRef(Critique).rtrim().str()},
      {"best_speedup", formatReward(Obs.IncumbentReward)},
      {"u", formatReward(Obs.U)},
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
  return V;
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
  // A second round, with the reasons of the first shown to the model, when
  // the first gave nothing usable.
  for (unsigned Round = 0; Round < 2 && Out.empty(); ++Round) {
    if (Round > 0 && !AnyAnswered)
      break;
    Current.reset();
    auto Values = promptValues(Obs, Current);
    if (!Values)
      return Values.takeError();
    llvm::StringRef Template =
        Obs.OriginalTarget.Kind == TargetKind::CpuFunction ? "proposer-cpp"
                                                           : "proposer-cuda";
    auto Messages = Prompts.renderMessages(Template, *Values);
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
    // Only the most recent reasons are worth the model's attention.
    if (Unusable.size() > 4)
      Unusable.erase(Unusable.begin(), Unusable.end() - 4);
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

void LLMProposer::useSample(const ChatResponse &R, unsigned I,
                            const ReplySplice &S, llvm::StringSet<> &Seen,
                            LLMCallEvent &E, std::vector<Variant> &Out) {
  E.Model = R.Model.empty() ? E.Model : R.Model;
  E.RequestHash = R.RequestHash;
  E.Usage = R.Usage;
  E.Attempts = R.Attempts;
  E.Replayed = R.Replayed;
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
    if (C.FinishReason == "length" && !Reason.empty())
      Reason += " (the reply was cut off at the token limit)";
    if (!Reason.empty()) {
      E.Notes.push_back(Reason);
      Unusable.push_back(Reason);
      continue;
    }
    E.Notes.push_back("used");
    Variant V;
    V.Text = std::move(*Text);
    V.Description =
        llvm::formatv("llm sample {0} of expansion {1}", I + 1, Expansions)
            .str();
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

//===----------------------------------------------------------------------===//
// LLMCritic
//===----------------------------------------------------------------------===//

LLMCritic::LLMCritic(LLMClient &Client, PromptLibrary &Prompts,
                     Critic *Fallback, LLMCallSink Sink)
    : Client(Client), Prompts(Prompts), Fallback(Fallback),
      Sink(std::move(Sink)) {}

Critique LLMCritic::critique(const EvalResult &R, const Variant &V,
                             const Observation &Parent) {
  Critique Base;
  if (Fallback)
    Base = Fallback->critique(R, V, Parent);
  const Target &T = Parent.OriginalTarget;
  std::string Feedback = describeFeedback(R);
  if (!Base.Text.empty())
    Feedback += "\n\nAutomatic findings:\n" + Base.Text;
  std::map<std::string, std::string> Values{
      {"language", languageOf(T.Kind).str()},
      {"target_name", T.Name},
      {"target_kind", targetKindName(T.Kind).str()},
      {"target_signature", T.Signature},
      {"original_code", targetText(Parent.OriginalText, T)},
      {"variant_code", changes(Parent.OriginalText, V.Text)},
      {"feedback", Feedback}};
  LLMCallEvent E;
  E.Role = "critic";
  E.Model = Client.options().Model;
  auto Messages = Prompts.renderMessages("critic", Values);
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

std::vector<double> LLMRTG::score(const Observation &Obs,
                                  llvm::ArrayRef<Variant> Candidates) {
  const RTGBin &Neutral = rtgBins()[2];
  std::vector<double> Scores(Candidates.size(), Neutral.Score);
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

  std::vector<std::string> Errors(Candidates.size());
  std::vector<std::optional<ChatResponse>> Responses(Candidates.size());
  // One thread per request, as for the proposals.
  llvm::DefaultThreadPool Pool(
      llvm::hardware_concurrency(std::max<size_t>(1, Candidates.size())));
  for (size_t I = 0; I < Candidates.size(); ++I) {
    std::map<std::string, std::string> Values{
        {"language", languageOf(T.Kind).str()},
        {"target_name", T.Name},
        {"target_kind", targetKindName(T.Kind).str()},
        {"target_signature", T.Signature},
        {"original_code", targetText(Obs.OriginalText, T)},
        {"current_code", changes(Obs.OriginalText, Obs.CurrentText)},
        {"variant_code", changes(Obs.OriginalText, Candidates[I].Text)},
        {"best_speedup", formatReward(Obs.IncumbentReward)},
        {"u", formatReward(Obs.U)},
        {"examples", llvm::StringRef(Examples).rtrim().str()},
        {"bins", llvm::StringRef(Bins).rtrim().str()}};
    auto Messages = Prompts.renderMessages("rtg", Values);
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
