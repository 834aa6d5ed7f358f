#!/bin/sh
# The project's test command: the program's output on input.txt is the
# expected one.
./app < input.txt | cmp -s - expected.txt
