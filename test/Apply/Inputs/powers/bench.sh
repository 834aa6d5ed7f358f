#!/bin/sh
# The project's bench command: instructions executed on input.txt, counted
# by callgrind, as "cost: N" for --bench-metric (deterministic). TMPDIR is
# the working copy: the one the caller set may not be writable by the user
# the command runs as.
TMPDIR=$PWD valgrind --tool=callgrind --callgrind-out-file=/dev/null ./app \
  < input.txt 2>&1 >/dev/null |
  sed -n 's/.*Collected : \([0-9]*\).*/cost: \1/p'
