#!/usr/bin/env python3
"""Structure checks over ttsim's C++ sources (no compiler needed).

  scripts/structure.py includes [--root DIR]
      Prints the folder import graph (folder -> folders it #includes, with counts) and fails
      (exit 1) on an include that does not go down the floors below (FLOORS), on a folder that
      is on no floor, on a pair or cycle of folders that import each other, or on an include
      loop between the files of one folder (a .cc and its .h count as one unit).
  scripts/structure.py functions [--root DIR] [--limit N] [--max-count M]
      Lists the functions longer than N lines (default 80) outside tests, longest first, and
      fails when there are more than M of them (default: no limit).

A folder is a directory of the product (core, hw, models, models/training, machine, sim,
sim/memplan, hls/kernels, dse/search, ...): each one is a floor or a room of its own, so a
sub-folder and its parent must not import each other either. Includes are the quoted ones
("folder/file.h"), resolved from the repository root.
"""
import argparse
import os
import re
import sys

PRODUCT_FOLDERS = ["core", "hw", "models", "machine", "sim", "hls", "dse", "cli", "bench"]

# The floors, bottom up: a folder may include only folders listed before it (and itself).
# hw sits above models because the hardware spec prices the workload's tasks (flows per
# layer kind, task kinds and shapes); models reads only the kernel specification.
FLOORS = [
    "core",
    "hls/include",    # the kernel specification, shared by the kernels and the simulator
    "hls/kernels", "hls/tb", "hls/reports",
    "models", "models/dataset", "models/reference", "models/gpu",
    "hw",             # hardware spec types: arch, device, calibration, latency, blocks, power
    "hls/host", "hls/calibration", "models/training",
    "machine",
    "sim", "sim/memplan", "sim/baseline",
    "dse/space", "dse/search", "dse/accuracy", "dse/evaluate", "dse/run", "dse/report", "dse/emit", "dse",
    "cli",
    "bench",
]
SOURCE_EXT = (".h", ".cc", ".hpp", ".cpp", ".tpp")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def default_root():
    # Under `bazel test` this file is a symlink into the source tree: follow it.
    return os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def source_files(root, folders):
    for top in folders:
        base = os.path.join(root, top)
        for dirpath, _, files in os.walk(base):
            for f in sorted(files):
                if f.endswith(SOURCE_EXT):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


def folder_of(path):
    """Folder (directory) of a repository-relative path."""
    return os.path.dirname(path)


def unit_of(path):
    return os.path.splitext(path)[0]


def strongly_connected(nodes, edges):
    """Tarjan's algorithm (iterative); returns the components with more than one node."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter[0]; counter[0] += 1
        stack.append(start); on_stack.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]; counter[0] += 1
                    stack.append(nxt); on_stack.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop(); on_stack.discard(w); comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def check_includes(root):
    files = list(source_files(root, PRODUCT_FOLDERS))
    folder_edges = {}
    unit_edges = {}
    for path in files:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for inc in INCLUDE.findall(text):
            top = folder_of(inc)
            if inc.split("/")[0] not in PRODUCT_FOLDERS or not os.path.exists(os.path.join(root, inc)):
                continue
            src = folder_of(path)
            if top != src:
                folder_edges.setdefault(src, {}).setdefault(top, 0)
                folder_edges[src][top] += 1
            elif unit_of(inc) != unit_of(path):
                unit_edges.setdefault(unit_of(path), set()).add(unit_of(inc))
    print("folder graph (folder -> imported folder: #include lines):")
    folders = sorted(set(folder_edges) | {d for e in folder_edges.values() for d in e})
    for src in folders:
        if src in folder_edges:
            deps = ", ".join(f"{d} {n}" for d, n in sorted(folder_edges[src].items()))
            print(f"  {src} -> {deps}")
    bad = 0
    for a in folders:
        for b in folders:
            if a < b and b in folder_edges.get(a, {}) and a in folder_edges.get(b, {}):
                print(f"two-way: {a} <-> {b} ({folder_edges[a][b]} / {folder_edges[b][a]} includes)")
                bad += 1
    for comp in strongly_connected(sorted(unit_edges), unit_edges):
        print("include loop: " + " -> ".join(comp))
        bad += 1
    floor = {f: i for i, f in enumerate(FLOORS)}
    for src in folders:
        if src not in floor:
            print(f"not on a floor: {src} (add it to FLOORS in scripts/structure.py)")
            bad += 1
            continue
        for dst, n in sorted(folder_edges.get(src, {}).items()):
            if dst in floor and floor[dst] > floor[src]:
                print(f"upward: {src} -> {dst} ({n} includes; {dst} is above {src})")
                bad += 1
    for comp in strongly_connected(folders, {a: set(b) for a, b in folder_edges.items()}):
        if len(comp) > 2:
            print("folders in one import cycle: " + ", ".join(comp))
            bad += 1
    print(f"{bad} problem(s)")
    return 1 if bad else 0


# ---- function lengths ---------------------------------------------------------------------

def strip_code(text):
    """Blanks comments, string and character literals (newlines kept, so lines still count)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i-1].isalnum() or text[i-1] == '_')):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c); i += 1; continue
            end = ")" + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * text[i:j].count("\n"))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i-1].isalnum():  # digit separator 1'000
                out.append(" "); i += 1; continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        elif c == "#" and (i == 0 or text[i-1] == "\n"):
            j = i
            while True:  # preprocessor line with continuations
                k = text.find("\n", j)
                if k < 0:
                    k = n; break
                if text[k-1] != "\\":
                    break
                j = k + 1
            out.append("\n" * text[i:k].count("\n"))
            i = k
        else:
            out.append(c); i += 1
    return "".join(out)


CONTROL = re.compile(r"\b(if|for|while|switch|catch|return|else|do)\s*$")
SCOPE = re.compile(r"\b(namespace|class|struct|union|enum)\b[^;()]*$")


def functions(path, text):
    code = strip_code(text)
    results = []
    stack = []  # kinds of open braces: 'scope', 'function', 'other'
    stmt_start = 0
    fn_open = None
    for i, c in enumerate(code):
        if c == "{":
            head = code[stmt_start:i]
            head_flat = " ".join(head.split())
            in_function = "function" in stack
            kind = "other"
            if not in_function:
                if SCOPE.search(head_flat) or head_flat.startswith("extern"):
                    kind = "scope"
                elif re.search(r"\)\s*(const|noexcept|override|final|mutable|->[^{]*|:[^{]*|\s)*$", head_flat) \
                        and not CONTROL.search(head_flat.split("(")[0]) and "=" not in head_flat.split("(")[0]:
                    kind = "function"
                    # the signature starts at the first non-blank character of the head
                    lead = len(head) - len(head.lstrip())
                    fn_open = (code.count("\n", 0, stmt_start + lead) + 1, head_flat.split("(")[0].split()[-1:] or ["?"])
            stack.append(kind)
            stmt_start = i + 1
        elif c == "}":
            kind = stack.pop() if stack else "other"
            if kind == "function" and fn_open:
                end_line = code.count("\n", 0, i) + 1
                start, name = fn_open
                results.append((end_line - start + 1, path, start, name[0]))
                fn_open = None
            stmt_start = i + 1
        elif c == ";" and "function" not in stack:
            stmt_start = i + 1
        elif c in ";" :
            stmt_start = i + 1
    return results


def check_functions(root, limit, max_count):
    found = []
    for path in source_files(root, PRODUCT_FOLDERS):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            found.extend(functions(path, f.read()))
    long = sorted((r for r in found if r[0] > limit), key=lambda r: (-r[0], r[1], r[2]))
    for lines, path, start, name in long:
        print(f"{lines:5d}  {path}:{start}  {name}")
    print(f"{len(long)} function(s) over {limit} lines outside tests")
    if max_count is not None and len(long) > max_count:
        print(f"more than the allowed {max_count}")
        return 1
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("check", choices=["includes", "functions"])
    parser.add_argument("--root", default=default_root())
    parser.add_argument("--limit", type=int, default=80)
    parser.add_argument("--max-count", type=int)
    args = parser.parse_args()
    if args.check == "includes":
        return check_includes(args.root)
    return check_functions(args.root, args.limit, args.max_count)


if __name__ == "__main__":
    sys.exit(main())
