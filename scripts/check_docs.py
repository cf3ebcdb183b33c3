#!/usr/bin/env python3
"""The documentation cannot drift from the repository or from --help.

1. Links: every relative link and image in the repository's Markdown (README.md, docs/, the
   folder READMEs) resolves to a file or folder inside the repository, and every #anchor to a
   heading of the target page (GitHub's slugs: lower case, punctuation dropped, spaces to '-',
   repeats numbered -1, -2 ...). Links into code blocks and inline code are not links.
2. Options (with --arbench EXE): every option that `arbench --help` and `arbench SUB --help`
   list, for every subcommand `arbench --help` lists, appears in docs/user-guide.md, in the
   section of that subcommand ("## Options of `run` and `list`", "## Options of `tune`", ...).

3. Examples (with --run-examples --arbench EXE): every command quoted in README.md and docs/ that
   can run without a GPU runs, and a transcript's output keeps its shape (see section 3 below);
   each row of a table after `<!-- docs-run: messages -->` whose input and message are each one
   code span runs `arbench INPUT`, which must exit 2 printing the message (`…`: any text).

Exit 0 when they hold, 1 with one line per problem ("FILE:LINE: ...") otherwise.
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


# ---- 3. Examples that run ---------------------------------------------------------------------
# Every command quoted in README.md and docs/*.md that can run without a GPU is run, in page
# order, in a scratch folder where tests/, scripts/ and results/samples (and the other folders of
# results/) are the repository's; what an example writes stays in the scratch folder. Two forms:
#   ```sh blocks      each line starting with `arbench`, `scripts/nightly.sh` or
#                     `/usr/bin/python3 scripts/` is a command; it must exit 0 (or N, when the line
#                     ends with `# exit N`)
#   plain ``` blocks  a line `$ COMMAND` is a transcript: its output is the lines after it (up to
#                     the next `$` line or the block's end), and arbench's real output must have
#                     the same shape: each shown line, in order, with numbers, case names and
#                     run-dependent words (variant names, verdicts, yes/no) masked; `...` stands
#                     for any text (a whole line of `...`: any lines)
# Not run, and said why (--verbose): commands that need a GPU (`--backend cuda|single-gpu`,
# `topo` without `--sysfs-root`, or a comment that says `on the GPU box`), a launcher (`mpirun`,
# `srun`), or that set up and build (`scripts/run.sh`, `scripts/test.sh`); a block after
# `<!-- docs-run: skip REASON -->`.
# `<!-- docs-run: files NAME=PATH ... -->` before a block copies repository files into the scratch
# folder (a reader's own files, e.g. a rerun to compare). `run` commands that do not choose their
# sampling get `--samples 1 --warmup 0 --pipelined-ops 1`: the same output, a fraction of the time.

COMMAND = re.compile(r"^(arbench|scripts/nightly\.sh|/usr/bin/python3 scripts/|build/(release|ci)/arbench)\b")
DIRECTIVE = re.compile(r"^<!--\s*docs-run:\s*(skip|files)\s*(.*?)\s*-->\s*$")
SAMPLING = ("--samples", "--warmup", "--pipelined-ops", "--max-noise", "--min-samples", "--max-samples",
            "--min-time", "--max-time")
VOLATILE = {"slower", "faster", "same", "noisy", "failed", "yes", "no", "new", "-"}


def example_blocks(path):
    """(line, language, [(line, text)], directive) of each fenced block of a page."""
    blocks, directive, fence = [], None, None
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if fence is None:
            m = DIRECTIVE.match(stripped)
            if m:
                directive = (m.group(1), m.group(2))
            elif stripped.startswith("```"):
                fence = (number, stripped[3:].strip(), [], directive)
                directive = None
            elif stripped:
                directive = None
            continue
        if stripped.startswith("```"):
            blocks.append(fence)
            fence = None
            continue
        fence[2].append((number, line))
    return blocks


def split_comment(command):
    """`cmd  # note` -> (cmd, note); a `#` inside quotes is not a comment."""
    quote = None
    for i, c in enumerate(command):
        if c in "'\"":
            quote = None if quote == c else (quote or c)
        elif c == "#" and quote is None and (i == 0 or command[i - 1] == " "):
            return command[:i].rstrip(), command[i + 1:].strip()
    return command.rstrip(), ""


def why_not_run(command):
    if re.search(r"--backend[ =](cuda|single-gpu)", command):
        return "needs a GPU (--backend " + re.search(r"--backend[ =](\S+)", command).group(1) + ")"
    if re.match(r"arbench topo\b", command) and "--sysfs-root" not in command:
        return "needs a GPU (topo measures this machine's)"
    if re.match(r"(mpirun|srun)\b", command):
        return "needs a launcher"
    if re.match(r"scripts/(run|test|setup|build)\.sh\b", command):
        return "sets up and builds (the test runs the built arbench)"
    return ""


def shell_command(command):
    command = re.sub(r"^build/(release|ci)/arbench\b", "arbench", command)
    command = re.sub(r"--exe \S+", "--exe \"$ARBENCH_EXE\"", command)
    words = command.split()
    if words[:1] == ["arbench"] and (len(words) < 2 or words[1] in ("run",) or words[1].startswith("-")) and \
            "--help" not in words and "--version" not in words and not any(w.split("=")[0] in SAMPLING for w in words):
        command += " --samples 1 --warmup 0 --pipelined-ops 1"
    return command


def skeleton(line, variants):
    """A line with what changes from run to run masked: numbers, case names, variant names, verdicts."""
    out = []
    line = line.replace("regression(s)", "regression")
    line = re.sub(r"\(p [^)]*\)", "", line)
    for token in line.split():
        if "/" in token and ":" in token and not token.startswith(("http", "/")):
            out.append("C")
            continue
        bare = token.strip(",;:()[]`")
        if bare in variants or bare in VOLATILE:  # a word that varies as a number does
            out.append("N")
            continue
        out.append(re.sub(r"[-+]?\d+(\.\d+)?([eE][-+]?\d+)?", "N", token))
    return " ".join(out)


def matches(doc_line, actual, variants):
    want = skeleton(doc_line, variants)
    if "..." not in want:
        return want == actual
    pattern = ".*".join(re.escape(part.strip()) for part in want.split("..."))
    return re.fullmatch(pattern, actual) is not None


def check_shape(expected, output, variants):
    """The expected lines that the output lacks (in order), each (line number, text)."""
    actual = [skeleton(l, variants) for l in output.splitlines() if l.strip()]
    missing, at = [], 0
    for number, text in expected:
        if not text.strip() or text.strip() == "...":
            continue
        found = next((i for i in range(at, len(actual)) if matches(text, actual[i], variants)), None)
        if found is None:
            missing.append((number, text))
        else:
            at = found + 1
    return missing


def page_commands(path):
    """The commands of a page in order, with the scratch files each needs first: a list of
    (files, where, command, expected rc, expected output lines or None, why not run or "")."""
    found = []
    for start, language, lines, directive in example_blocks(path):
        files = directive[1].split() if directive and directive[0] == "files" else []
        commands = []  # [line, command, expected rc, expected output lines or None, comment]
        if language in ("sh", "bash", "shell"):
            for number, text in lines:
                command, note = split_comment(text.strip())
                if COMMAND.match(command):
                    m = re.match(r"exit (\d+)", note)
                    commands.append([number, command, int(m.group(1)) if m else 0, None, note])
        elif language == "":
            for number, text in lines:
                if text.startswith("$ "):
                    command, note = split_comment(text[2:].strip())
                    m = re.match(r"exit (\d+)", note)
                    commands.append([number, command, int(m.group(1)) if m else 0, [], note])
                elif commands:
                    commands[-1][3].append((number, text))
        for number, command, want_rc, expected, note in commands:
            why = why_not_run(command) or ("meant for the GPU box" if "GPU box" in note else "")
            if directive and directive[0] == "skip":
                why = directive[1] or "marked docs-run: skip"
            found.append((files, number, command, want_rc, expected, why))
            files = []  # copied once, before the block's first command
        if files:  # a block without commands still gets its files (a later block may use them)
            found.append((files, start, "", 0, None, "no command"))
    return found


def all_pages(root):
    readme = ["README.md"] if os.path.exists(os.path.join(root, "README.md")) else []
    return readme + [f"docs/{p}" for p in sorted(os.listdir(os.path.join(root, "docs"))) if p.endswith(".md")]


def example_pages(root):
    """The pages (relative to root) with at least one command that runs without a GPU: the ctest
    runs one entry per such page (tests/CMakeLists.txt), and its planted entry checks none is left out."""
    return [page for page in all_pages(root)
            if any(command and not why for _, _, command, _, _, why in page_commands(os.path.join(root, page)))]


MESSAGES = re.compile(r"^<!--\s*docs-run:\s*messages\s*-->\s*$")
CODE_CELL = re.compile(r"^(`+)\s?((?:(?!\1).)+?)\s?\1$")  # one code span, the whole cell
# A row's input that names a reader's own file or folder (DIR, r.json) is not run: it needs them.
OWN_FILE = re.compile(r"(^|\s)(DIR|FILE|[\w.-]+\.(json|so)|results/)(\s|$)")


def message_rows(path):
    """(line, input, message) of the rows of each table after `<!-- docs-run: messages -->` whose
    input and message are each one code span (the input: arguments of `arbench`, `run` implied)."""
    rows, state = [], None  # None, "before" (the directive seen), "in" (in its table)
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for number, line in enumerate(lines, 1):
        if MESSAGES.match(line.strip()):
            state = "before"
            continue
        if not line.startswith("|"):
            state = None if state == "in" or line.strip() else state
            continue
        if state is None:
            continue
        state = "in"
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) < 2:
            continue
        given, said = CODE_CELL.match(cells[0]), CODE_CELL.match(cells[1])
        if given and said and "…" not in given.group(2) and not OWN_FILE.search(given.group(2)):
            rows.append((number, given.group(2), said.group(2)))
    return rows


def check_messages(page, path, scratch, env):
    """Each message row's input run: exit 2 and the message (`…`: any text; spacing and line
    breaks aside) in what arbench printed. A row the program no longer answers so is a problem."""
    problems = []
    for number, given, said in message_rows(path):
        command = "arbench " + given
        try:
            r = subprocess.run(["bash", "-c", command], cwd=scratch, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=60)
            rc, output = r.returncode, r.stdout
        except subprocess.TimeoutExpired:
            rc, output = -1, "(still running after 60 s: the input was not refused)"
        flat = " ".join(output.split())
        want = said[len("arbench: error: "):] if said.startswith("arbench: error: ") else said
        pattern = ".*?".join(re.escape(" ".join(part.split())) for part in want.split("…"))
        if rc != 2 or not re.search(pattern, flat):
            problems.append(f"{page}:{number}: `{command}` (exit {rc}) no longer prints the message shown: {said}\n"
                            f"    it printed: {flat[-400:]}")
    return problems


def run_examples(root, exe, pages, verbose):
    import shutil
    import tempfile
    import time
    root = os.path.realpath(root)
    exe = os.path.realpath(exe)
    listing = subprocess.run([exe, "list", "--backend", "host"], capture_output=True, text=True).stdout
    # `#   <family>  <variant>  <summary>`; [ \t], not \s: a match must not run on into the next line
    variants = set(re.findall(r"^#[ \t]+allreduce\S*[ \t]+(\S+)[ \t]", listing, re.M)) | {"reference", "nccl"}
    if not {"oneshot-pull", "twoshot", "ring"} <= variants:
        return [f"check_docs: `arbench list --backend host` no longer lists the variants as expected; found {sorted(variants)}"]
    problems, ran, skipped = [], 0, []
    for page in pages:
        path = os.path.join(root, page)
        if not os.path.exists(path):
            problems.append(f"{page}: no such page")
            continue
        scratch = tempfile.mkdtemp(prefix="arbench-docs-")
        bindir = os.path.join(scratch, ".bin")
        os.makedirs(bindir)
        os.symlink(exe, os.path.join(bindir, "arbench"))
        for d in ("tests", "scripts", "docs"):
            os.symlink(os.path.join(root, d), os.path.join(scratch, d))
        os.makedirs(os.path.join(scratch, "results"))  # examples write results/...; the samples are the repository's
        for d in os.listdir(os.path.join(root, "results")):
            os.symlink(os.path.join(root, "results", d), os.path.join(scratch, "results", d))
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), CUDA_VISIBLE_DEVICES="",
                   ARBENCH_EXE=exe, ARBENCH_RESULTS_DIR=os.path.join(scratch, "nightly-results"))
        done = {}
        try:
            for files, number, command, want_rc, expected, why in page_commands(path):
                for pair in files:
                    name, _, src = pair.partition("=")
                    shutil.copy(os.path.join(root, src), os.path.join(scratch, name))
                where = f"{page}:{number}"
                if not command:
                    continue
                if why:
                    skipped.append(f"{where}: not run: {command} ({why})")
                    continue
                shell = shell_command(command)
                if shell not in done:
                    began = time.monotonic()
                    try:
                        r = subprocess.run(["bash", "-c", shell], cwd=scratch, env=env, stdout=subprocess.PIPE,
                                           stderr=subprocess.STDOUT, text=True, timeout=900)
                        done[shell] = (r.returncode, r.stdout)
                    except subprocess.TimeoutExpired:
                        done[shell] = (-1, "(timed out after 900 s)")
                    if verbose:  # as it happens: a slow example shows where the test's minutes go
                        print(f"{where}: {time.monotonic() - began:6.1f} s  {shell}", file=sys.stderr, flush=True)
                    ran += 1
                rc, output = done[shell]
                if rc != want_rc:
                    tail = "\n    ".join(output.strip().splitlines()[-6:])
                    problems.append(f"{where}: `{command}` exited {rc}, the page expects {want_rc}:\n    {tail}")
                    continue
                missing = check_shape(expected or [], output, variants)
                for line, text in missing:
                    problems.append(f"{page}:{line}: `{command}` no longer prints a line shaped like: "
                                    f"{text.strip()}")
                if missing:  # what it printed instead, so a failure far away (CI) can be read
                    problems.append(f"{where}: `{command}` printed:\n    " +
                                    "\n    ".join(output.rstrip().splitlines()[-60:]))
            problems += check_messages(page, path, scratch, env)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    if verbose:
        print(f"check_docs: {ran} example command(s) run", file=sys.stderr)
        for s in skipped:
            print(s, file=sys.stderr)
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--arbench", help="the arbench executable whose --help the user guide must cover")
    ap.add_argument("--run-examples", action="store_true",
                    help="also run the examples of README.md and docs/ with --arbench (section 3)")
    ap.add_argument("--pages", nargs="*", help="with --run-examples: these pages only (default: all)")
    ap.add_argument("--verbose", action="store_true",
                    help="with --run-examples: the seconds each example took, and which were not run, and why")
    ap.add_argument("--example-pages", action="store_true",
                    help="print the pages with an example that runs without a GPU, one a line, and exit")
    a = ap.parse_args()
    if a.example_pages:
        print("\n".join(example_pages(a.root)))
        return 0
    if a.run_examples:
        if not a.arbench:
            ap.error("--run-examples needs --arbench EXE")
        problems = run_examples(a.root, a.arbench, a.pages or all_pages(a.root), a.verbose)
    else:
        problems = check_links(a.root)
        if a.arbench:
            problems += check_options(a.root, a.arbench)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
