#!/usr/bin/env python3
"""scripts/peer_waits.py on kernels shaped like the peers' (tests/fixtures/peer_waits/peer_shapes.cu,
compiled here for sm_90): each count as its rule gives it; each rule, broken, moves a count (a
check that can fail); a kernel no key maps fails the table (exit 1). Exit 77 without nvcc."""
import importlib
import os
import shutil
import subprocess
import sys
import tempfile

SRC = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../.."))
sys.path.insert(0, os.path.join(SRC, "scripts"))
import peer_waits  # noqa: E402
import ptx_flow  # noqa: E402

FIXTURE = os.path.join(SRC, "tests/fixtures/peer_waits")
EXPECTED = {
    "vllm-custom/2/1stage": 2,             # two barriers; the loads between them are no flag loads
    "flashinfer-pcie-ipc/4/unstaged": 1,   # four slots polled in a row, no store between: one wave
    "flashinfer-pcie-ipc/4/staged": 2,     # a volatile copy loop no branch waits on, two barriers (a "{add" scope between)
    "flashinfer-pcie-ipc/8/unstaged": 2,   # the owner's path: a poll, a store, a poll
    "flashinfer-fused/2/oneshot": 1,       # the grid's own counter is a local poll
}


def compile_fixture(tmp, *defines):
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not os.access(nvcc, os.X_OK):
        print("no nvcc: skipped")
        sys.exit(77)
    out = os.path.join(tmp, "shapes.ptx")
    subprocess.run([nvcc, f"-I{FIXTURE}", "-std=c++20", "-O3", "-lineinfo", "-arch=sm_90", "-ptx",
                    *[f"-D{d}" for d in defines], os.path.join(FIXTURE, "peer_shapes.cu"), "-o", out], check=True)
    return out


def counts(ptx):
    with open(ptx, encoding="utf-8") as f:
        return peer_waits.count([f.read()])


def main():
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        ptx = compile_fixture(tmp)
        table, unmapped = counts(ptx)
        if table != EXPECTED or unmapped:
            fails.append(f"counts {table} (unmapped {unmapped}), expected {EXPECTED}")
        # each rule broken must move a count
        plants = {
            "local polls counted as peer waits": ("LOCAL_POLLS", ()),
            "a store does not end a wave": ("is_store", lambda op: False),
            "every loop with a flag load a poll": ("poll_blocks", lambda e: set().union(
                *[loop.blocks for loop in ptx_flow.loops(e)[0]])),
        }
        for what, (name, planted) in plants.items():
            importlib.reload(peer_waits)
            setattr(peer_waits, name, planted)
            if counts(ptx)[0] == EXPECTED:
                fails.append(f"planted ({what}): no count moved")
            else:
                print(f"caught: {what}")
        importlib.reload(peer_waits)
        planted = compile_fixture(tmp, "PLANT_UNMAPPED")
        p = subprocess.run([sys.executable, os.path.join(SRC, "scripts/peer_waits.py"), "table", "--ptx", planted,
                            "--write-cpp", os.path.join(tmp, "t.cpp")], capture_output=True, text=True)
        if p.returncode != 1 or "mystery_all_reduce_kernel" not in p.stderr:
            fails.append(f"an unmapped kernel: exit {p.returncode}, stderr {p.stderr!r}")
        else:
            print("caught: a kernel no key maps")
        with open(os.path.join(tmp, "t.cpp"), encoding="utf-8") as f:
            if '{"vllm-custom/2/1stage", 2},' not in f.read():
                fails.append("--write-cpp: the table's rows are missing")
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
