// A small statistics library.
#pragma once
#include <string>
#include <vector>

std::vector<double> parseNumbers(const std::string &Text);
// The number of windows of Width values whose mean is above Threshold.
long long windowsAbove(const std::vector<double> &V, size_t Width,
                       double Threshold);
