"""Where the Python running this script has FlashInfer installed, without importing it (importing
flashinfer imports torch and may want a GPU; the headers arbench compiles against ship in the wheel
under flashinfer/data/include for FlashInfer's JIT). Prints one JSON object:

  {"package": DIR, "python": "python3.12 (/usr/bin/python3)", "version": "...", "commit": "...",
   "licences": [FILE, ...]}
  {"error": "why not"}

Run by cmake/ArbenchPeers.cmake (arbench_flashinfer_from_python); standard library only.
"""
import importlib.metadata
import importlib.util
import json
import os
import re
import sys

DIST = "flashinfer-python"  # the name FlashInfer's wheel is published under (its pyproject.toml)


def main():
    who = f"python{sys.version_info.major}.{sys.version_info.minor} ({sys.executable})"
    spec = importlib.util.find_spec("flashinfer")
    if spec is None or not spec.submodule_search_locations:
        print(json.dumps({"error": f"{who} has no flashinfer package"}))
        return
    package = os.path.abspath(list(spec.submodule_search_locations)[0])
    version, commit = "unknown", ""
    meta = os.path.join(package, "_build_meta.py")  # written by FlashInfer's build into the wheel
    if os.path.isfile(meta):
        text = open(meta, encoding="utf-8").read()
        m = re.search(r"^__version__\s*=\s*['\"]([^'\"]*)", text, re.M)
        version = m.group(1) if m else version
        m = re.search(r"^__git_commit__\s*=\s*['\"]([^'\"]*)", text, re.M)
        commit = m.group(1) if m else commit
    licences = []
    try:
        dist = importlib.metadata.distribution(DIST)
        if version == "unknown":
            version = dist.version
        for f in dist.files or []:
            name = os.path.basename(str(f))
            if name.startswith(("LICENSE", "NOTICE")) and ".dist-info" in str(f):
                licences.append(os.path.abspath(str(f.locate())))
    except importlib.metadata.PackageNotFoundError:
        pass  # an editable or copied package: the folder's own licence files, if any, are found by CMake
    print(json.dumps({"package": package, "python": who, "version": version, "commit": commit,
                      "licences": sorted(licences)}))


if __name__ == "__main__":
    main()
