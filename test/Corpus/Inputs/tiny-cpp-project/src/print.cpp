#include <iostream>

int main() {
  for (int I = 0; I < 3; ++I)
    std::cout << I << std::endl;
  return 0;
}
