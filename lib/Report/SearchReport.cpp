//===-- SearchReport.cpp - The report of a search -------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The HTML page is one file a browser opens with no network: styles inline,
// the chart in inline SVG, no script and no external reference at all, so it
// can be attached to a bug report or archived with a benchmark run.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Report/SearchReport.h"
#include "maxcode/Report/WinnerReview.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <map>

using namespace maxcode;

static llvm::json::Array strings(const std::vector<std::string> &V) {
  return llvm::json::Array(V);
}

void maxcode::printSearchReportJSON(const SearchReport &R,
                                    llvm::raw_ostream &OS) {
  llvm::json::Array Targets;
  for (const ReportTarget &T : R.Targets) {
    llvm::json::Object O{{"name", T.Name},
                         {"kind", T.Kind},
                         {"line", T.Line},
                         {"end_line", T.EndLine},
                         {"searched", T.Searched}};
    O["share"] = T.Share ? llvm::json::Value(*T.Share) : nullptr;
    Targets.push_back(std::move(O));
  }
  llvm::json::Array Nodes;
  for (const ReportNode &N : R.Nodes) {
    llvm::json::Object O{{"id", N.Id},
                         {"depth", N.Depth},
                         {"status", N.Status},
                         {"reason", N.Reason},
                         {"reward", N.Reward},
                         {"ratio", N.Ratio},
                         {"raw_ratio", N.RawRatio},
                         {"noise", N.Noise},
                         {"description", N.Description},
                         {"rules", strings(N.Rules)},
                         {"critique_tags", strings(N.CritiqueTags)},
                         {"from_store", N.FromStore}};
    O["parent"] = N.Parent >= 0 ? llvm::json::Value(N.Parent) : nullptr;
    Nodes.push_back(std::move(O));
  }
  llvm::json::Value Winner = nullptr;
  if (R.Winner >= 0) {
    llvm::json::Object W{{"node", R.Winner}, {"verified", R.Improved}};
    if (R.Verification) {
      const ReportVerification &V = *R.Verification;
      W["verification"] = llvm::json::Object{{"status", V.Status},
                                             {"verdict", V.Verdict},
                                             {"reason", V.Reason},
                                             {"speedup", V.Ratio},
                                             {"raw_ratio", V.RawRatio},
                                             {"spread", V.Spread},
                                             {"noise", V.Noise},
                                             {"repetitions", V.Repetitions},
                                             {"baseline_cost", V.BaselineCost},
                                             {"variant_cost", V.VariantCost},
                                             {"cost_unit", V.CostUnit}};
    } else {
      W["verification"] = nullptr;
    }
    W["diff"] = R.Diff;
    addWinnerReviewJSON({R.Size, R.Tidied, R.Sanitizer, R.Review}, W);
    Winner = std::move(W);
  }
  llvm::json::Object Doc{
      {"version", SearchReportVersion},
      {"kind", "clang-maxcode-report"},
      {"file", R.File},
      {"measure", R.Measure},
      {"sandbox", R.Sandbox},
      {"integrity", R.Integrity},
      {"config", llvm::json::Object{{"policy", R.Policy},
                                    {"critic", R.Critic},
                                    {"rtg", R.RTG},
                                    {"strategy", R.Strategy},
                                    {"budget", R.Budget}}},
      {"store", R.StorePath},
      {"targets", std::move(Targets)},
      {"baseline", llvm::json::Object{{"cost", R.BaselineCost},
                                      {"cost_unit", R.CostUnit},
                                      {"tests", R.Tests}}},
      {"nodes", std::move(Nodes)},
      {"search", llvm::json::Object{{"evaluations", R.Evaluations},
                                    {"from_store", R.FromStore},
                                    {"stop_reason", R.StopReason},
                                    {"seconds", R.Seconds}}},
      {"winner", std::move(Winner)},
      {"outcome", R.Improved ? "improved" : "no-improvement"},
      {"output", R.Output},
      {"llm",
       llvm::json::Object{{"calls", int64_t(R.LLMCalls)},
                          {"prompt_tokens", int64_t(R.PromptTokens)},
                          {"completion_tokens", int64_t(R.CompletionTokens)}}}};
  Doc["run"] = R.Run >= 0 ? llvm::json::Value(R.Run) : nullptr;
  if (R.Evidence)
    Doc["cpu_evidence"] = toJSON(*R.Evidence);
  OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(Doc))) << "\n";
}

/// \p S with the five characters that matter in HTML text and attribute
/// values escaped.
static std::string escape(llvm::StringRef S) {
  std::string Out;
  Out.reserve(S.size());
  for (char C : S) {
    switch (C) {
    case '&':
      Out += "&amp;";
      break;
    case '<':
      Out += "&lt;";
      break;
    case '>':
      Out += "&gt;";
      break;
    case '"':
      Out += "&quot;";
      break;
    case '\'':
      Out += "&#39;";
      break;
    default:
      Out += C;
    }
  }
  return Out;
}

/// The best verified-ok speedup after each evaluation, the baseline (1.0)
/// before any: what the chart plots.
static std::vector<double> bestSoFar(const SearchReport &R) {
  std::vector<double> Best;
  double B = 1.0;
  for (const ReportNode &N : R.Nodes) {
    if (N.Parent < 0)
      continue;
    if (N.Status == "ok")
      B = std::max(B, N.Ratio);
    Best.push_back(B);
  }
  return Best;
}

static void printChart(const SearchReport &R, llvm::raw_ostream &OS) {
  std::vector<double> Best = bestSoFar(R);
  const double W = 640, H = 260, Left = 56, Right = 16, Top = 16, Bottom = 40;
  double YMax = 1.0;
  for (double B : Best)
    YMax = std::max(YMax, B);
  YMax *= 1.1;
  size_t N = std::max<size_t>(Best.size(), 1);
  auto X = [&](size_t I) { return Left + (W - Left - Right) * I / N; };
  auto Y = [&](double V) { return Top + (H - Top - Bottom) * (1 - V / YMax); };

  OS << llvm::formatv("<svg id=\"chart\" role=\"img\" width=\"{0}\" "
                      "height=\"{1}\" viewBox=\"0 0 {0} {1}\">\n",
                      W, H);
  OS << "<title>Best speedup against evaluations</title>\n";
  // Axes, the baseline at 1.0, and a few labelled ticks.
  OS << llvm::formatv("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" "
                      "y2=\"{1}\"/>\n",
                      Left, H - Bottom, W - Right);
  OS << llvm::formatv("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" "
                      "y2=\"{2}\"/>\n",
                      Left, Top, H - Bottom);
  OS << llvm::formatv("<line class=\"baseline\" x1=\"{0}\" y1=\"{1:f1}\" "
                      "x2=\"{2}\" y2=\"{1:f1}\"/>\n",
                      Left, Y(1.0), W - Right);
  for (int I = 0; I <= 4; ++I) {
    double V = YMax * I / 4;
    OS << llvm::formatv("<text class=\"tick\" x=\"{0}\" y=\"{1:f1}\" "
                        "text-anchor=\"end\">{2:f2}x</text>\n",
                        Left - 6, Y(V) + 4, V);
  }
  OS << llvm::formatv("<text class=\"tick\" x=\"{0}\" y=\"{1}\" "
                      "text-anchor=\"middle\">evaluations ({2})</text>\n",
                      (Left + W - Right) / 2, H - 8, Best.size());
  // A step line: the best speedup holds until an evaluation beats it.
  std::string Points = llvm::formatv("{0:f1},{1:f1}", X(0), Y(1.0));
  double Prev = 1.0;
  for (size_t I = 0; I < Best.size(); ++I) {
    Points += llvm::formatv(" {0:f1},{1:f1}", X(I + 1), Y(Prev));
    Points += llvm::formatv(" {0:f1},{1:f1}", X(I + 1), Y(Best[I]));
    Prev = Best[I];
  }
  OS << "<polyline class=\"best\" points=\"" << Points << "\"/>\n";
  for (size_t I = 0; I < Best.size(); ++I)
    OS << llvm::formatv("<circle cx=\"{0:f1}\" cy=\"{1:f1}\" r=\"3\">"
                        "<title>evaluation {2}: best {3:f3}x</title>"
                        "</circle>\n",
                        X(I + 1), Y(Best[I]), I + 1, Best[I]);
  OS << "</svg>\n";
}

static std::string nodeLabel(const ReportNode &N) {
  if (N.Parent < 0)
    return "#0 baseline (1.000x)";
  std::string Label = llvm::formatv("#{0} {1}", N.Id, N.Status);
  if (N.Status == "ok")
    Label += llvm::formatv(" {0:f3}x", N.Ratio);
  if (!N.Description.empty())
    Label += ": " + N.Description;
  return Label;
}

static void printTree(const SearchReport &R, llvm::raw_ostream &OS) {
  std::map<int, std::vector<const ReportNode *>> Children;
  for (const ReportNode &N : R.Nodes)
    Children[N.Parent].push_back(&N);
  // Depth-first with an explicit stack: a deep refine chain must not
  // recurse once per node.
  struct Frame {
    const ReportNode *N;
    bool Open;
  };
  std::vector<Frame> Stack;
  OS << "<ul class=\"tree\">\n";
  const auto &Roots = Children[-1];
  for (auto It = Roots.rbegin(); It != Roots.rend(); ++It)
    Stack.push_back({*It, true});
  while (!Stack.empty()) {
    Frame F = Stack.back();
    Stack.pop_back();
    if (!F.Open) {
      OS << "</ul></li>\n";
      continue;
    }
    const ReportNode &N = *F.N;
    std::string Class = N.Status;
    if (int(N.Id) == R.Winner)
      Class += " winner";
    OS << llvm::formatv("<li class=\"node {0}\" id=\"node-{1}\">", Class, N.Id)
       << escape(nodeLabel(N));
    const auto &Kids = Children[int(N.Id)];
    if (Kids.empty()) {
      OS << "</li>\n";
      continue;
    }
    OS << "\n<ul>\n";
    Stack.push_back({&N, false});
    for (auto It = Kids.rbegin(); It != Kids.rend(); ++It)
      Stack.push_back({*It, true});
  }
  OS << "</ul>\n";
}

static void printDiff(llvm::StringRef Diff, llvm::raw_ostream &OS) {
  OS << "<pre class=\"diff\">";
  llvm::SmallVector<llvm::StringRef, 64> Lines;
  Diff.split(Lines, '\n');
  if (!Lines.empty() && Lines.back().empty())
    Lines.pop_back();
  for (llvm::StringRef L : Lines) {
    const char *Class = L.starts_with("+++") || L.starts_with("---") ? "file"
                        : L.starts_with("@@")                        ? "hunk"
                        : L.starts_with("+")                         ? "add"
                        : L.starts_with("-")                         ? "del"
                                                                     : "ctx";
    OS << "<span class=\"" << Class << "\">" << escape(L) << "</span>\n";
  }
  OS << "</pre>\n";
}

static void printTable(const SearchReport &R, llvm::raw_ostream &OS) {
  OS << "<table id=\"evaluations-table\">\n<thead><tr><th>node</th>"
        "<th>parent</th><th>depth</th><th>status</th><th>speedup</th>"
        "<th>reward</th><th>rules</th><th>critique</th><th>description</th>"
        "</tr></thead>\n<tbody>\n";
  for (const ReportNode &N : R.Nodes) {
    if (N.Parent < 0)
      continue;
    std::string Speedup = N.Status == "ok"
                              ? std::string(llvm::formatv("{0:f3}x", N.Ratio))
                              : std::string("-");
    OS << llvm::formatv("<tr class=\"{0}\"><td>{1}</td><td>{2}</td>"
                        "<td>{3}</td><td>{4}</td><td>{5}</td>"
                        "<td>{6:f3}</td><td>{7}</td><td>{8}</td>"
                        "<td>{9}</td></tr>\n",
                        N.Status, N.Id, N.Parent, N.Depth, escape(N.Status),
                        Speedup, N.Reward, escape(llvm::join(N.Rules, ", ")),
                        escape(llvm::join(N.CritiqueTags, ", ")),
                        escape(N.Description));
  }
  OS << "</tbody>\n</table>\n";
}

void maxcode::printSearchReportHTML(const SearchReport &R,
                                    llvm::raw_ostream &OS) {
  std::string Target;
  for (const ReportTarget &T : R.Targets)
    if (T.Searched)
      Target = T.Name;
  std::string Title = "clang-maxcode: " + Target + " in " +
                      llvm::sys::path::filename(R.File).str();
  OS << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
        "charset=\"utf-8\">\n<title>"
     << escape(Title) << "</title>\n<style>\n"
     << "body{font-family:sans-serif;margin:2em;max-width:72em;color:#222}\n"
        "pre.diff{background:#f6f8fa;padding:1em;overflow-x:auto}\n"
        ".add{color:#116329;background:#dafbe1}.del{color:#82071e;"
        "background:#ffebe9}.hunk{color:#6639ba}.file{font-weight:bold}\n"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;"
        "padding:.2em .5em;text-align:left}\n"
        "svg .axis{stroke:#444}svg .baseline{stroke:#aaa;"
        "stroke-dasharray:4 4}svg .best{fill:none;stroke:#0969da;"
        "stroke-width:2}svg circle{fill:#0969da}svg .tick{font-size:11px}\n"
        "ul.tree li.winner{font-weight:bold}ul.tree li.ok{color:#116329}\n"
        "ul.tree li.build-error,ul.tree li.crash,ul.tree li.timeout,"
        "ul.tree li.wrong-output,ul.tree li.rejected{color:#82071e}\n"
     << "</style>\n</head>\n<body>\n";
  OS << "<h1>" << escape(Title) << "</h1>\n<section id=\"summary\">\n<p>";
  if (R.Improved && R.Verification)
    OS << escape(llvm::formatv("Verified speedup {0:f3}x (noise {1:f1}%, {2})",
                               R.Verification->Ratio,
                               R.Verification->Noise * 100, R.Measure)
                     .str());
  else
    OS << "No verified improvement found; nothing changed.";
  // What the figure falls short of, in the verification's words.
  if (R.Verification && !R.Verification->Verdict.empty())
    OS << " " << escape(R.Verification->Reason);
  OS << "</p>\n<p>"
     << escape(llvm::formatv("{0} evaluations ({1} from the store) of a "
                             "budget of {2}, {3:f1} s; the {4} policy, {5} "
                             "strategy; stopped on {6}.",
                             R.Evaluations, R.FromStore, R.Budget, R.Seconds,
                             R.Policy, R.Strategy, R.StopReason)
                   .str())
     << "</p>\n";
  if (R.LLMCalls)
    OS << "<p>"
       << escape(llvm::formatv("LLM: {0} calls, {1} prompt and {2} "
                               "completion tokens.",
                               R.LLMCalls, R.PromptTokens, R.CompletionTokens)
                     .str())
       << "</p>\n";
  OS << "</section>\n";
  OS << "<section id=\"progress\">\n<h2>Best speedup against "
        "evaluations</h2>\n";
  printChart(R, OS);
  OS << "</section>\n<section id=\"tree\">\n<h2>Search tree</h2>\n";
  printTree(R, OS);
  OS << "</section>\n<section id=\"diff\">\n<h2>Winning diff</h2>\n";
  if (R.Diff.empty())
    OS << "<p>No change.</p>\n";
  else
    printDiff(R.Diff, OS);
  // What a reviewer should know, as the text summary says it.
  std::string Review;
  llvm::raw_string_ostream RS(Review);
  printWinnerReview({R.Size, R.Tidied, R.Sanitizer, R.Review}, RS);
  if (!Review.empty()) {
    OS << "<h3>Review</h3>\n<ul class=\"review\">\n";
    for (llvm::StringRef L : llvm::split(llvm::StringRef(Review).rtrim(), '\n'))
      OS << "<li>" << escape(L.trim()) << "</li>\n";
    OS << "</ul>\n";
  }
  OS << "</section>\n<section id=\"evaluations\">\n<h2>Evaluations</h2>\n";
  printTable(R, OS);
  OS << "</section>\n</body>\n</html>\n";
}

llvm::Error maxcode::writeSearchReport(const SearchReport &R,
                                       llvm::StringRef Path) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_Text);
  if (EC)
    return llvm::createStringError(EC, "cannot write the report '" + Path +
                                           "': " + EC.message());
  llvm::StringRef Ext = llvm::sys::path::extension(Path);
  if (Ext.equals_insensitive(".html") || Ext.equals_insensitive(".htm"))
    printSearchReportHTML(R, OS);
  else
    printSearchReportJSON(R, OS);
  OS.close();
  if (OS.has_error()) {
    EC = OS.error();
    OS.clear_error();
    return llvm::createStringError(EC, "cannot write the report '" + Path +
                                           "': " + EC.message());
  }
  return llvm::Error::success();
}
