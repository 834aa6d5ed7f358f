// The same through an angled include found on the command's -I folder, two
// steps away.
#pragma once
#include <device_ops.hxx>

OPS_DEVICE float scaleUnit(float X, float S) { return clampUnit(X * S); }
