// Builds: it includes the kernel of kernels/saxpy.cuh, through a header of
// its own, and launches it.
#include "launch.cuh"

void run(float *Y, const float *X, float A, int N) {
  launchSaxpy(Y, X, A, N);
}
