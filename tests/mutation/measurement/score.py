#!/usr/bin/env python3
"""The measurement mutation score: `score.py TABLE SOURCE_ROOT BINDIR`.

Each mutant of TABLE (mutants.txt) was compiled into BINDIR/arbench_host_tests_mutant_<name>: the
ordinary host tests linked against the planted file. A mutant is killed when the host tests of
the measurement folders (their suites, found in tests/host/<folder>/*.cpp) fail on it. Prints one
line per mutant (the first test that failed) and `measurement mutants killed: N/M`; exit 1 unless
every one is killed."""
import glob
import os
import re
import subprocess
import sys
import time

# The folders whose tests stand for the code that turns samples into figures and verdicts.
FOLDERS = ("core", "results", "analysis", "measure", "sweep", "console", "run", "workload")
LIMIT_S = 900  # per mutant; a hang counts as a kill (a user would notice), but says so


def suites(root):
    names = set()
    for folder in FOLDERS:
        for path in glob.glob(os.path.join(root, "tests", "host", folder, "*.cpp")):
            with open(path, encoding="utf-8") as f:
                names |= set(re.findall(r"^TEST(?:_F|_P)?\((\w+),", f.read(), re.M))
    return sorted(names)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from plant import table
    path, root, bindir = sys.argv[1:]
    mutants = table(path)
    names = suites(root)
    if len(names) < 20:
        sys.exit(f"score.py: found only {len(names)} test suites under tests/host/{{{','.join(FOLDERS)}}}")
    flt = ":".join(n + ".*" for n in names)
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    killed = 0
    for name, (source, _, _, wrong) in mutants.items():
        exe = os.path.join(bindir, f"arbench_host_tests_mutant_{name}")
        if not os.path.exists(exe):
            print(f"  {name:22} NOT BUILT ({exe} missing: is the build current?)")
            continue
        start = time.monotonic()
        try:
            r = subprocess.run([exe, "--gtest_filter=" + flt, "--gtest_fail_fast", "--gtest_brief=1"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=LIMIT_S)
            failed = re.findall(r"^\[  FAILED  \] (\S+)", r.stdout, re.M)
            verdict = f"killed by {failed[0]}" if r.returncode != 0 and failed else (
                f"killed (exit {r.returncode}, no test named)" if r.returncode != 0 else "SURVIVED")
        except subprocess.TimeoutExpired:
            verdict = f"killed (hung past {LIMIT_S} s)"
        took = time.monotonic() - start
        killed += verdict.startswith("killed")
        print(f"  {name:22} {verdict}  ({took:.0f} s; {source}: {wrong})", flush=True)
    print(f"measurement mutants killed: {killed}/{len(mutants)}")
    return 0 if killed == len(mutants) else 1


if __name__ == "__main__":
    sys.exit(main())
