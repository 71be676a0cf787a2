#!/usr/bin/env python3
"""Regenerates the Python gRPC stubs committed under python/checkraise/v1/ from the contract
proto/checkraise/v1/checkraise.proto, with grpcio-tools (run it with the project's venv python).

    python scripts/gen_proto.py            # rewrite the committed stubs
    python scripts/gen_proto.py --out DIR  # write them under DIR/checkraise/v1/ instead

The proto is compiled with ``-Iproto``, so the modules are ``checkraise.v1.checkraise_pb2``
and ``checkraise.v1.checkraise_pb2_grpc`` and import each other by that package path.
tests/test_client.py regenerates into a temporary folder and checks that the committed files
are identical, so they cannot drift from the proto.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
PROTO = PROTO_ROOT / "checkraise" / "v1" / "checkraise.proto"
PACKAGE_ROOT = ROOT / "python"
GENERATED = (
    "checkraise_pb2.py",
    "checkraise_pb2.pyi",
    "checkraise_pb2_grpc.py",
)


def generate(out_root: Path) -> list[Path]:
    """Compiles the proto into ``out_root/checkraise/v1/``; returns the files written."""
    from grpc_tools import protoc

    out_root.mkdir(parents=True, exist_ok=True)
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"--python_out={out_root}",
        f"--pyi_out={out_root}",
        f"--grpc_python_out={out_root}",
        str(PROTO),
    ]
    code = protoc.main(args)
    if code != 0:
        raise RuntimeError(f"protoc failed (exit {code}): {' '.join(args)}")
    return [out_root / "checkraise" / "v1" / name for name in GENERATED]


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: regenerate into python/ (or --out)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=PACKAGE_ROOT,
        help="root to write checkraise/v1/ under (default: the package's python/ folder)",
    )
    options = parser.parse_args(argv)
    for path in generate(options.out.resolve()):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
