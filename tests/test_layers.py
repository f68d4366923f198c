#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The store's and the tracer's files call downwards only: no file calls
another that calls it back, directly or around a loop (issues 38, 42), and
no file of a tracer layer calls one of a layer above it (the plugin over
summary/ over recorder/ over output/; tracer/meson.build also builds each
layer seeing only its own and lower layers' headers). Read from the built
objects' symbol tables (nm), so that a new upward call fails here, not in
a review."""
import glob
import os
import subprocess
import sys

BUILD = os.environ["BUILD_ROOT"]


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


def main():
    failed = 0
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
