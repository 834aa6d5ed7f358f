# -*- Python -*-
# The gtest binaries under unittests/, run as one lit suite.
import os

import lit.formats

config.name = "clang-maxcode-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.maxcode_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
config.environment["MAXCODE_SOURCE_DIR"] = config.maxcode_src_root
