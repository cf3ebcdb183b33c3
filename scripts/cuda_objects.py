"""The device code nvcc already embedded in the build's objects, read without the CUDA tools.

An object nvcc compiled for `--generate-code=arch=compute_XX,code=[compute_XX,sm_XX]` carries a
fat binary (its `.nv_fatbin` section) with, per architecture, the PTX (compute_XX) and the cubin
(sm_XX) that ptxas made from it. kernel_resources.py and ptx_memory_ops.py read those instead of
compiling every kernel again: the build already paid for cicc and ptxas, and a second compile of
the fused kernels for two architectures took minutes. cuobjdump would read the same, but it is not
part of every toolkit install (the pip-installed CUDA 13 here has no cuobjdump), so this reads the
formats itself:

  fat binary: a 16-byte header (magic 0xBA55ED50, header size, payload size), then entries, each
  a header (kind 1 = PTX, 2 = ELF cubin; payload size at 8, compressed size at 16, arch at 28,
  flags at 40, uncompressed size at 56) and its payload. nvcc 13 compresses PTX with zstd (flag
  0x8000); cubins come uncompressed.
  cubin: an ELF whose `.nv.info` section holds per-function attributes (EIATTR_REGCOUNT,
  EIATTR_FRAME_SIZE: registers and stack frame), `.nv.info.<kernel>` the kernel's own
  (EIATTR_NUM_BARRIERS), `.nv.shared.<kernel>` its static shared memory; kernels carry
  STO_CUDA_ENTRY in their symbol's st_other.
"""
import ctypes
import ctypes.util
import os
import re
import shlex
import shutil
import struct
import subprocess

FATBIN_MAGIC = 0xBA55ED50
KIND_PTX, KIND_CUBIN = 1, 2
FLAG_ZSTD = 0x8000
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
STO_CUDA_ENTRY = 0x10
STT_FUNC = 2
SHT_SYMTAB, SHT_NOBITS = 2, 8
# EIATTR codes (format EIFMT_SVAL: u16 size, then u32 symbol index and u32 value)
EIATTR_FRAME_SIZE = 0x11
EIATTR_REGCOUNT = 0x2F
EIATTR_NUM_BARRIERS = 0x4C
# From sm_90 on (nvcc 13: sm_90 to sm_121 checked; not sm_75 to sm_89), a kernel's .nv.shared
# section starts with the 1 KB per block the system reserves; ptxas's "bytes smem" counts only
# the kernel's own (docs/variants.md's table, made from ptxas's report, holds the reader to that).
RESERVED_SMEM, RESERVED_SMEM_FROM = 1024, 90


class Unreadable(Exception):
    """The object's device code cannot be read (a missing object, not nvcc's, an unknown format)."""


class NoZstd(Unreadable):
    """The device code is zstd-compressed and neither libzstd nor the zstd command is here."""


def object_path(entry):
    """The object a compile_commands.json entry writes (its -o, relative to its directory); one
    older than its source would describe code that is gone, so that fails."""
    args = shlex.split(entry["command"]) if "command" in entry else entry["arguments"]
    obj = os.path.join(entry["directory"], args[args.index("-o") + 1])
    if os.path.exists(obj) and os.path.getmtime(obj) < os.path.getmtime(entry["file"]):
        raise Unreadable(f"{obj} is older than {entry['file']} (rebuild it)")
    return obj


def archs(command):
    """The real architectures (sm_XX numbers, ascending) a compile command builds code for."""
    return sorted(set(re.findall(r"code=\[?(?:compute_\d+,)?sm_(\d+)", command)), key=int)


_DEMANGLED = {}


def demangle(names):
    """{name: demangled} for these (mangled) names, by one c++filt for all not seen yet (a process
    per name cost seconds on a loaded machine); a name stays as it is without c++filt."""
    names = set(names)
    todo = sorted(names - set(_DEMANGLED))
    if todo:
        try:
            out = subprocess.run(["c++filt"], input="\n".join(todo) + "\n", capture_output=True, text=True,
                                 check=True).stdout.splitlines()
        except (OSError, subprocess.CalledProcessError):
            out = []
        _DEMANGLED.update(zip(todo, out if len(out) == len(todo) else todo))
    return {n: _DEMANGLED[n] for n in names}


def elf_sections(elf):
    """[{name, type, flags, info, data}] of a 64-bit little-endian ELF."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2:
        raise Unreadable("not a 64-bit ELF")
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    raw = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + k * shentsize) for k in range(shnum)]
    names = raw[shstrndx][4]
    out = []
    for name, typ, flags, _addr, off, size, link, info, _align, _entsize in raw:
        end = elf.index(b"\0", names + name)
        out.append({"name": elf[names + name:end].decode(), "type": typ, "flags": flags, "link": link,
                    "info": info, "size": size, "data": b"" if typ == SHT_NOBITS else elf[off:off + size]})
    return out


def _zstd(data, size):
    """zstd-decompressed data: libzstd through ctypes, else the zstd command."""
    path = ctypes.util.find_library("zstd")
    if path:
        lib = ctypes.CDLL(path)
        lib.ZSTD_decompress.restype = ctypes.c_size_t
        lib.ZSTD_decompress.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t]
        lib.ZSTD_isError.argtypes = [ctypes.c_size_t]
        dst = ctypes.create_string_buffer(size)
        n = lib.ZSTD_decompress(dst, size, data, len(data))
        if not lib.ZSTD_isError(n):
            return dst.raw[:n]
    if shutil.which("zstd"):
        p = subprocess.run(["zstd", "-d", "-c", "-q"], input=data, capture_output=True)
        if p.returncode == 0:
            return p.stdout
    raise NoZstd("zstd-compressed device code, and neither libzstd nor the zstd command is here")


def fatbin_entries(obj, kind):
    """{arch: payload} of the entries of one kind (KIND_PTX, KIND_CUBIN) in the fat binary of a host
    object nvcc wrote, uncompressed (only those: a cubin reader needs no zstd)."""
    if not os.path.exists(obj):
        raise Unreadable(f"{obj} does not exist (build its target first)")
    with open(obj, "rb") as f:
        host = f.read()
    out, found = {}, False
    for sec in elf_sections(host):
        if sec["name"] != ".nv_fatbin":
            continue
        data = sec["data"]
        i = data.find(struct.pack("<I", FATBIN_MAGIC))
        while 0 <= i <= len(data) - 16:  # containers, each maybe padded
            _magic, _version, head, size = struct.unpack_from("<IHHQ", data, i)
            p, end = i + head, i + head + size
            found = True
            while p < end:
                got, _, head_e, payload = struct.unpack_from("<HHIQ", data, p)
                packed, = struct.unpack_from("<I", data, p + 16)
                arch, = struct.unpack_from("<I", data, p + 28)
                flags, = struct.unpack_from("<Q", data, p + 40)
                unpacked, = struct.unpack_from("<Q", data, p + 56)
                body = data[p + head_e:p + head_e + payload]
                p += head_e + payload
                if got != kind:
                    continue
                if flags & FLAG_ZSTD or body[:4] == ZSTD_MAGIC:
                    body = _zstd(body[:packed or payload], unpacked)
                out[arch] = body.rstrip(b"\0") if kind == KIND_PTX else body
            i = data.find(struct.pack("<I", FATBIN_MAGIC), end)
    if not found:
        raise Unreadable(f"{obj} has no fat binary (not compiled by nvcc for a GPU?)")
    return out


def _eiattrs(data):
    """[(attr, value bytes)] of an .nv.info section: 4-byte records (format, attribute, then no
    value, a u8 and a pad byte, or a u16, by format 1, 2, 3), or format 4's u16 size and value."""
    out, p = [], 0
    while p + 4 <= len(data):
        fmt, attr = data[p], data[p + 1]
        if fmt in (1, 2, 3):
            out.append((attr, data[p + 2:p + 2 + fmt - 1]))
            p += 4
        elif fmt == 4:
            size, = struct.unpack_from("<H", data, p + 2)
            out.append((attr, data[p + 4:p + 4 + size]))
            p += 4 + size
        else:
            raise Unreadable(f"unknown .nv.info attribute format {fmt}")
    return out


def cubin_functions(cubin, arch):
    """[{function, entry, registers, barriers, smem, stack}] of every function in a cubin (what
    ptxas --resource-usage reports per function; registers None for a non-entry function)."""
    secs = elf_sections(cubin)
    symtab = next(s for s in secs if s["type"] == SHT_SYMTAB)
    strtab = secs[symtab["link"]]["data"]
    syms = []
    for k in range(len(symtab["data"]) // 24):
        name, info, other, _shndx, _value, _size = struct.unpack_from("<IBBHQQ", symtab["data"], 24 * k)
        syms.append((strtab[name:strtab.index(b"\0", name)].decode(), info & 0xF, other))
    regs, frames = {}, {}
    for attr, value in _eiattrs(next((s["data"] for s in secs if s["name"] == ".nv.info"), b"")):
        if attr in (EIATTR_REGCOUNT, EIATTR_FRAME_SIZE):
            sym, n = struct.unpack("<II", value)
            (regs if attr == EIATTR_REGCOUNT else frames)[syms[sym][0]] = n
    by_name = {s["name"]: s for s in secs}
    reserved = RESERVED_SMEM if arch >= RESERVED_SMEM_FROM else 0
    out = []
    for name, typ, other in syms:
        if typ != STT_FUNC or (name not in frames and f".text.{name}" not in by_name):
            continue  # ptxas reports every function it compiled: kernels, device functions, its own helpers
        entry = bool(other & STO_CUDA_ENTRY)
        own = dict(_eiattrs(by_name[f".nv.info.{name}"]["data"])) if f".nv.info.{name}" in by_name else {}
        shared = by_name[f".nv.shared.{name}"]["size"] - reserved if f".nv.shared.{name}" in by_name else 0
        out.append({"function": name, "entry": entry, "registers": regs.get(name) if entry else None,
                    "barriers": int.from_bytes(own.get(EIATTR_NUM_BARRIERS, b""), "little"),
                    "smem": max(0, shared), "stack": frames.get(name, 0)})
    return out
