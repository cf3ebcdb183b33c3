"""A kernel's PTX as a control-flow graph with source locations, for checks that follow paths.

scripts/round_trips.py uses it; it reads PTX text only (no CUDA tools). Per kernel entry:

  instructions  opcode, guard predicate, destination and source registers, and the source call
                chain of the `.loc` before it: innermost frame first, each (file, line, function),
                following nvcc's `inlined_at` out of every inlined function (-lineinfo);
  blocks        basic blocks (split at labels and after branches), with successors;
  loops         natural loops (a back edge u -> h where h dominates u), one per header, with
                their blocks and the instructions of their header and latches.

PTX registers are virtual and mostly written once; a register an inline-asm scope ({ .reg ...})
declares is renamed, so it cannot be confused with the function's register of the same name.
"""
import collections
import re

ENTRY = re.compile(r"^(?:\.visible\s+)?\.entry\s+([^\s(]+)\(")
FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]+)"')
LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)(?:,\s*function_name\s+(\$L__info_string\d+))?"
                 r"(?:,\s*inlined_at\s+(\d+)\s+(\d+)\s+(\d+))?")
LABEL = re.compile(r"^(\$?[\w$]+):\s*$")
INFO = re.compile(r"^(\$L__info_string\d+):\s*$")
REG = re.compile(r"%[A-Za-z_][\w]*")
GUARD = re.compile(r"^@(!?)(%\w+)\s+")
NO_DEST = ("st.", "bra", "ret", "exit", "bar.", "barrier", "membar", "fence", "red.", "prefetch", "trap", "call",
           "brkpt", "nanosleep", "cp.async")
SPECIAL = ("%tid", "%ntid", "%ctaid", "%nctaid", "%laneid", "%warpid", "%globaltimer", "%clock", "%smid", "%envreg")

Instr = collections.namedtuple("Instr", "index opcode guard dests srcs chain text")


class Entry:
    def __init__(self, name):
        self.name = name
        self.instrs = []
        self.labels = {}  # label -> index of the instruction after it
        self.blocks = []  # [(first, last)] instruction index ranges, inclusive
        self.succ = []
        self.block_of = []


def _split_operands(text):
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _regs(text, rename):
    return [rename.get(r, r) for r in REG.findall(text) if not r.startswith(SPECIAL)]


def _info_strings(lines):
    """{$L__info_stringN: mangled name} from the .debug_str section nvcc writes with -lineinfo."""
    out, cur, data = {}, None, []
    for line in lines:
        m = INFO.match(line.strip())
        if m:
            if cur:
                out[cur] = bytes(data).split(b"\0")[0].decode(errors="replace")
            cur, data = m.group(1), []
            continue
        s = line.strip()
        if cur and s.startswith(".b8"):
            data += [int(x) for x in s[3:].replace(",", " ").split()]
        elif cur and s and not s.startswith(".b8"):
            out[cur] = bytes(data).split(b"\0")[0].decode(errors="replace")
            cur = None
    if cur:
        out[cur] = bytes(data).split(b"\0")[0].decode(errors="replace")
    return out


def parse(ptx_text):
    """[Entry] of every kernel entry in the PTX, with instructions, blocks, successors."""
    lines = ptx_text.splitlines()
    files = {m.group(1): m.group(2) for m in map(FILE.match, lines) if m}
    infos = _info_strings(lines)
    entries = []
    cur = None
    depth = 0
    loc_of = {}  # (file, line, col) -> (function, inlined_at key or None): the last .loc seen there
    chain = ()
    rename, scope = {}, 0
    for line in lines:
        s = line.strip()
        m = ENTRY.match(s)
        if m:
            cur = Entry(m.group(1))
            entries.append(cur)
            depth, chain, loc_of, rename = 0, (), {}, {}
            continue
        if cur is None:
            continue
        if s.startswith("{"):  # a scope, alone on its line or opened before an instruction ("{add.f16x2 ...")
            depth += 1
            if depth > 1:
                scope += 1
            s = s[1:].strip()
            if not s:
                continue
        if s == "}":
            depth -= 1
            if depth == 1:
                rename = {}
            if depth == 0:
                cur = None
            continue
        if not s or s.startswith("//"):
            continue
        if s.startswith(".reg"):
            if depth > 1:  # an inline-asm scope's own registers
                for r in REG.findall(s.split(None, 2)[-1]):
                    rename[r] = f"{r}@{scope}"
            continue
        m = LOC.match(s)
        if m:
            if m.group(2) == "0":
                continue
            key = (files.get(m.group(1), "?"), int(m.group(2)), int(m.group(3)))
            fn = infos.get(m.group(4) or "", "")
            up = (files.get(m.group(5), "?"), int(m.group(6)), int(m.group(7))) if m.group(5) else None
            loc_of[key] = (fn, up)
            frames, k, seen = [], key, set()
            while k is not None and k not in seen:
                seen.add(k)
                f, u = loc_of.get(k, ("", None))
                frames.append((k[0], k[1], f))
                k = u
            chain = tuple(frames)
            continue
        if s.startswith("."):
            continue
        m = LABEL.match(s)
        if m:
            cur.labels[m.group(1)] = len(cur.instrs)
            continue
        body = s.split("//")[0].strip().rstrip(";").strip()
        if not body:
            continue
        g = GUARD.match(body)
        guard = None
        if g:
            guard = (g.group(1) == "!", rename.get(g.group(2), g.group(2)))
            body = body[g.end():]
        parts = body.split(None, 1)
        opcode, ops = parts[0], (_split_operands(parts[1]) if len(parts) > 1 else [])
        if opcode.startswith(NO_DEST) or not ops:
            dests, srcs = [], _regs(" ".join(ops), rename)
        else:
            dests, srcs = _regs(ops[0], rename), _regs(" ".join(ops[1:]), rename)
        if opcode.startswith("mov") and ops and ops[0].startswith("{"):
            pass  # unpack: {a, b} = src; dests already the braced registers
        if guard:
            srcs = srcs + [guard[1]]
        cur.instrs.append(Instr(len(cur.instrs), opcode, guard, dests, srcs, chain, body))
    for e in entries:
        _blocks(e)
    return entries


def _target(instr):
    return instr.text.split()[-1].rstrip(";") if instr.opcode.startswith("bra") else None


def _blocks(e):
    starts = {0} | set(e.labels.values())
    for i, ins in enumerate(e.instrs):
        if ins.opcode.startswith(("bra", "ret", "exit")):
            starts.add(i + 1)
    starts = sorted(s for s in starts if s < len(e.instrs))
    e.blocks = [(a, (starts[k + 1] if k + 1 < len(starts) else len(e.instrs)) - 1) for k, a in enumerate(starts)]
    first = {a: k for k, (a, _) in enumerate(e.blocks)}
    e.block_of = [0] * len(e.instrs)
    for k, (a, b) in enumerate(e.blocks):
        for i in range(a, b + 1):
            e.block_of[i] = k
    e.succ = []
    for k, (a, b) in enumerate(e.blocks):
        last = e.instrs[b]
        out = []
        if last.opcode.startswith("bra"):
            out.append(first[e.labels[_target(last)]])
            if last.guard is not None and k + 1 < len(e.blocks):
                out.append(k + 1)
        elif (not last.opcode.startswith(("ret", "exit")) or last.guard is not None) and k + 1 < len(e.blocks):
            out.append(k + 1)  # a guarded ret/exit falls through when its predicate is false
        e.succ.append(sorted(set(out)))


def dominators(e):
    """[set of blocks dominating block k] (iterative, on bit sets)."""
    n = len(e.blocks)
    preds = [[] for _ in range(n)]
    for k, ss in enumerate(e.succ):
        for s in ss:
            preds[s].append(k)
    full = (1 << n) - 1
    dom = [full] * n
    dom[0] = 1
    order = reverse_postorder(e)
    changed = True
    while changed:
        changed = False
        for k in order:
            if k == 0:
                continue
            d = full
            for p in preds[k]:
                d &= dom[p]
            d |= 1 << k
            if d != dom[k]:
                dom[k], changed = d, True
    return dom, preds


def reverse_postorder(e):
    seen, post = set(), []
    stack = [(0, iter(e.succ[0]))] if e.blocks else []
    seen.add(0)
    while stack:
        k, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            post.append(k)
            stack.pop()
        elif nxt not in seen:
            seen.add(nxt)
            stack.append((nxt, iter(e.succ[nxt])))
    return post[::-1]


Loop = collections.namedtuple("Loop", "header blocks latches")


def loops(e):
    """[Loop] natural loops, merged per header; and the set of back edges (u, h)."""
    dom, preds = dominators(e)
    reach = set(reverse_postorder(e))
    back = set()
    by_header = collections.defaultdict(set)
    for u, ss in enumerate(e.succ):
        if u not in reach:
            continue
        for h in ss:
            if dom[u] >> h & 1:
                back.add((u, h))
                by_header[h].add(u)
    out = []
    for h, latches in by_header.items():
        body, work = {h}, list(latches)
        while work:
            k = work.pop()
            if k in body or k not in reach:
                continue
            body.add(k)
            work += preds[k]
        out.append(Loop(h, frozenset(body), frozenset(latches)))
    return out, back
