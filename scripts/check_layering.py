#!/usr/bin/env python3
"""Checks that every source folder includes only what its README.md allows.

Each folder of arbench's sources (include/arbench/*, kernels/*, bench/*, and their subfolders)
has a README.md with two rule lines, which this script reads (so the folder map in docs/architecture.md, the
READMEs and this check cannot drift apart):

  Depends on: arbench/, results/      quoted-include prefixes allowed besides the folder's own
  Never includes: <cuda, <nccl        angle-include prefixes that are forbidden ("-" for none)

No folder of those roots or of tests/ (but its fixture data) holds more than 20 files.
Two rules hold whatever the READMEs say: nothing under kernels/ or include/arbench/ may
include a bench/ header (kernels know no CLI, JSON or harness), and every folder holding
sources must have the README lines. A folder's own prefix covers its own headers only: a
subfolder's headers (topo/gpu/..., kernels/fabric/nccl/...) need a "Depends on:" entry, so the
direction between a folder and its subfolders is checked too. Exit 0: clean; 1: violations (each printed as
file:line: what is wrong); 2: bad usage.
"""
import argparse
import os
import re
import sys

SOURCE_EXT = ('.hpp', '.cpp', '.cu', '.cuh', '.h')
# A folder a reader takes in at once: more files than this and it is split by concern
# (docs/architecture.md). Counted in the source roots and in tests/ (not its fixture data).
MAX_FILES = 20
ROOTS = ('include/arbench', 'kernels', 'bench')
CROWD_ROOTS = ROOTS + ('tests',)
CROWD_SKIP = ('tests/fixtures',)
# What a quoted include starts with when it names a bench/ header (bench/ is an include root).
BENCH_PREFIXES = ('core/', 'cli/', 'io/', 'text/', 'sweep/', 'measure/', 'run/', 'console/', 'results/', 'analysis/', 'settings/', 'topo/', 'islands/', 'workload/', 'mpi/',
                  'commands.hpp', 'bench/')
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def folder_rules(folder):
    """(depends_on, never) from folder/README.md, or None when the lines are missing."""
    path = os.path.join(folder, 'README.md')
    if not os.path.isfile(path):
        return None
    depends = never = None
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.strip().strip('`')
            if line.startswith('Depends on:'):
                depends = [p.strip().strip('`') for p in line[len('Depends on:'):].split(',') if p.strip()]
            elif line.startswith('Never includes:'):
                never = [p.strip().strip('`') for p in line[len('Never includes:'):].split(',') if p.strip()]
    if depends is None or never is None:
        return None
    return ([p for p in depends if p != '-'], [p for p in never if p != '-'])


def own_prefix(rel_folder):
    """The quoted-include prefix of the folder's own headers."""
    if rel_folder.startswith('include/'):
        return rel_folder[len('include/'):] + '/'
    if rel_folder.startswith('bench/'):
        return rel_folder[len('bench/'):] + '/'
    if rel_folder == 'bench':
        return '\0'  # bench/ top: its headers are included by bare name
    return rel_folder + '/'


def is_own(target, own):
    """A header of the folder itself, not of a subfolder: a subfolder is a layer of its own
    (bench/topo/gpu/ may include bench/topo/, not the other way round unless a README says so)."""
    return target.startswith(own) and '/' not in target[len(own):]


def crowded(root):
    """Folders holding more than MAX_FILES files (their own, not their subfolders')."""
    problems = []
    for top in CROWD_ROOTS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            rel = os.path.relpath(dirpath, root).replace(os.sep, '/')
            if rel.startswith(CROWD_SKIP) or len(files) <= MAX_FILES:
                continue
            problems.append(f'{rel}/: holds {len(files)} files, more than {MAX_FILES}; split it by '
                            f'concern into subfolders, in a commit of moves only (docs/architecture.md)')
    return problems


def check(root):
    problems = crowded(root)
    for top in ROOTS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            sources = sorted(f for f in files if f.endswith(SOURCE_EXT))
            if not sources:
                continue
            rel = os.path.relpath(dirpath, root).replace(os.sep, '/')
            rules = folder_rules(dirpath)
            if rules is None:
                problems.append(f'{rel}/README.md: missing, or without its "Depends on:" and '
                                f'"Never includes:" lines; say what lives there and what it may include')
                continue
            depends, never = rules
            own = own_prefix(rel)
            kernel_side = rel == 'kernels' or rel.startswith(('kernels/', 'include/'))
            for name in sources:
                path = os.path.join(dirpath, name)
                with open(path, encoding='utf-8', errors='replace') as f:
                    for n, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        kind, target = m.groups()
                        where = f'{rel}/{name}:{n}'
                        if kind == '"':
                            same_folder = os.path.isfile(os.path.join(dirpath, target))
                            if kernel_side and target.startswith(BENCH_PREFIXES) and not same_folder:
                                problems.append(f'{where}: includes "{target}" from bench/; kernels and '
                                                f'include/arbench must not depend on the benchmark program')
                            elif not same_folder and not is_own(target, own) and not target.startswith(tuple(depends)):
                                problems.append(f'{where}: includes "{target}", outside what {rel}/README.md '
                                                f'allows (Depends on: {", ".join(depends) or "-"})')
                        else:
                            for bad in never:
                                if ('<' + target).startswith(bad):
                                    problems.append(f'{where}: includes <{target}>, which {rel}/README.md '
                                                    f'forbids (Never includes: {", ".join(never)})')
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--root', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'),
                    help='repository root (default: this script\'s repository)')
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.root, 'bench')):
        print(f'check_layering: {args.root} is not an arbench checkout (no bench/ folder)', file=sys.stderr)
        return 2
    problems = check(args.root)
    for p in problems:
        print(p)
    if problems:
        print(f'check_layering: {len(problems)} violation(s); see docs/architecture.md for the folder map',
              file=sys.stderr)
        return 1
    print('check_layering: every folder includes only what its README.md allows')
    return 0


if __name__ == '__main__':
    sys.exit(main())
