#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes a binary file (nvcc's fatbin) as a C array: embed.py IN OUT SYMBOL."""
import sys

data = open(sys.argv[1], "rb").read()
sym = sys.argv[3]
with open(sys.argv[2], "w") as out:
    out.write("/* Generated from %s by ops/embed.py: do not edit. */\n" % sys.argv[1].split("/")[-1])
    out.write("#include <stddef.h>\n")
    # cuModuleLoadData reads the fatbin header in place: keep it aligned.
    out.write("const unsigned char %s[] __attribute__ ((aligned (16))) = {\n" % sym)
    for i in range(0, len(data), 16):
        out.write("  " + ", ".join("0x%02x" % b for b in data[i:i + 16]) + ",\n")
    out.write("};\nconst size_t %s_size = %d;\n" % (sym, len(data)))
