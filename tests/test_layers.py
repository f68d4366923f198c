#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The store's and the tracer's files call downwards only: no file calls
another that calls it back, directly or around a loop (issues 38, 42), and
no file of a tracer layer calls one of a layer above it (the plugin over
summary/ over recorder/ over output/; tracer/meson.build also builds each
layer seeing only its own and lower layers' headers). Read from the built
objects' symbol tables (nm), so that a new upward call fails here, not in
a review.

And a profile's columns are spelled in schema/ only (issue 38): no C file
of tracer/, tools/ or common/ holds a column's key as a string literal;
they fill and read the row structs (schema/sprow.h), or name a key with
SP_KEY (table, key), which the build checks against the schema."""
import glob
import os
import re
import subprocess
import sys

BUILD = os.environ["BUILD_ROOT"]
SOURCE = os.environ.get("SOURCE_ROOT",
                        os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            used.add(f[1])
        elif len(f) == 3 and f[1] in "TDBR":
            defined.add(f[2])
    return defined, used


def cycles(objs):
    syms = {os.path.basename(o).split(".c.o")[0]: symbols(o) for o in objs}
    graph = {a: {b for b in syms if b != a and syms[a][1] & syms[b][0]} for a in syms}
    found = []

    def walk(node, path):
        for nxt in sorted(graph[node]):
            if nxt in path:
                cyc = path[path.index(nxt):] + [nxt]
                if min(cyc[:-1]) == cyc[0]:
                    found.append(" -> ".join(cyc))
            else:
                walk(nxt, path + [nxt])

    for n in sorted(graph):
        walk(n, [n])
    return sorted(set(found))


# The tracer's layers, top first, by the static library (or plugin) that
# holds each object.
TRACER_LAYERS = ("libgststageprof.so.p", "libstageprofsummary.a.p",
                 "libstageprofrecorder.a.p", "libstageprofoutput.a.p")


def upward_calls(objs):
    layer = {}
    for o in objs:
        d = os.path.basename(os.path.dirname(o))
        if d in TRACER_LAYERS:
            layer[o] = TRACER_LAYERS.index(d)
    syms = {o: symbols(o) for o in layer}
    found = []
    for o, (_, used) in syms.items():
        for p, (defined, _) in syms.items():
            if layer[p] < layer[o] and used & defined:
                found.append(f"{os.path.basename(o)} ({TRACER_LAYERS[layer[o]]}) calls "
                             f"{sorted(used & defined)[0]} of {os.path.basename(p)} "
                             f"({TRACER_LAYERS[layer[p]]})")
    return sorted(found), len(set(layer.values()))


# Keys that also name what is no table's column, left out of the check:
# the summary's own wall_s and its process's cpu_s (not rows of a table),
# stage-batch's job records (wall_s, cpu_s). Keys without an underscore
# (name, count, run, frames, verdict, ...) are words every file uses for
# other things, so only keys with one count as distinctive.
SHARED_KEYS = {"wall_s", "cpu_s"}


def schema_keys():
    text = open(os.path.join(SOURCE, "schema", "spschema.h")).read()
    keys = set(re.findall(r"^\s+C \((\w+),", text, re.M))
    return sorted(k for k in keys if "_" in k and k not in SHARED_KEYS)


def spelled_columns():
    """(file, line, key) of each column key written as a C string literal
    outside schema/ (an escaped one, inside a JSON text, is not a key of a
    row)."""
    keys = schema_keys()
    pattern = re.compile(r'(?<!\\)"(%s)"' % "|".join(keys))
    found = []
    for part in ("tracer", "tools", "common"):
        for root, _, files in os.walk(os.path.join(SOURCE, part)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(root, f)
                for n, line in enumerate(open(path, errors="replace"), 1):
                    for m in pattern.finditer(line):
                        found.append((os.path.relpath(path, SOURCE), n, m.group(1)))
    return keys, found


def main():
    failed = 0
    keys, spelled = spelled_columns()
    for path, n, key in spelled:
        print(f"FAIL: {path}:{n} spells the column \"{key}\": use the row "
              f"structs (schema/sprow.h) or SP_KEY (table, {key})")
    print(f"columns: {len(keys)} distinctive keys, {len(spelled)} spelled outside schema/")
    failed += len(spelled)
    for part, pattern in (("store", os.path.join(BUILD, "store", "*.a.p", "*.c.o")),
                          ("tracer", os.path.join(BUILD, "tracer", "*.p", "*.c.o"))):
        objs = sorted(glob.glob(pattern))
        if not objs:
            print(f"FAIL: no objects of {part}/ under", BUILD)
            failed += 1
            continue
        found = cycles(objs)
        for c in found:
            print(f"FAIL: {part} files call each other around a loop:", c)
        print(f"{part}: {len(objs)} objects, {len(found)} loops")
        failed += len(found)
        if part == "tracer":
            up, n_layers = upward_calls(objs)
            for u in up:
                print("FAIL: a tracer layer calls one above it:", u)
            if n_layers != len(TRACER_LAYERS):
                print(f"FAIL: found {n_layers} of the tracer's {len(TRACER_LAYERS)} layers")
                failed += 1
            print(f"tracer layers: {len(up)} upward calls")
            failed += len(up)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
