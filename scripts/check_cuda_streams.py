#!/usr/bin/env python3
"""No CUDA work on the legacy default stream, and no unbounded waits in the fabrics.

The rank streams are created with cudaStreamNonBlocking, so they do not wait for the legacy
default stream: a cudaMemcpy or cudaMemset (or a kernel launched without a stream) may still be
in flight when the rank's next op reads its buffer. And cudaStreamSynchronize /
cudaDeviceSynchronize wait for ever on a kernel whose peer never arrives, so the fabrics
(kernels/) wait with a bound (kernels/fabric/cuda/stream_wait.hpp) instead.

  check_cuda_streams.py --root DIR    exit 1 naming file:line and the rule for each violation
"""
import argparse
import os
import re
import sys

LEGACY = re.compile(r"\bcuda(Memcpy|Memset|Memcpy2D|Memcpy3D|MemcpyToSymbol|MemcpyFromSymbol|MemcpyPeer|Memset2D)\s*\(")
UNBOUNDED = re.compile(r"\bcuda(DeviceSynchronize|StreamSynchronize|EventSynchronize)\s*\(")
LAUNCH = re.compile(r"<<<([^<>]*)>>>")


def code_lines(text):
    """Lines with // comments removed (string literals are rare enough here to ignore)."""
    for i, line in enumerate(text.splitlines(), 1):
        yield i, line.split("//", 1)[0]


def check_file(path, rel):
    out = []
    in_kernels = rel.startswith("kernels/")
    for i, line in code_lines(open(path, encoding="utf-8", errors="replace").read()):
        if LEGACY.search(line):
            out.append(f"{rel}:{i}: {LEGACY.search(line).group(0)[:-1]} runs on the legacy default stream, "
                       "which non-blocking rank streams do not wait for; use the Async form on the rank's stream")
        for m in LAUNCH.finditer(line):
            if len([a for a in m.group(1).split(",") if a.strip()]) < 4:
                out.append(f"{rel}:{i}: kernel launched without a stream (<<<{m.group(1)}>>>) runs on the legacy "
                           "default stream; pass the rank's stream")
        if in_kernels and UNBOUNDED.search(line):
            out.append(f"{rel}:{i}: {UNBOUNDED.search(line).group(0)[:-1]} waits without a bound; use "
                       "wait_stream (kernels/fabric/cuda/stream_wait.hpp)")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", required=True)
    a = ap.parse_args()
    found = []
    for top in ("kernels", "bench"):
        for dirpath, _, files in os.walk(os.path.join(a.root, top)):
            for f in sorted(files):
                if f.endswith((".cu", ".cuh", ".cpp", ".hpp")):
                    path = os.path.join(dirpath, f)
                    found += check_file(path, os.path.relpath(path, a.root))
    for p in found:
        print(p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
