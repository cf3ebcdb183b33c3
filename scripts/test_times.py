#!/usr/bin/env python3
"""Where the test suite's time goes, from ctest's JUnit report (ctest --output-junit).

scripts/test.sh writes build/<preset>/ctest-junit.xml; .ci/run prints this after ctest's summary
so that every CI log shows the slowest tests and the totals. Prints, within 120 columns:

  tests: 912 (868 passed, 44 skipped, 0 failed) | test time 1520 s (sum) | wall 840 s
  slowest 15:
     112.4 s  docs_examples.user-guide
      ...
  over 120 s: none

"test time" is the sum of every test's own time (what -j spreads over the cores); "wall" is the
report's elapsed time when ctest wrote one. --markdown prints the slowest tests as a Markdown
table (the form docs/developing.md keeps). --max-seconds S exits 1 when a test took longer than S
(a guard a CI job may opt into); without it the exit code is 0 (2 when the report is unreadable).

usage: test_times.py JUNIT.xml [--top N] [--markdown] [--max-seconds S]
"""
import argparse
import sys
import xml.etree.ElementTree as ET

LIMIT_S = 120.0  # docs/developing.md: no single test over this on a quiet 2-core machine


def read_report(path):
    """(cases, wall): cases as (name, seconds, status); wall from the report's root, or None."""
    root = ET.parse(path).getroot()
    cases = []
    for case in root.iter("testcase"):
        status = case.get("status") or "run"
        if case.find("failure") is not None or case.find("error") is not None or status == "fail":
            status = "failed"
        elif case.find("skipped") is not None or status in ("notrun", "disabled"):
            status = "skipped"
        else:
            status = "passed"
        cases.append((case.get("name") or "?", float(case.get("time") or 0.0), status))
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    wall = None
    if suite is not None and suite.get("time"):
        wall = float(suite.get("time"))
    return cases, wall


def summary_line(cases, wall):
    count = {s: sum(1 for c in cases if c[2] == s) for s in ("passed", "skipped", "failed")}
    total = sum(c[1] for c in cases)
    line = (f"tests: {len(cases)} ({count['passed']} passed, {count['skipped']} skipped, "
            f"{count['failed']} failed) | test time {total:.0f} s (sum)")
    if wall is not None:
        line += f" | wall {wall:.0f} s"
    return line


def fit(name, width):
    return name if len(name) <= width else name[:width - 3] + "..."


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("junit")
    parser.add_argument("--top", type=int, default=15, help="how many of the slowest to list (default 15)")
    parser.add_argument("--markdown", action="store_true", help="the slowest as a Markdown table")
    parser.add_argument("--max-seconds", type=float, default=None,
                        help="exit 1 when a test took longer than this many seconds")
    args = parser.parse_args(argv)
    if args.top < 0:
        parser.error(f"--top {args.top}: give 0 or more tests to list")
    if args.max_seconds is not None and not args.max_seconds > 0:
        parser.error(f"--max-seconds {args.max_seconds}: give a positive number of seconds")
    try:
        cases, wall = read_report(args.junit)
    except (OSError, ET.ParseError) as e:
        print(f"test_times.py: cannot read the JUnit report {args.junit}: {e} "
              "(run ctest with --output-junit FILE first)", file=sys.stderr)
        return 2
    slowest = sorted(cases, key=lambda c: -c[1])[:args.top]
    print(summary_line(cases, wall))
    if args.markdown:
        print()
        print("| seconds | test |")
        print("|---:|---|")
        for name, secs, _ in slowest:
            print(f"| {secs:.1f} | `{name}` |")
    else:
        print(f"slowest {len(slowest)}:")
        for name, secs, status in slowest:
            mark = "" if status == "passed" else f" ({status})"
            print(f"  {secs:8.1f} s  {fit(name, 100 - len(mark))}{mark}")
    over = [c for c in cases if c[1] > LIMIT_S]
    print(f"over {LIMIT_S:.0f} s: " + (", ".join(f"{n} {s:.0f} s" for n, s, _ in over[:5]) if over else "none")
          + (f" (+{len(over) - 5} more)" if len(over) > 5 else ""))
    if args.max_seconds is not None:
        late = sorted((c for c in cases if c[1] > args.max_seconds), key=lambda c: -c[1])
        if late:
            print(f"test_times.py: {len(late)} test(s) took longer than {args.max_seconds:g} s, "
                  f"the slowest {late[0][0]}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
