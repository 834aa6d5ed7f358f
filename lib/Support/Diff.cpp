//===-- Diff.cpp - Line diffs of two texts --------------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Myers' O(ND) shortest edit script ("An O(ND) Difference Algorithm and Its
// Variations", 1986) on lines, after the common prefix and suffix are cut off
// (variants usually change a few lines of a long file).
//
//===----------------------------------------------------------------------===//

#include "maxcode/Support/Diff.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

using namespace maxcode;

/// Lines with their newline, so that a last line without one differs from
/// the same line with one (and the diff says so).
static std::vector<llvm::StringRef> splitLines(llvm::StringRef Text) {
  std::vector<llvm::StringRef> Lines;
  while (!Text.empty()) {
    size_t NL = Text.find('\n');
    size_t Len = NL == llvm::StringRef::npos ? Text.size() : NL + 1;
    Lines.push_back(Text.take_front(Len));
    Text = Text.drop_front(Len);
  }
  return Lines;
}

namespace {
enum class EditKind { Equal, Delete, Insert };

/// The shortest edit script between \p A and \p B, as one kind per step.
std::vector<EditKind> shortestEditScript(llvm::ArrayRef<llvm::StringRef> A,
                                         llvm::ArrayRef<llvm::StringRef> B) {
  size_t Prefix = 0;
  while (Prefix < A.size() && Prefix < B.size() && A[Prefix] == B[Prefix])
    ++Prefix;
  size_t Suffix = 0;
  while (Suffix < A.size() - Prefix && Suffix < B.size() - Prefix &&
         A[A.size() - 1 - Suffix] == B[B.size() - 1 - Suffix])
    ++Suffix;
  llvm::ArrayRef<llvm::StringRef> MA =
      A.slice(Prefix, A.size() - Prefix - Suffix);
  llvm::ArrayRef<llvm::StringRef> MB =
      B.slice(Prefix, B.size() - Prefix - Suffix);

  std::vector<EditKind> Middle;
  long N = MA.size(), M = MB.size(), Max = N + M;
  if (N == 0 || M == 0) {
    Middle.assign(N, EditKind::Delete);
    Middle.insert(Middle.end(), M, EditKind::Insert);
  } else {
    // V[k + Max] is the furthest x on diagonal k; one copy per D for the
    // backtrack.
    std::vector<long> V(2 * Max + 2, 0);
    std::vector<std::vector<long>> Trace;
    long FinalD = -1;
    for (long D = 0; D <= Max && FinalD < 0; ++D) {
      Trace.push_back(V);
      for (long K = -D; K <= D; K += 2) {
        long X;
        if (K == -D || (K != D && V[K - 1 + Max] < V[K + 1 + Max]))
          X = V[K + 1 + Max];
        else
          X = V[K - 1 + Max] + 1;
        long Y = X - K;
        while (X < N && Y < M && MA[X] == MB[Y]) {
          ++X;
          ++Y;
        }
        V[K + Max] = X;
        if (X >= N && Y >= M) {
          FinalD = D;
          break;
        }
      }
    }
    // Walk back from (N, M), collecting steps in reverse.
    long X = N, Y = M;
    for (long D = FinalD; D > 0; --D) {
      const std::vector<long> &Prev = Trace[D];
      long K = X - Y;
      long PrevK;
      if (K == -D || (K != D && Prev[K - 1 + Max] < Prev[K + 1 + Max]))
        PrevK = K + 1;
      else
        PrevK = K - 1;
      long PrevX = Prev[PrevK + Max];
      long PrevY = PrevX - PrevK;
      while (X > PrevX && Y > PrevY) {
        Middle.push_back(EditKind::Equal);
        --X;
        --Y;
      }
      Middle.push_back(X == PrevX ? EditKind::Insert : EditKind::Delete);
      X = PrevX;
      Y = PrevY;
    }
    while (X > 0 && Y > 0) {
      Middle.push_back(EditKind::Equal);
      --X;
      --Y;
    }
    std::reverse(Middle.begin(), Middle.end());
  }

  std::vector<EditKind> Script(Prefix, EditKind::Equal);
  Script.insert(Script.end(), Middle.begin(), Middle.end());
  Script.insert(Script.end(), Suffix, EditKind::Equal);
  return Script;
}

std::vector<DiffHunk> hunksOf(llvm::ArrayRef<EditKind> Script) {
  std::vector<DiffHunk> Hunks;
  unsigned A = 0, B = 0; // Lines consumed so far.
  for (size_t I = 0; I < Script.size();) {
    if (Script[I] == EditKind::Equal) {
      ++A;
      ++B;
      ++I;
      continue;
    }
    DiffHunk H;
    H.BeforeStart = A + 1;
    H.AfterStart = B + 1;
    for (; I < Script.size() && Script[I] != EditKind::Equal; ++I) {
      if (Script[I] == EditKind::Delete) {
        ++H.BeforeCount;
        ++A;
      } else {
        ++H.AfterCount;
        ++B;
      }
    }
    // As diff -u numbers them: an empty side starts at the line before.
    if (H.BeforeCount == 0)
      --H.BeforeStart;
    if (H.AfterCount == 0)
      --H.AfterStart;
    Hunks.push_back(H);
  }
  return Hunks;
}
} // namespace

std::vector<DiffHunk> maxcode::diffLines(llvm::StringRef Before,
                                         llvm::StringRef After) {
  std::vector<llvm::StringRef> A = splitLines(Before), B = splitLines(After);
  return hunksOf(shortestEditScript(A, B));
}

std::string maxcode::applyHunks(llvm::StringRef Before, llvm::StringRef After,
                                llvm::ArrayRef<DiffHunk> Hunks,
                                const std::vector<bool> &Keep) {
  std::vector<llvm::StringRef> A = splitLines(Before), B = splitLines(After);
  std::string Out;
  size_t Next = 0; // The next line of Before not yet copied (0-based).
  for (size_t I = 0; I < Hunks.size(); ++I) {
    const DiffHunk &H = Hunks[I];
    // A hunk that deletes nothing starts after line BeforeStart.
    size_t From = H.BeforeCount ? H.BeforeStart - 1 : H.BeforeStart;
    for (; Next < From && Next < A.size(); ++Next)
      Out += A[Next];
    if (I < Keep.size() && Keep[I]) {
      size_t To = H.AfterCount ? H.AfterStart - 1 : 0;
      for (size_t L = To; L < To + H.AfterCount && L < B.size(); ++L)
        Out += B[L];
    } else {
      for (size_t L = From; L < From + H.BeforeCount && L < A.size(); ++L)
        Out += A[L];
    }
    Next = From + H.BeforeCount;
  }
  for (; Next < A.size(); ++Next)
    Out += A[Next];
  return Out;
}

static void printRange(llvm::raw_ostream &OS, unsigned Start, unsigned Count) {
  if (Count == 1) {
    OS << Start;
    return;
  }
  OS << Start << ',' << Count;
}

static void printLine(llvm::raw_ostream &OS, char Mark, llvm::StringRef Line) {
  OS << Mark << Line;
  if (!Line.ends_with("\n"))
    OS << "\n\\ No newline at end of file\n";
}

std::string maxcode::unifiedDiff(llvm::StringRef Before, llvm::StringRef After,
                                 llvm::StringRef BeforeName,
                                 llvm::StringRef AfterName, unsigned Context) {
  std::vector<llvm::StringRef> A = splitLines(Before), B = splitLines(After);
  std::vector<EditKind> Script = shortestEditScript(A, B);
  if (llvm::all_of(Script, [](EditKind K) { return K == EditKind::Equal; }))
    return "";

  // Position of each step in both files.
  std::vector<unsigned> PosA(Script.size() + 1), PosB(Script.size() + 1);
  for (size_t I = 0; I < Script.size(); ++I) {
    PosA[I + 1] = PosA[I] + (Script[I] != EditKind::Insert);
    PosB[I + 1] = PosB[I] + (Script[I] != EditKind::Delete);
  }

  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "--- " << BeforeName << "\n+++ " << AfterName << "\n";
  size_t I = 0;
  while (I < Script.size()) {
    // The next change, then every change within 2 * Context equal lines of
    // the previous one, form one hunk.
    while (I < Script.size() && Script[I] == EditKind::Equal)
      ++I;
    if (I == Script.size())
      break;
    size_t Begin = I >= Context ? I - Context : 0;
    size_t End = I;
    while (End < Script.size()) {
      while (End < Script.size() && Script[End] != EditKind::Equal)
        ++End;
      size_t Equal = End;
      while (Equal < Script.size() && Script[Equal] == EditKind::Equal)
        ++Equal;
      if (Equal == Script.size() || Equal - End > 2 * Context) {
        End = std::min(Script.size(), End + Context);
        break;
      }
      End = Equal;
    }
    unsigned CountA = PosA[End] - PosA[Begin], CountB = PosB[End] - PosB[Begin];
    OS << "@@ -";
    printRange(OS, CountA ? PosA[Begin] + 1 : PosA[Begin], CountA);
    OS << " +";
    printRange(OS, CountB ? PosB[Begin] + 1 : PosB[Begin], CountB);
    OS << " @@\n";
    for (size_t S = Begin; S < End; ++S) {
      switch (Script[S]) {
      case EditKind::Equal:
        printLine(OS, ' ', A[PosA[S]]);
        break;
      case EditKind::Delete:
        printLine(OS, '-', A[PosA[S]]);
        break;
      case EditKind::Insert:
        printLine(OS, '+', B[PosB[S]]);
        break;
      }
    }
    I = End;
  }
  return Out;
}
