#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""`meson install` into a temporary DESTDIR puts everything where a
Debian-style package would: both plugins (and the CUDA module of a CUDA
build) in $libdir/gstreamer-1.0, not the stagenull benchmark tracer (unless
-Dbench-tracer=true), every tool of tools/ in $bindir with its man page in
$mandir/man1, and README plus docs/ with its examples in $datadir/doc; the
plugins export gst_plugin_* symbols only (nm -D)."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

build = os.environ["BUILD_ROOT"]
src = os.environ["SOURCE_ROOT"]


def main():
    opts = {o["name"]: o["value"] for o in json.loads(subprocess.run(
        ["meson", "introspect", "--buildoptions", build],
        capture_output=True, text=True, check=True).stdout)}
    prefix, libdir = opts["prefix"], opts["libdir"]
    dest = tempfile.mkdtemp(prefix="stages-install-")
    try:
        r = subprocess.run(["meson", "install", "-C", build, "--no-rebuild",
                            "--quiet", "--destdir", dest],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(r.stdout, r.stderr)
            return 1
        root = dest + prefix
        libdir = libdir if os.path.isabs(libdir) else os.path.join(prefix, libdir)
        plugins = dest + libdir + "/gstreamer-1.0"
        want = [plugins + "/libgststages.so", plugins + "/libgststageprof.so",
                root + "/share/doc/gst-stages/README.md",
                root + "/share/doc/gst-stages/docs/tracer.md",
                root + "/share/doc/gst-stages/docs/examples/stageprof-app.c"]
        if os.path.exists(os.path.join(build, "gst", "libgststages-cuda.mod")):
            want.append(plugins + "/libgststages-cuda.mod")
        for tool in sorted(glob.glob(os.path.join(src, "tools", "*", "*.c"))):
            name = os.path.basename(tool)[:-2]
            if "\nmain (" not in open(tool, encoding="utf-8").read():
                continue  # an internal library file, not a tool
            want += [root + "/bin/" + name, root + "/share/man/man1/" + name + ".1"]
        failed = 0
        for path in want:
            ok = os.path.exists(path)
            failed += not ok
            print(("ok: " if ok else "FAIL: missing ") + os.path.relpath(path, dest))
        # the installed README's relative links lead to installed pages
        docroot = root + "/share/doc/gst-stages"
        readme = os.path.join(docroot, "README.md")
        if os.path.exists(readme):
            for link in re.findall(r"\]\(([^)#\s]+)", open(readme, encoding="utf-8").read()):
                if not link.startswith("docs/"):
                    continue  # bench/ and other source folders are not installed
                ok = os.path.exists(os.path.join(docroot, link))
                failed += not ok
                if not ok:
                    print("FAIL: the installed README links to " + link + ", not installed there")
        # the plugins export GStreamer's entry points and nothing of their
        # internals (a hook's call into the recorder is then direct)
        for so in sorted(glob.glob(plugins + "/*.so")):
            r = subprocess.run(["nm", "-D", "--defined-only", so], capture_output=True,
                               text=True)
            syms = [l.split()[-1] for l in r.stdout.splitlines()
                    if len(l.split()) == 3 and l.split()[1] in "TDBR"]
            extra = [x for x in syms if not x.startswith("gst_plugin_")]
            ok = r.returncode == 0 and syms and not extra
            failed += not ok
            print(("ok: " if ok else "FAIL: ") + os.path.basename(so) + " exports "
                  + (", ".join(extra[:8]) + (" ..." if len(extra) > 8 else "") if extra
                     else "only " + ", ".join(syms)))
        null = os.path.exists(plugins + "/libgststagenull.so")
        if null != bool(opts.get("bench-tracer")):
            print("FAIL: stagenull installed=%s with bench-tracer=%s"
                  % (null, opts.get("bench-tracer")))
            failed += 1
        return 1 if failed else 0
    finally:
        shutil.rmtree(dest, ignore_errors=True)


sys.exit(main())
