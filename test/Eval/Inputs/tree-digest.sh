#!/bin/sh
# Prints a digest of every file under $1 (names, modes and contents), so a
# test can prove the user's tree is byte-for-byte unchanged.
cd "$1" && find . -type f -printf '%p %m\n' | LC_ALL=C sort && \
  find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
