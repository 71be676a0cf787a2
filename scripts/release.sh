#!/usr/bin/env bash
# Builds the release artifacts into dist/ (docs/release.md):
#   checkraise-VERSION-cp310-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
#       the Python package for CPython 3.10+ on x86_64 Linux with glibc 2.17 or later, built
#       with the dist profile (fat LTO) and zig as the linker against glibc 2.17's symbols;
#       `auditwheel show` confirms the tag;
#   checkraise-VERSION.tar.gz
#       the sdist (pip builds a wheel from it with a Rust toolchain);
#   checkraise-server-VERSION-x86_64-linux.tar.gz
#       checkraise-server (dist profile) with LICENSE, README.md, CHANGELOG.md, the systemd unit
#       and its settings file (packaging/);
#   SHA256SUMS
#       the artifacts' SHA-256 sums (`sha256sum -c SHA256SUMS` in dist/).
#
# scripts/release.sh --check also builds a wheel from the sdist with pip and runs
# scripts/smoke_wheel.py on both wheels (each in a fresh venv without Rust) against the
# tarball's server.
#
# Needs what scripts/test.sh sets up: a Rust toolchain and .venv with requirements-dev.txt
# (maturin, ziglang, auditwheel). CARGO_TARGET_DIR is honoured.
set -euo pipefail
cd "$(dirname "$0")/.."

CHECK=0
case "${1:-}" in
  "") ;;
  --check) CHECK=1 ;;
  *) echo "usage: scripts/release.sh [--check]" >&2; exit 2 ;;
esac

step() { printf '\n==> [%dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

if [ ! -x .venv/bin/maturin ] || ! .venv/bin/python -c 'import ziglang, auditwheel' 2>/dev/null; then
  echo "release.sh needs .venv with requirements-dev.txt installed (maturin, ziglang, auditwheel):" >&2
  echo "  python3 -m venv .venv && .venv/bin/pip install -r requirements-dev.txt" >&2
  exit 1
fi
# maturin finds zig as `python -m ziglang` with the python first on PATH.
export PATH="$PWD/.venv/bin:$PATH"
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
# Archive entries get the last commit's time, so the same commit gives the same tarball.
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"

rm -rf dist
mkdir -p dist

step "wheel: maturin build --profile dist --zig --compatibility manylinux2014"
maturin build --profile dist --zig --compatibility manylinux2014 --out dist
WHEEL="$(ls dist/checkraise-*.whl)"
auditwheel show "$WHEEL"

step "sdist: maturin sdist"
maturin sdist --out dist
SDIST="$(ls dist/checkraise-*.tar.gz)"

step "server: cargo build --profile dist -p checkraise-grpc --bin checkraise-server --features parquet,postgres"
cargo build --profile dist -p checkraise-grpc --bin checkraise-server --features parquet,postgres
SERVER_BIN="$TARGET_DIR/dist/checkraise-server"
VERSION="$("$SERVER_BIN" --version | awk '{print $2}')"
case "$WHEEL" in
  "dist/checkraise-$VERSION-"*) ;;
  *) echo "the wheel $WHEEL does not carry the server's version $VERSION" >&2; exit 1 ;;
esac
NAME="checkraise-server-$VERSION-x86_64-linux"
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
mkdir "$STAGE/$NAME"
install -m 0755 "$SERVER_BIN" "$STAGE/$NAME/checkraise-server"
install -m 0644 LICENSE README.md CHANGELOG.md packaging/checkraise-server.service \
  packaging/checkraise-server.env "$STAGE/$NAME/"
tar -C "$STAGE" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
  -cf - "$NAME" | gzip -9n > "dist/$NAME.tar.gz"
tar -tzvf "dist/$NAME.tar.gz"

step "SHA256SUMS"
(cd dist && sha256sum -- *.whl *.tar.gz > SHA256SUMS && cat SHA256SUMS)
ls -l dist

if [ "$CHECK" = 1 ]; then
  step "check: the tarball's server"
  tar -C "$STAGE" -xzf "dist/$NAME.tar.gz" --one-top-level=unpacked
  SERVER="$STAGE/unpacked/$NAME/checkraise-server"
  "$SERVER" --version

  step "check: smoke test of the wheel (fresh venv, no Rust)"
  .venv/bin/python scripts/smoke_wheel.py "$WHEEL" --server "$SERVER"

  step "check: a wheel built from the sdist (pip wheel, release profile)"
  pip_wheel_dir="$STAGE/sdist-wheel"
  .venv/bin/python -m pip wheel --no-deps --wheel-dir "$pip_wheel_dir" "$SDIST"
  SDIST_WHEEL="$(ls "$pip_wheel_dir"/checkraise-*.whl)"

  step "check: smoke test of the sdist's wheel (fresh venv, no Rust)"
  .venv/bin/python scripts/smoke_wheel.py "$SDIST_WHEEL" --server "$SERVER" \
    --tag cp310-abi3-linux_x86_64
fi

step "done: dist/"
