#!/usr/bin/env python3
"""The measurement mutation score: `score.py TABLE SOURCE_ROOT BINDIR [NAME...]`.

Each mutant of TABLE (mutants.txt) was compiled into BINDIR/arbench_host_tests_mutant_<name>: the
ordinary host tests linked against the planted file. A mutant is killed when the host tests of
the measurement folders (their suites, found in tests/host/<folder>/*.cpp) fail on it. Prints one
line per mutant (the first test that failed) and `measurement mutants killed: N/M`; exit 1 unless
every one is killed. With NAMEs, only those mutants (ctest runs one per entry,
measurement_mutation_score.<name>, so that ctest -j spreads them).

The suites of the planted file's own folder (bench/X/... -> tests/host/X) run first, as a pass of
their own: they are the ones written against that code, so a mutant they kill is not run
through every other folder's tests first. One that survives them runs the rest, so a mutant
still counts as killed only if some test of the measurement folders fails on it."""
import glob
import os
import re
import subprocess
import sys
import time

# The folders whose tests stand for the code that turns samples into figures and verdicts.
FOLDERS = ("core", "results", "analysis", "measure", "sweep", "console", "run", "workload", "sol")
LIMIT_S = 900  # per pass (ctest TIMEOUT: two and more); a hang counts as a kill (a user would notice), but says so


def suites(root, folders=FOLDERS):
    names = set()
    for folder in folders:
        for path in glob.glob(os.path.join(root, "tests", "host", folder, "*.cpp")):
            with open(path, encoding="utf-8") as f:
                names |= set(re.findall(r"^TEST(?:_F|_P)?\((\w+),", f.read(), re.M))
    return sorted(names)


def passes(source, names, root):
    """The suites to run, in turn: those of the planted file's folder first, then the rest."""
    parts = source.split("/")
    own = suites(root, (parts[1],)) if len(parts) > 2 and parts[1] in FOLDERS else []
    rest = [n for n in names if n not in own]
    return [p for p in (own, rest) if p]


def verdict_of(exe, passes_, env):
    """The first failure of the passes in turn, or SURVIVED when every pass passed."""
    for suites_ in passes_:
        flt = ":".join(n + ".*" for n in suites_)
        try:
            r = subprocess.run([exe, "--gtest_filter=" + flt, "--gtest_fail_fast", "--gtest_brief=1"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=LIMIT_S)
        except subprocess.TimeoutExpired:
            return f"killed (hung past {LIMIT_S} s)"
        if r.returncode != 0:
            failed = re.findall(r"^\[  FAILED  \] (\S+)", r.stdout, re.M)
            return f"killed by {failed[0]}" if failed else f"killed (exit {r.returncode}, no test named)"
    return "SURVIVED"


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from plant import table
    path, root, bindir = sys.argv[1:4]
    mutants = table(path)
    for name in sys.argv[4:]:
        if name not in mutants:
            sys.exit(f"score.py: no mutant named {name} in {path}")
    if sys.argv[4:]:
        mutants = {name: mutants[name] for name in sys.argv[4:]}
    names = suites(root)
    if len(names) < 20:
        sys.exit(f"score.py: found only {len(names)} test suites under tests/host/{{{','.join(FOLDERS)}}}")
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    killed = 0
    for name, (source, _, _, wrong) in mutants.items():
        exe = os.path.join(bindir, f"arbench_host_tests_mutant_{name}")
        if not os.path.exists(exe):
            print(f"  {name:22} NOT BUILT ({exe} missing: is the build current?)")
            continue
        start = time.monotonic()
        verdict = verdict_of(exe, passes(source, names, root), env)
        took = time.monotonic() - start
        killed += verdict.startswith("killed")
        print(f"  {name:22} {verdict}  ({took:.0f} s; {source}: {wrong})", flush=True)
    print(f"measurement mutants killed: {killed}/{len(mutants)}")
    return 0 if killed == len(mutants) else 1


if __name__ == "__main__":
    sys.exit(main())
