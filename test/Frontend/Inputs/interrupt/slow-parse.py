"""Writes a C++ file whose parse takes Clang several seconds: many sorts,
each with a comparison lambda of its own type, so that every one
instantiates std::sort anew.

  slow-parse.py OUT.cpp [COUNT]
"""
import sys

count = int(sys.argv[2]) if len(sys.argv) > 2 else 1500
with open(sys.argv[1], "w") as f:
    f.write("#include <algorithm>\n#include <cstdio>\n#include <map>\n"
            "#include <numeric>\n#include <string>\n#include <vector>\n")
    for i in range(count):
        f.write(
            "long f%d(std::vector<long> &V) {\n"
            "  std::sort(V.begin(), V.end(), [](long A, long B) "
            "{ return A %% %d < B %% %d; });\n"
            "  std::map<long, std::string> M{{%d, \"x\"}};\n"
            "  return std::accumulate(V.begin(), V.end(), long(M.size()));\n"
            "}\n" % (i, i + 2, i + 2, i))
    f.write("int main() {\n  std::vector<long> V{3, 1, 2};\n"
            "  long S = 0;\n  int C;\n  while ((C = std::getchar()) != EOF)\n"
            "    S += C;\n  std::printf(\"%ld\\n\", S + f0(V));\n}\n")
