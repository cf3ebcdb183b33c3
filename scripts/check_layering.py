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
direction between a folder and its subfolders is checked too.

With --build DIR (a build folder; may be given more than once) a third rule is checked on the
objects CMake compiled there (DIR/**/CMakeFiles/<target>.dir/<source>.o): no function kernels/
calls is defined in bench/. A symbol a kernels/ object needs (nm: undefined) that no kernels/
object defines and a bench/ object does is a call from kernels/ into the benchmark program, even
when no bench/ header was included (a declaration in include/arbench/ implemented in bench/, or
one written out by hand).

Exit 0: clean; 1: violations (each printed as file:line: what is wrong, or file: what it calls);
2: bad usage, or --build without objects to read.
"""
import argparse
import os
import re
import subprocess
import sys

SOURCE_EXT = ('.hpp', '.cpp', '.cu', '.cuh', '.h')
# A folder a reader takes in at once: more files than this and it is split by concern
# (docs/architecture.md). Counted in the source roots and in tests/ (not its fixture data).
MAX_FILES = 20
ROOTS = ('include/arbench', 'kernels', 'bench')
CROWD_ROOTS = ROOTS + ('tests',)
CROWD_SKIP = ('tests/fixtures',)
# What a quoted include starts with when it names a bench/ header (bench/ is an include root).
BENCH_PREFIXES = ('core/', 'cli/', 'io/', 'text/', 'sweep/', 'measure/', 'run/', 'console/', 'results/', 'analysis/', 'settings/', 'topo/', 'doctor/', 'islands/', 'workload/', 'mpi/', 'step/', 'sol/',
                  'commands.hpp', 'bench/')
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
# An object CMake compiled from a source of kernels/ or bench/: .../CMakeFiles/<target>.dir/<source>.o
OBJECT = re.compile(r'/CMakeFiles/[^/]+\.dir/((?:kernels|bench)/.+)\.o$')
# nm's types of a symbol an object defines for the linker (uppercase: global; i, u: GNU's global
# kinds); 'U' is one it needs from another object.
DEFINED = set('ABCDGIRSTVW') | {'i', 'u'}


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


def build_objects(build_dirs):
    """{source path: [object paths]} of the kernels/ and bench/ objects under the build folders."""
    found = {}
    for build in build_dirs:
        for dirpath, _, files in os.walk(build):
            for name in files:
                path = os.path.join(dirpath, name)
                m = OBJECT.search(path.replace(os.sep, '/'))
                if m:
                    found.setdefault(m.group(1), []).append(path)
    return found


def object_symbols(paths):
    """{object path: (defined, undefined)} from nm, in batches (one nm per few hundred objects)."""
    table = {p: (set(), set()) for p in paths}
    for i in range(0, len(paths), 200):
        batch = paths[i:i + 200]
        out = subprocess.run(['nm', '-A', '-P', *batch], capture_output=True, text=True, check=False)
        if out.returncode != 0:
            raise RuntimeError(f'nm failed: {out.stderr.strip()[:300]}')
        for line in out.stdout.splitlines():
            where, _, rest = line.partition(': ')
            fields = rest.split()
            if where not in table or len(fields) < 2:
                continue
            symbol, kind = fields[0], fields[1]
            if kind == 'U':
                table[where][1].add(symbol)
            elif kind in DEFINED:
                table[where][0].add(symbol)
    return table


def demangled(symbols):
    """{symbol: readable name} through c++filt (the symbol itself where it is missing)."""
    try:
        out = subprocess.run(['c++filt'], input='\n'.join(symbols), capture_output=True, text=True, check=True)
        names = out.stdout.splitlines()
        if len(names) == len(symbols):
            return dict(zip(symbols, names))
    except (OSError, subprocess.CalledProcessError):
        pass
    return {s: s for s in symbols}


def check_symbols(build_dirs):
    """The kernels/ objects' calls into bench/: (problems, how many objects of each side were read)."""
    sources = build_objects(build_dirs)
    table = object_symbols(sorted(p for paths in sources.values() for p in paths))
    kernel_defined, bench_defined = set(), {}
    needs = {}  # kernels/ source -> symbols its objects need
    for source, paths in sources.items():
        for path in paths:
            defined, undefined = table[path]
            if source.startswith('kernels/'):
                kernel_defined |= defined
                needs.setdefault(source, set()).update(undefined)
            else:
                for symbol in defined:
                    bench_defined.setdefault(symbol, set()).add(source)
    calls = sorted((source, symbol) for source, symbols in needs.items() for symbol in symbols
                   if symbol in bench_defined and symbol not in kernel_defined)
    names = demangled(sorted({symbol for _, symbol in calls}))
    problems = [f'{source}: calls {names[symbol]}, defined only in {", ".join(sorted(bench_defined[symbol]))}; '
                f'no function kernels/ calls may be defined in bench/: implement it under kernels/ '
                f'(docs/architecture.md)' for source, symbol in calls]
    counts = (sum(1 for s in sources if s.startswith('kernels/')), sum(1 for s in sources if s.startswith('bench/')))
    return problems, counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--root', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'),
                    help='repository root (default: this script\'s repository)')
    ap.add_argument('--build', action='append', default=[], metavar='DIR',
                    help='a build folder whose kernels/ and bench/ objects are checked too: no function '
                         'kernels/ calls is defined in bench/ (may be given more than once)')
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.root, 'bench')):
        print(f'check_layering: {args.root} is not an arbench checkout (no bench/ folder)', file=sys.stderr)
        return 2
    problems = check(args.root)
    if args.build:
        try:
            symbol_problems, (kernel_objects, bench_objects) = check_symbols(args.build)
        except (OSError, RuntimeError) as e:
            print(f'check_layering: cannot read the objects of {", ".join(args.build)}: {e}', file=sys.stderr)
            return 2
        if not kernel_objects or not bench_objects:
            print(f'check_layering: {", ".join(args.build)} holds {kernel_objects} kernels/ and {bench_objects} '
                  f'bench/ object(s); build the libraries first', file=sys.stderr)
            return 2
        problems += symbol_problems
    for p in problems:
        print(p)
    if problems:
        print(f'check_layering: {len(problems)} violation(s); see docs/architecture.md for the folder map',
              file=sys.stderr)
        return 1
    print('check_layering: every folder includes only what its README.md allows' +
          (', and no function kernels/ calls is defined in bench/' if args.build else ''))
    return 0


if __name__ == '__main__':
    sys.exit(main())
