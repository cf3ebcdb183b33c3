#!/usr/bin/env python3
"""The documentation cannot drift from the repository or from --help.

1. Links: every relative link and image in the repository's Markdown (README.md, docs/, the
   folder READMEs) resolves to a file or folder inside the repository, and every #anchor to a
   heading of the target page (GitHub's slugs: lower case, punctuation dropped, spaces to '-',
   repeats numbered -1, -2 ...). Links into code blocks and inline code are not links.
2. Options (with --arbench EXE): every option that `arbench --help` and `arbench SUB --help`
   list, for every subcommand `arbench --help` lists, appears in docs/user-guide.md, in the
   section of that subcommand ("## Options of `run` and `list`", "## Options of `tune`", ...).

Exit 0 when both hold, 1 with one line per problem ("FILE:LINE: ...") otherwise.
"""
import argparse
import os
import re
import subprocess
import sys

SKIP_DIRS = {".git", "device-check", "nightly", "history", "node_modules"}
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.I)


def markdown_files(root):
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("build"))
        for f in sorted(files):
            if f.endswith(".md"):
                yield os.path.join(folder, f)


def prose_lines(text):
    """(line number, line) outside fenced code blocks, with inline code removed."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if fence is None and (stripped.startswith("```") or stripped.startswith("~~~")):
            fence = stripped[:3]
            continue
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            continue
        yield number, re.sub(r"`+[^`]*`+", "", line)


def slug(heading):
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text stays
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)  # \w keeps letters, digits and '_', as GitHub does
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found, seen = set(), {}
        with open(path, encoding="utf-8") as f:
            text = f.read()
        fence = None
        for line in text.splitlines():
            stripped = line.lstrip()
            if stripped.startswith("```") or stripped.startswith("~~~"):
                fence = None if fence else stripped[:3]
                continue
            if fence:
                continue
            m = HEADING.match(line)
            if m:
                s = slug(m.group(2))
                n = seen.get(s, 0)
                seen[s] = n + 1
                found.add(s if n == 0 else f"{s}-{n}")
            found.update(HTML_ANCHOR.findall(line))
        cache[path] = found
    return cache[path]


def check_links(root):
    problems = []
    root = os.path.realpath(root)
    for md in markdown_files(root):
        rel_md = os.path.relpath(md, root)
        with open(md, encoding="utf-8") as f:
            text = f.read()
        for number, line in prose_lines(text):
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
                    continue
                path, _, anchor = target.partition("#")
                where = f"{rel_md}:{number}"
                dest = os.path.realpath(os.path.join(os.path.dirname(md), path)) if path else md
                if os.path.commonpath([root, dest]) != root:
                    problems.append(f"{where}: link '{target}' leaves the repository; "
                                    "state the fact, or link a file inside it")
                    continue
                if not os.path.exists(dest):
                    problems.append(f"{where}: link '{target}': {os.path.relpath(dest, root)} does not exist")
                    continue
                if anchor and dest.endswith(".md") and anchor not in anchors(dest):
                    problems.append(f"{where}: link '{target}': no heading with the anchor "
                                    f"#{anchor} in {os.path.relpath(dest, root)}")
    return problems


def help_text(exe, *args):
    r = subprocess.run([exe, *args, "--help"], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        sys.exit(f"check_docs: `{exe} {' '.join(args)} --help` exited {r.returncode}:\n{r.stdout}{r.stderr}")
    return r.stdout


def subcommands(exe):
    text = help_text(exe)
    parts = re.split(r"^subcommands:\s*$", text, maxsplit=1, flags=re.M | re.I)
    section = parts[1] if len(parts) == 2 else ""
    return [m.group(1) for m in re.finditer(r"^\s+([a-z][\w-]*)\s", section, re.M)]


def options(help_output):
    """Every -x / --name an option line of CLI11's help starts with (aliases included)."""
    found = []
    for line in help_output.splitlines():
        m = re.match(r"^\s+(-[^\s]*(?:,\s*-[^\s]*)*)", line)
        if not m:
            continue
        for name in re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", m.group(1)):
            if name not in ("-h", "--help") and name not in found:
                found.append(name)
    return found


def option_sections(guide):
    """Heading -> text of each '## ...' section of the user guide."""
    sections, title = {}, ""
    for line in guide.splitlines():
        if line.startswith("## "):
            title = line[3:].strip()
        sections[title] = sections.get(title, "") + line + "\n"
    return sections


def check_options(root, exe):
    guide_path = os.path.join(root, "docs", "user-guide.md")
    with open(guide_path, encoding="utf-8") as f:
        guide = f.read()
    sections = option_sections(guide)
    problems = []
    subs = subcommands(exe)
    if not subs:
        return [f"check_docs: `{exe} --help` lists no subcommands"]
    for sub in [""] + subs:  # "" = arbench's own options (--version), anywhere on the page
        command = f"arbench {sub}".strip()
        if sub:  # a subcommand's options belong in its section: "## Options of `run` and `list`"
            titles = [t for t in sections if t.lower().startswith("options of") and f"`{sub}`" in t]
            if not titles:
                problems.append(f"docs/user-guide.md: no section '## Options of `{sub}`' for `{command}`")
                continue
            text = sections[titles[0]]
        else:
            text = guide
        for opt in options(help_text(exe, *([sub] if sub else []))):
            if not re.search(r"(?<![\w-])" + re.escape(opt) + r"(?![\w-])", text):
                problems.append(f"docs/user-guide.md: `{command} {opt}` (from `{command} --help`) "
                                "is not documented" + (f" in '## {titles[0]}'" if sub else ""))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--arbench", help="the arbench executable whose --help the user guide must cover")
    a = ap.parse_args()
    problems = check_links(a.root)
    if a.arbench:
        problems += check_options(a.root, a.arbench)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
