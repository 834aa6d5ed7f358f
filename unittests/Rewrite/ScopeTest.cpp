//===-- ScopeTest.cpp - What a variant may edit ---------------------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "maxcode/Rewrite/Scope.h"
#include "gtest/gtest.h"

using namespace maxcode;

namespace {

const char *Original = "#include <cstdio>\n"
                       "int before() { return 1; }\n"
                       "int f(int X) {\n"
                       "  return X + 1;\n"
                       "}\n"
                       "int main() { return f(2); }\n";

Target targetF() {
  Target T;
  T.Name = "f";
  llvm::StringRef O(Original);
  T.BeginOffset = O.find("int f(");
  T.EndOffset = O.find("int main") - 1; // The '}' ends before the newline.
  T.Line = 3;
  T.EndLine = 5;
  return T;
}

/// \p Before and \p Body around f's definition, the rest unchanged.
std::string variant(llvm::StringRef Before, llvm::StringRef Body,
                    llvm::StringRef After = "") {
  return ("#include <cstdio>\n"
          "int before() { return 1; }\n" +
          Before + "int f(int X) {\n" + Body + "  return X + 1;\n}" + After +
          "\nint main() { return f(2); }\n")
      .str();
}

std::string scopeError(const std::string &V) {
  llvm::Error E = checkScope(Original, V, targetF(), EditScope::Target);
  return E ? llvm::toString(std::move(E)) : "";
}

TEST(ScopeTest, APragmaBeforeTheTargetMustBePoppedAfterIt) {
  EXPECT_EQ(scopeError(variant("", "")), "");
  EXPECT_NE(scopeError(variant("#pragma GCC optimize(\"O3\")\n", ""))
                .find("a #pragma at line 3 of the variant, outside the "
                      "target's body"),
            std::string::npos);
  EXPECT_EQ(scopeError(variant("#pragma GCC push_options\n"
                               "#pragma GCC optimize(\"O3\")\n",
                               "", "\n#pragma GCC pop_options")),
            "");
  EXPECT_NE(scopeError(variant("#pragma GCC push_options\n", ""))
                .find("never popped"),
            std::string::npos);
}

TEST(ScopeTest, APragmaInsideTheBodyStaysThere) {
  EXPECT_EQ(scopeError(variant("", "#pragma GCC unroll 4\n")), "");
}

TEST(ScopeTest, PragmaWordsInCommentsAndStringsAreNotPragmas) {
  EXPECT_EQ(scopeError(variant("// #pragma GCC optimize(\"O3\")\n"
                               "/* \n#pragma once\n */\n"
                               "static const char *Doc = \"#pragma x\";\n",
                               "")),
            "");
}

TEST(ScopeTest, PragmaScopeKind) {
  EXPECT_EQ(pragmaScopeKind("GCC push_options"), 1);
  EXPECT_EQ(pragmaScopeKind("clang diagnostic push"), 1);
  EXPECT_EQ(pragmaScopeKind("pack(pop)"), 2);
  EXPECT_EQ(pragmaScopeKind("GCC optimize(\"O3\")"), 0);
}

} // namespace

// An indented target (in a namespace): lines go in before it at the start
// of its line, its indentation kept after them; text before the target's
// line is still the user's.
TEST(ScopeTest, LinesGoInBeforeAnIndentedTarget) {
  const char *Indented = "namespace n {\n"
                         "  int f(int X) {\n"
                         "    return X + 1;\n"
                         "  }\n"
                         "}\n";
  llvm::StringRef O(Indented);
  Target T;
  T.Name = "n::f";
  T.BeginOffset = O.find("int f(");
  T.EndOffset = O.find("  }\n") + 3;
  T.Line = 2;
  T.EndLine = 4;
  auto Check = [&](llvm::StringRef V) {
    llvm::Error E = checkScope(O, V, T, EditScope::Target);
    return E ? llvm::toString(std::move(E)) : "";
  };
  EXPECT_EQ(Check("namespace n {\n"
                  "#pragma GCC push_options\n"
                  "#pragma GCC optimize(\"O3\")\n"
                  "  int f(int X) {\n"
                  "    return X + 1;\n"
                  "  }\n"
                  "#pragma GCC pop_options\n"
                  "}\n"),
            "");
  EXPECT_NE(Check("namespace m {\n"
                  "  int f(int X) {\n"
                  "    return X + 1;\n"
                  "  }\n"
                  "}\n")
                .find("line 1 (before the target) was changed"),
            std::string::npos);
}
