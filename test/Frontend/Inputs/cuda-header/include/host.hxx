// A plain C++ header: inferred from its C++ neighbour, as before.
#pragma once
inline int twice(int X) { return 2 * X; }
