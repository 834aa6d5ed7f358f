// A header the project does not have: nothing can be listed.
#include "not-in-this-project.h"

__global__ void unreachable(float *X) { X[0] = 0; }
