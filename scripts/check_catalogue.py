#!/usr/bin/env python3
"""Prove the knob catalogue's release boundaries against local clones of the projects.

Every entry of bench/settings/catalogue/knobs_*.cpp carries its evidence (knobs.hpp, Boundary):
the repository, the first tag that has the fact, the newest tag of the release before, the path and
a pattern (a Python regular expression, multiline). A boundary is

  proven      the pattern matches the file at the first tag, and not at the previous one (a file
              absent there counts as no match); with no previous tag, it matches at the first
  broken      a tag is missing from the clone, the pattern does not match at the first tag, or it
              matches at the previous one: the catalogue says something its source does not
  unprovable  there is no clone of the repository under --clones (the entry's docs page, a
              versioned documentation page, is what it rests on)

An entry is broken when one of its boundaries is, proven when all are (and it has one), else
unprovable. Prints one line per entry, then a summary; exits 1 when any is broken, 2 on bad input.

  scripts/check_catalogue.py --clones DIR     DIR/<owner>+<name>: a git clone or bare git dir
  scripts/check_catalogue.py --dump           the parsed entries, one field per line (the tests
                                              compare it with the catalogue as compiled)

The parser reads the C++ data without a compiler: each entry begins at `.id = "..."`, and its
`.first`, `.docs_page` and every `.evidence` field are single string literals (or, for docs_page, a
constant defined as one in the same file); tests/host/settings checks that it reads every entry.
"""
import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = ROOT / "bench" / "settings" / "catalogue"

TOKEN = re.compile(
    r'(?P<raw>R"(?P<delim>[^(\s]*)\((?P<rawbody>.*?)\)(?P=delim)")'
    r'|(?P<str>"(?:[^"\\\n]|\\.)*")'
    r"|(?P<comment>//[^\n]*|/\*.*?\*/)"
    r"|(?P<char>'(?:[^'\\\n]|\\.)*')"
    r"|(?P<ident>[A-Za-z_][A-Za-z0-9_:]*)"
    r"|(?P<punct>\S)",
    re.S,
)
ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'", "0": "\0"}


def unescape(body):
    return re.sub(r"\\(.)", lambda m: ESCAPES.get(m.group(1), m.group(1)), body)


def tokens(text):
    """(kind, value) pairs: 'str' (adjacent literals joined), 'ident', 'punct'; comments dropped."""
    out = []
    for m in TOKEN.finditer(text):
        if m.group("comment") or m.group("char"):
            continue
        if m.group("raw") is not None or m.group("str") is not None:
            value = m.group("rawbody") if m.group("raw") is not None else unescape(m.group("str")[1:-1])
            if out and out[-1][0] == "str":
                out[-1] = ("str", out[-1][1] + value)
            else:
                out.append(("str", value))
        elif m.group("ident"):
            out.append(("ident", m.group("ident")))
        else:
            out.append(("punct", m.group("punct")))
    return out


class ParseError(Exception):
    pass


def parse_file(path):
    toks = tokens(path.read_text())
    consts = {}  # constexpr std::string_view NAME = "...";
    for i in range(len(toks) - 2):
        if toks[i][0] == "ident" and toks[i + 1] == ("punct", "=") and toks[i + 2][0] == "str":
            consts.setdefault(toks[i][1], toks[i + 2][1])
    entries = []

    def field(i):  # i at '.', returns the field name when ". NAME =" starts here
        if toks[i] == ("punct", ".") and i + 2 < len(toks) and toks[i + 1][0] == "ident" and toks[i + 2] == ("punct", "="):
            return toks[i + 1][1]
        return None

    def literal(i, what):
        kind, value = toks[i]
        if kind == "str":
            return value
        if kind == "ident" and what == "docs_page" and value in consts:
            return consts[value]
        raise ParseError(f"{path.name}: {what} of entry {entries[-1]['id'] if entries else '?'} is not a string "
                         f"literal (found {value!r}): write it as one, so that this checker can read it")

    i = 0
    while i < len(toks):
        name = field(i)
        if name is None:
            i += 1
            continue
        j = i + 3
        if name == "id":
            entries.append({"id": literal(j, "id"), "first": "", "docs_page": "", "evidence": [], "repo": "",
                            "file": path.name})
        elif entries and name == "source" and toks[j] == ("punct", "{") and toks[j + 1][0] == "str":
            entries[-1]["repo"] = toks[j + 1][1]
        elif entries and name in ("first", "docs_page"):
            entries[-1][name] = literal(j, name)
        elif entries and name == "evidence":
            if toks[j] != ("punct", "{"):
                raise ParseError(f"{path.name}: evidence of {entries[-1]['id']} is not a braced list")
            j += 1
            while toks[j] == ("punct", "{"):
                fields = []
                j += 1
                while toks[j] != ("punct", "}"):
                    if toks[j] == ("punct", ","):
                        j += 1
                        continue
                    fields.append(literal(j, "evidence"))
                    j += 1
                if len(fields) != 5:
                    raise ParseError(f"{path.name}: a boundary of {entries[-1]['id']} has {len(fields)} fields, not 5 "
                                     "(repo, first tag, previous tag, path, pattern)")
                entries[-1]["evidence"].append(dict(zip(("repo", "first_tag", "prev_tag", "path", "pattern"), fields)))
                j += 1
                if toks[j] == ("punct", ","):
                    j += 1
        i = j
    return entries


def catalogue_files(directory):
    """knobs_<name>.cpp in the order knobs.cpp joins them (knob_data::add_<name>)."""
    order = re.findall(r"knob_data::add_(\w+)\(", (directory / "knobs.cpp").read_text())
    files = [directory / f"knobs_{name}.cpp" for name in order]
    missing = [str(f) for f in files if not f.exists()]
    if not order or missing:
        raise ParseError(f"knobs.cpp joins no data files, or they are missing: {missing}")
    return files


def parse_catalogue(files):
    entries = []
    for f in files:
        entries += parse_file(f)
    return entries


def dump(entries):
    lines = []
    for e in entries:
        lines.append(f"entry\t{e['id']}\t{e['first']}")
        for b in e["evidence"]:
            lines.append("boundary\t" + "\t".join(b[k] for k in ("repo", "first_tag", "prev_tag", "path", "pattern")))
        if e["docs_page"]:
            lines.append(f"docs\t{e['docs_page']}")
    return "\n".join(lines) + "\n"


def git_dir(clones, repo):
    base = Path(clones) / repo.replace("/", "+")
    for candidate in (base / ".git", base / "repo", base):
        if (candidate / "HEAD").exists() and (candidate / "objects").exists():
            return candidate
    return None


def show(gd, tag, path):
    """(tag exists, file text or None)."""
    ok = subprocess.run(["git", "--git-dir", str(gd), "rev-parse", "--verify", "-q", f"{tag}^{{commit}}"],
                        capture_output=True, timeout=60).returncode == 0
    if not ok:
        return False, None
    r = subprocess.run(["git", "--git-dir", str(gd), "show", f"{tag}:{path}"], capture_output=True, timeout=60)
    return True, (r.stdout.decode("utf-8", "replace") if r.returncode == 0 else None)


def check_boundary(clones, b):
    gd = git_dir(clones, b["repo"])
    if gd is None:
        return "unprovable", f"no clone of {b['repo']} under {clones}"
    try:
        pattern = re.compile(b["pattern"], re.M)
    except re.error as err:
        return "broken", f"pattern /{b['pattern']}/ is not a regular expression ({err})"
    where = f"{b['path']} /{b['pattern']}/"
    exists, text = show(gd, b["first_tag"], b["path"])
    if not exists:
        return "broken", f"tag {b['first_tag']} is not in the clone of {b['repo']}"
    if text is None:
        return "broken", f"{b['first_tag']} has no {b['path']}"
    if not pattern.search(text):
        return "broken", f"{b['first_tag']}: {where} does not match"
    if not b["prev_tag"]:
        return "proven", f"{b['first_tag']} has {where} (no earlier boundary claimed)"
    exists, text = show(gd, b["prev_tag"], b["path"])
    if not exists:
        return "broken", f"tag {b['prev_tag']} is not in the clone of {b['repo']}"
    if text is not None and pattern.search(text):
        return "broken", f"{b['prev_tag']} matches {where} too: the boundary is not there"
    return "proven", f"{b['first_tag']} has {where}, {b['prev_tag']} " + ("does not" if text else "has no such file")


def release_of(tag):
    """The release number a tag stands for: v2.27.5-1 -> 2.27.5, v0.6.17 -> 0.6.17."""
    return re.sub(r"-\d+$", "", tag[1:] if tag.startswith("v") else tag)


def first_matches(e):
    """broken-reason when the entry's first release is not a boundary its evidence proves, else None."""
    if not e["first"] or not e["evidence"]:
        return None
    firsts = [release_of(b["first_tag"]) for b in e["evidence"] if b["prev_tag"]]
    if e["first"] in firsts:
        return None
    return (f"the entry's first release {e['first']} is not the first tag of any boundary it carries "
            f"({', '.join(firsts) or 'none with a previous tag'})")


def no_evidence(clones, e):
    """Why an entry without boundaries is unprovable here (or what to add)."""
    gd = e["repo"] and git_dir(clones, e["repo"])
    if not gd:
        return f"no clone of {e['repo'] or 'its repository'} under {clones}"
    tag = "v" + e["first"]
    if e["first"] and not show(gd, tag, ".")[0]:
        return f"the clone of {e['repo']} has no tag {tag} (its first release) to prove it at"
    return f"no boundary as data although {clones} has a clone of {e['repo']}: add its evidence"


def check(entries, clones):
    counts = {"proven": 0, "broken": 0, "unprovable": 0}
    bounds = {"proven": 0, "broken": 0, "unprovable": 0}
    for e in entries:
        results = [check_boundary(clones, b) for b in e["evidence"]]
        if first_matches(e):
            results.append(("broken", first_matches(e)))
        for status, _ in results:
            bounds[status] += 1
        statuses = {s for s, _ in results}
        status = "broken" if "broken" in statuses else "proven" if statuses == {"proven"} else "unprovable"
        counts[status] += 1
        label = e["id"] + (f" (from {e['first']})" if e["first"] else "")
        detail = "; ".join(f"{s}: {why}" for s, why in results)
        if not results:
            detail = no_evidence(clones, e)
        if status != "proven" and e["docs_page"]:
            detail += f"; rests on docs page {e['docs_page']}"
        print(f"{status:<11} {label}: {detail}")
    print(f"check_catalogue: {len(entries)} entries: {counts['proven']} proven, {counts['broken']} broken, "
          f"{counts['unprovable']} unprovable ({sum(bounds.values())} boundaries: {bounds['proven']} proven, "
          f"{bounds['broken']} broken, {bounds['unprovable']} unprovable)")
    return 1 if counts["broken"] else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clones", help="folder of clones, DIR/<owner>+<name> (a git clone or bare git dir)")
    ap.add_argument("--dump", action="store_true", help="print the parsed entries and stop")
    ap.add_argument("--catalogue", nargs="+", type=Path, help="data files to read (default: those knobs.cpp joins)")
    args = ap.parse_args()
    if not args.dump and not args.clones:
        ap.error("give --clones DIR (or --dump)")
    if args.clones and not os.path.isdir(args.clones):
        ap.error(f"--clones {args.clones}: no such folder (make one with a clone per repository, named owner+name)")
    try:
        entries = parse_catalogue(args.catalogue or catalogue_files(CATALOGUE))
    except (ParseError, OSError) as err:
        print(f"check_catalogue: {err}", file=sys.stderr)
        return 2
    if args.dump:
        sys.stdout.write(dump(entries))
        return 0
    return check(entries, args.clones)


if __name__ == "__main__":
    sys.exit(main())
