#!/bin/sh
# The project's test command in apply-file-changed.test: it runs the
# project's own test (check.sh), and the first time it runs it also edits
# the user's file the search read (its path is $1), as a person editing the
# file while a long search runs would.
if ! tail -n 1 "$1" | grep -q "edited while the search ran"; then
  echo "// edited while the search ran" >> "$1" || exit 3
fi
sh check.sh
