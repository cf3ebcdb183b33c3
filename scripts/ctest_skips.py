#!/usr/bin/env python3
"""Print why each skipped test was skipped, from ctest's JUnit report (ctest --output-junit).

ctest counts a skipped test but shows no reason; scripts/test.sh runs this after ctest so that
"GPU tests skip, with a reason" holds in its output. The reason is what the test printed: a
GoogleTest skip's message (the lines between "Skipped" and "[  SKIPPED ]"), or a script's "skip:"
line (exit 77), else its last line. Tests with the same reason are grouped; each line fits 120
columns.

usage: ctest_skips.py JUNIT.xml     exit 0 (2 when the report cannot be read)
"""
import re
import sys
import xml.etree.ElementTree as ET


def reason(output):
    lines = [l.strip() for l in output.splitlines()]
    for i, line in enumerate(lines):
        if line.endswith(": Skipped") or line == "Skipped":
            msg = []
            for follow in lines[i + 1:]:
                if follow.startswith("[  SKIPPED ]") or follow.startswith("["):
                    break
                if follow:
                    msg.append(follow)
            if msg:
                return " ".join(msg)
    for line in lines:
        if re.match(r"(?i)^skip(ped)?\b[:\s]", line):
            return line
    rest = [l for l in lines if l]
    return rest[-1] if rest else "(the test printed no reason)"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    try:
        root = ET.parse(sys.argv[1]).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"ctest_skips.py: cannot read {sys.argv[1]}: {e}", file=sys.stderr)
        return 2
    groups = {}
    for case in root.iter("testcase"):
        if case.find("skipped") is None:
            continue
        out = case.find("system-out")
        groups.setdefault(reason(out.text if out is not None and out.text else ""), []).append(case.get("name"))
    if not groups:
        return 0
    total = sum(len(v) for v in groups.values())
    print(f"{total} test(s) skipped, and why:")
    for why, names in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"  {why[:114]}")
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        print(f"    {len(names)} test(s): {shown}"[:120])
    return 0


if __name__ == "__main__":
    sys.exit(main())
