#!/usr/bin/env python3
"""Checks that the source tree is laid out as docs/design.md says (ctest: source_layout).

1. The folders listed in docs/design.md's tree block are the repository's folders: every
   top-level folder, and every folder of api/ and q/ at any depth and of tests/ one level down.
2. Every folder of api/, q/ and testing/ with sources has a README.md naming each of its files
   (by file name, or by stem for a .h/.cc pair).
3. No C++ source outside tests/ passes 400 lines.
Prints each problem and exits 1 if there is any.
"""
import os
import re
import subprocess
import sys

LINE_LIMIT = 400


def tracked_files(root):
    """git's files; outside a git checkout, every file but build folders' and hidden ones."""
    try:
        out = subprocess.check_output(["git", "ls-files"], cwd=root, text=True,
                                      stderr=subprocess.DEVNULL)
        return [f for f in out.splitlines() if os.path.exists(os.path.join(root, f))]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, subdirs, names in os.walk(root):
            rel = os.path.relpath(d, root)
            subdirs[:] = [s for s in subdirs if not s.startswith(("build", ".git"))
                          and not (rel == "." and s.startswith(".") and s != ".ci")]
            files += [os.path.normpath(os.path.join(rel, n)) for n in names]
        return files


def listed_folders(design_text):
    block = re.search(r"```text\n(.*?)```", design_text, re.S)
    if not block:
        return None
    folders, top = set(), None
    for line in block.group(1).splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            name = line.split()[0]
            if name.endswith("/"):
                top = name.rstrip("/")
                folders.add(top)
        elif indent == 2 and top is not None:
            for token in line.split():
                if not token.endswith("/"):
                    break
                folders.add(top + "/" + token.rstrip("/"))
    return folders


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    files = tracked_files(root)
    problems = []

    dirs = set()
    for f in files:
        parts = f.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:depth]))
    expected = {d for d in dirs if "/" not in d}
    expected |= {d for d in dirs if d.split("/")[0] in ("api", "q") and "/" in d}
    expected |= {d for d in dirs if d.startswith("tests/") and d.count("/") == 1}
    design = open(os.path.join(root, "docs/design.md")).read()
    listed = listed_folders(design)
    if listed is None:
        problems.append("docs/design.md: no ```text tree block")
    else:
        for d in sorted(expected - listed):
            problems.append(f"docs/design.md: folder {d}/ is not in the tree listing")
        for d in sorted(listed - expected):
            problems.append(f"docs/design.md: the tree lists {d}/, which does not exist")

    by_dir = {}
    for f in files:
        d, name = os.path.split(f)
        if d.split("/")[0] in ("api", "q", "testing") and name != "README.md":
            by_dir.setdefault(d, []).append(name)
    for d, names in sorted(by_dir.items()):
        readme = os.path.join(root, d, "README.md")
        if not os.path.exists(readme):
            problems.append(f"{d}/: no README.md")
            continue
        text = open(readme).read()
        for name in sorted(names):
            stem = os.path.splitext(name)[0]
            if f"`{name}`" not in text and f"`{stem}.h/.cc`" not in text and name not in text:
                problems.append(f"{d}/README.md: does not name {name}")

    for f in files:
        if f.endswith((".cc", ".h")) and not f.startswith("tests/"):
            n = sum(1 for _ in open(os.path.join(root, f), errors="replace"))
            if n > LINE_LIMIT:
                problems.append(f"{f}: {n} lines (limit {LINE_LIMIT} outside tests/)")

    for p in problems:
        print(p)
    print(f"source layout: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
