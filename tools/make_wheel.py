#!/usr/bin/env python3
"""Builds a platform wheel around the static firstfault binary, with the standard library
only (a wheel is a zip: PEP 427 / PEP 491).

    tools/make_wheel.py --binary BIN --arch x86_64|aarch64 --version V [--license F] --out DIR

The binary goes to firstfault-V.data/scripts/firstfault, which pip installs, executable,
into the environment's bin/ (as ruff and uv ship theirs): no Python runs at analysis time.
Tag py3-none-manylinux_2_28_<arch>: the binary is static and needs no glibc newer than 2.28
(tools/check_portable.sh checks it). Timestamps are fixed, so the same binary gives the same
wheel byte for byte.
"""
import argparse
import base64
import hashlib
import os
import stat
import sys
import zipfile

SUMMARY = ("Finds where a distributed GPU job (NCCL/PyTorch) failed, not just where it died: "
           "the root cause, the initiating rank and line, the fix. Local only.")


def record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--arch", required=True, choices=["x86_64", "aarch64"])
    ap.add_argument("--version", required=True)
    ap.add_argument("--license")
    ap.add_argument("--readme")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()

    name, ver = "firstfault", a.version
    tag = f"py3-none-manylinux_2_28_{a.arch}"
    dist_info = f"{name}-{ver}.dist-info"
    data_dir = f"{name}-{ver}.data"
    metadata = [
        "Metadata-Version: 2.1",
        f"Name: {name}",
        f"Version: {ver}",
        f"Summary: {SUMMARY}",
        "License: MIT",
        "Requires-Python: >=3.7",
        "Classifier: Environment :: Console",
        "Classifier: Operating System :: POSIX :: Linux",
        "Classifier: Topic :: System :: Logging",
    ]
    body = ""
    if a.readme:
        metadata.append("Description-Content-Type: text/markdown")
        with open(a.readme, encoding="utf-8") as f:
            body = f.read()
    meta = ("\n".join(metadata) + "\n\n" + body).encode()
    wheel = (f"Wheel-Version: 1.0\nGenerator: firstfault tools/make_wheel.py\n"
             f"Root-Is-Purelib: false\nTag: {tag}\n").encode()

    with open(a.binary, "rb") as f:
        exe = f.read()
    files = [(f"{data_dir}/scripts/{name}", exe, 0o755)]
    if a.license:
        with open(a.license, "rb") as f:
            files.append((f"{dist_info}/LICENSE", f.read(), 0o644))
    files += [(f"{dist_info}/METADATA", meta, 0o644), (f"{dist_info}/WHEEL", wheel, 0o644)]
    record_name = f"{dist_info}/RECORD"
    record = "".join(f"{p},{record_hash(d)},{len(d)}\n" for p, d, _ in files)
    record += f"{record_name},,\n"
    files.append((record_name, record.encode(), 0o644))

    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, f"{name}-{ver}-{tag}.whl")
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for p, d, mode in files:
            info = zipfile.ZipInfo(p, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix: the mode bits above are read
            z.writestr(info, d)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
