#!/usr/bin/env bash
# scripts/structure.py fails where it must: on a synthetic tree with two folders importing
# each other, an include up the floors, a cycle of three folders, a folder on no floor, an
# include loop inside a folder, and too many long functions; and passes on a one-way tree.
set -uo pipefail
script="scripts/structure.py"
root="${TEST_TMPDIR:-$(mktemp -d)}/tree"
fail() { echo "FAIL: $*"; exit 1; }

mk() { mkdir -p "$(dirname "$root/$1")"; printf '%b' "$2" >"$root/$1"; }
rm -rf "$root"
mk core/a.h '#pragma once\n'
mk sim/b.h '#pragma once\n#include "core/a.h"\n'
mk sim/c.h '#pragma once\n#include "sim/b.h"\n'
python3 "$script" includes --root "$root" >/dev/null || fail "one-way tree refused"

mk core/d.h '#pragma once\n#include "sim/b.h"\n'
out="$(python3 "$script" includes --root "$root")" && fail "two-way pair passed"
grep -q "two-way: core <-> sim" <<<"$out" || fail "two-way pair not named: $out"
rm "$root/core/d.h"

mk core/e.h '#pragma once\n#include "sim/c.h"\n'
out="$(python3 "$script" includes --root "$root")" && fail "upward include passed"
grep -q "upward: core -> sim" <<<"$out" || fail "upward include not named: $out"
rm "$root/core/e.h"

mk hw/f.h '#pragma once\n#include "cli/g.h"\n'
mk cli/g.h '#pragma once\n#include "sim/h.h"\n'
mk sim/h.h '#pragma once\n#include "hw/f.h"\n'
out="$(python3 "$script" includes --root "$root")" && fail "three-folder cycle passed"
grep -q "folders in one import cycle: cli, hw, sim" <<<"$out" || fail "cycle not named: $out"
rm "$root/hw/f.h" "$root/cli/g.h" "$root/sim/h.h"

mk sim/extra/k.h '#pragma once\n'
mk sim/j.h '#pragma once\n#include "sim/extra/k.h"\n'
out="$(python3 "$script" includes --root "$root")" && fail "folder on no floor passed"
grep -q "not on a floor: sim/extra" <<<"$out" || fail "folder on no floor not named: $out"
rm -r "$root/sim/extra" "$root/sim/j.h"

mk sim/b.cc '#include "sim/b.h"\n#include "sim/c.h"\n'
out="$(python3 "$script" includes --root "$root")" && fail "include loop passed"
grep -q "include loop: sim/b -> sim/c" <<<"$out" || fail "loop not named: $out"
rm "$root/sim/b.cc"

body="$(for i in $(seq 1 85); do printf '  x += %d;\\n' "$i"; done)"
mk sim/long.cc "int f(int x) {\n${body}  return x;\n}\nint g(int x) {\n  return x;\n}\n"
out="$(python3 "$script" functions --root "$root" --max-count 0)" && fail "long function passed"
grep -q "88  sim/long.cc:1  f" <<<"$out" || fail "long function not listed: $out"
python3 "$script" functions --root "$root" --max-count 1 >/dev/null || fail "limit of 1 refused"
echo "ok"
