#!/usr/bin/env python3
"""Write one measurement mutant's source: `plant.py TABLE NAME ROOT OUT`.

TABLE is mutants.txt (name | source | text as it is | text planted | what reads wrong). The text as
it is must occur exactly once in ROOT/source, so a mutant never silently plants nothing after the
code moved: then this fails the build, naming the mutant and what to update."""
import sys


def table(path):
    rows = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = [x.strip() for x in line.rstrip("\n").split(" | ")]
            if len(fields) != 5:
                sys.exit(f"{path}:{number}: want 5 fields separated by ' | ', found {len(fields)}")
            rows[fields[0]] = fields[1:]
    return rows


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    path, name, root, out = sys.argv[1:]
    rows = table(path)
    if name not in rows:
        sys.exit(f"{path}: no mutant named {name}")
    source, before, after, _ = rows[name]
    with open(f"{root}/{source}", encoding="utf-8") as f:
        text = f.read()
    found = text.count(before)
    if found != 1:
        sys.exit(f"measurement mutant {name}: `{before}` occurs {found} times in {source} (want exactly once); "
                 f"update {path} to the code as it is now")
    with open(out, "w", encoding="utf-8") as f:
        f.write(f'#line 1 "{source} (mutant {name})"\n' + text.replace(before, after))


if __name__ == "__main__":
    main()
