#!/usr/bin/env python3
"""scripts/check_catalogue.py against a small git repository made here (no network): a boundary
that holds is proven; a wrong pattern, a wrong or missing tag, a pattern the previous release
already has, and an entry whose first release no boundary proves are broken; a repository with
no clone is unprovable, naming the entry's docs page. Exit 0 when every case reads as expected."""
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKER = ROOT / "scripts" / "check_catalogue.py"


def git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(repo), "PATH": "/usr/bin:/bin"})


def make_repo(clones):
    repo = clones / "acme+lib"
    repo.mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / "src").mkdir()
    (repo / "src" / "plugin.c").write_text("int main() { return 0; }\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "one")
    git(repo, "tag", "v1.0.0")
    (repo / "src" / "plugin.c").write_text('const char* f = getenv("ACME_CONFIG_FILE");\n')
    git(repo, "commit", "-q", "-am", "two")
    git(repo, "tag", "v1.1.0")


def entry(eid, first, boundary, docs=""):
    ev = ", ".join(f'"{x}"' if i < 4 else f'R"({x})"' for i, x in enumerate(boundary))
    return (f'  k.push_back({{.id = "{eid}", .first = "{first}", .source = {{"{boundary[0]}", "x", "y"}},\n'
            f'               .evidence = {{{{{ev}}}}}' + (f', .docs_page = "{docs}"' if docs else "") + "});\n")


CASES = {  # id: (first, boundary, expected status, words the line must hold)
    "holds": ("1.1.0", ("acme/lib", "v1.1.0", "v1.0.0", "src/plugin.c", r'getenv\("ACME_CONFIG_FILE"\)'),
              "proven", "v1.0.0 does not"),
    "wrong_pattern": ("1.1.0", ("acme/lib", "v1.1.0", "v1.0.0", "src/plugin.c", r'getenv\("ACME_CONF_FILE"\)'),
                      "broken", "does not match"),
    "wrong_tag": ("1.1.0", ("acme/lib", "v1.1.1", "v1.0.0", "src/plugin.c", r"getenv"), "broken",
                  "tag v1.1.1 is not in the clone"),
    "not_a_boundary": ("1.0.0", ("acme/lib", "v1.0.0", "v1.0.0", "src/plugin.c", r"int main"), "broken",
                       "matches src/plugin.c /int main/ too"),
    "first_elsewhere": ("1.0.0", ("acme/lib", "v1.1.0", "v1.0.0", "src/plugin.c", r"getenv"), "broken",
                        "the entry's first release 1.0.0 is not the first tag of any boundary"),
    "no_clone": ("2.0.0", ("other/big", "v2.0.0", "v1.9.0", "a.py", r"x"), "unprovable",
                 "rests on docs page https://docs.example/v2.0.0/"),
}


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        clones = tmp / "clones"
        make_repo(clones)
        data = tmp / "knobs_test.cpp"
        data.write_text("void add(std::vector<Knob>& k) {\n" + "".join(
            entry(eid, first, b, "https://docs.example/v2.0.0/" if eid == "no_clone" else "")
            for eid, (first, b, _, _) in CASES.items()) + "}\n")
        r = subprocess.run([sys.executable, str(CHECKER), "--clones", str(clones), "--catalogue", str(data)],
                           capture_output=True, text=True, timeout=120)
        lines = {line.split()[1]: line for line in r.stdout.splitlines() if len(line.split()) > 1}
        failures = []
        for eid, (_, _, status, words) in CASES.items():
            line = lines.get(eid, "")
            if not line.startswith(status) or words not in line:
                failures.append(f"{eid}: expected {status} with '{words}', got: {line or '(no line)'}")
        if "6 entries: 1 proven, 4 broken, 1 unprovable" not in r.stdout:
            failures.append("summary: " + r.stdout.splitlines()[-1] if r.stdout else "no output: " + r.stderr)
        if r.returncode != 1:
            failures.append(f"exit status {r.returncode}, expected 1 (broken boundaries)")
        # Input the checker refuses: no such clones folder (exit 2, before any work).
        bad = subprocess.run([sys.executable, str(CHECKER), "--clones", str(tmp / "none")], capture_output=True,
                             text=True, timeout=60)
        if bad.returncode != 2 or "no such folder" not in bad.stderr:
            failures.append(f"--clones of a missing folder: exit {bad.returncode}, {bad.stderr.strip()}")
    for f in failures:
        print("FAIL", f)
    print("check_catalogue planted cases:", "ok" if not failures else f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
