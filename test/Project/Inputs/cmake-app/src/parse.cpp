#include "stats.h"
#include <sstream>

std::vector<double> parseNumbers(const std::string &Text) {
  std::istringstream In(Text);
  std::vector<double> Out;
  for (double X; In >> X;)
    Out.push_back(X);
  return Out;
}
