"""Writes evidence.cpp's tests into the folder given: random bytes, seeded,
so every run has the same inputs; the answers are the unmodified program's
(the test builds it and runs it on each input)."""
import os
import random
import sys

folder = sys.argv[1]
os.makedirs(folder, exist_ok=True)
for i, n in enumerate([300000, 350000, 400000], 1):
    r = random.Random(i)
    data = bytes(r.randrange(256) for _ in range(n))
    with open(os.path.join(folder, "input.%d.txt" % i), "wb") as f:
        f.write(b"%d\n" % n + data)
