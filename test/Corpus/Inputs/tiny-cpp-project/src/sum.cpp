#include "util.h"
#include <cmath>
#include <vector>

double squares(std::vector<double> Values) {
  double Sum = 0;
  for (int I = 0; I < (int)Values.size(); ++I)
    Sum += std::pow(Values[I] + 1.0, 2);
  return Sum;
}

int main() {
  std::vector<double> V(100, 2.0);
  std::vector<int> W(3, 1);
  return squares(V) > 0 ? first(W) - 1 : 1;
}
