#!/usr/bin/env bash
# Runs every test on a fresh machine: buf's checks of the gRPC contract, that the web page's
# committed bundle is current, Rust formatting, clippy, cargo tests, the release build of the
# server (the README's first command), then (with the virtual environment .venv, installed in
# the background meanwhile) builds the Python wheel (manylinux2014) and installs it there,
# smoke-tests it in a fresh venv without Rust, checks the Python with ruff and the _core stubs
# with stubtest, and runs pytest, including the gRPC end-to-end tests against the real
# checkraise-server binary and the web page's tests in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

# Builds here start from nothing on a fresh machine: incremental compilation only adds work
# to a clean build (its caches pay off on rebuilds). Set CARGO_INCREMENTAL=1 to keep it.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

# Each step says how long the command has run so far, so a slow step shows in CI's log.
step() { printf '\n==> [%dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

# The Python virtual environment (.venv) with the test dependencies installs in the
# background while the Rust steps below compile: mostly downloads and unpacking (a few GB,
# torch and jax among them) and compiling every module to bytecode (leaving that to the tests'
# first imports made pytest 1m49s slower on a fresh clone). uv (from PyPI, pinned) installs
# them: from its cache (~/.cache/uv) it links the unpacked files instead of unzipping every
# wheel again, 102 CPU seconds against pip's 191 for the same requirements, which the compiler
# beside it gets back. Its log is shown if it fails.
step "Python virtual environment (.venv): installing in the background"
mkdir -p target
VENV_LOG=target/venv-install.log
PY=${PYTHON:-python3}
(
  set -e
  if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
  fi
  .venv/bin/python -m pip install --quiet --upgrade pip uv==0.13.9
  .venv/bin/uv pip install --quiet --python .venv/bin/python --compile-bytecode \
    -r requirements-dev.txt
) >"$VENV_LOG" 2>&1 &
VENV_PID=$!
# A step that fails stops the installation too.
trap '[ -z "$VENV_PID" ] || { pkill -P "$VENV_PID"; kill "$VENV_PID"; } 2>/dev/null || true' EXIT

# Games behind a feature (a folder of crates/core/src/games named like a feature of the core
# crate, such as kuhn_poker): the Rust tests and clippy build them in, and the last step serves
# them through every face (Python, gRPC, the web page, the arena, VectorEnv) with the tests that
# take their games from the registry. The release artifacts have only the default games.
GAME_FEATURES=()
for dir in crates/core/src/games/*/; do
  name="$(basename "$dir")"
  if sed -n '/^\[features\]/,/^\[/p' crates/core/Cargo.toml | grep -Eq "^${name}[[:space:]]*="; then
    GAME_FEATURES+=("$name")
  fi
done
GAMES_FEATURES=""
for name in "${GAME_FEATURES[@]}"; do GAMES_FEATURES+=",checkraise-core/$name"; done
FEATURES="checkraise-grpc/parquet,checkraise-grpc/postgres$GAMES_FEATURES"

step "buf lint and buf breaking on the gRPC contract (proto/)"
# buf from npm (@bufbuild/buf ships the binary), installed once into .tools/.
BUF_VERSION=1.75.0
if ! command -v npm >/dev/null; then
  # Debian's npm (and node) when the machine has none.
  apt-get update -qq && apt-get install -y -qq npm >/dev/null
fi
if [ "$(.tools/node_modules/.bin/buf --version 2>/dev/null)" != "$BUF_VERSION" ]; then
  npm install --silent --no-audit --no-fund --prefix .tools "@bufbuild/buf@$BUF_VERSION"
fi
BUF=.tools/node_modules/.bin/buf
"$BUF" lint
# Additive changes only: against the previous commit, and against the last commit for
# changes not committed yet.
if git rev-parse --verify --quiet HEAD~1 >/dev/null; then
  "$BUF" breaking --against '.git#ref=HEAD~1,subdir=proto'
fi
"$BUF" breaking --against '.git#ref=HEAD,subdir=proto'

step "the web page's bundle (web/dist, embedded in checkraise-server) and the notebook widget's are current"
# Rebuilt from web/src and the locked packages (npm ci), then compared with the committed
# bundles (the page's, and the notebook widget's in python/checkraise/notebook, which the wheel
# carries), generated client and types of the published schemas: a change to the page, the proto
# or a view's or action struct's schema (docs/views/, docs/actions/) needs `npm run build` in web/.
npm ci --silent --no-audit --no-fund --prefix web
WEB_OUT="$(mktemp -d)"
(cd web && node_modules/.bin/buf generate -o "$WEB_OUT/generated" \
  && CHECKRAISE_SCHEMA_OUT="$WEB_OUT/schema" npm run --silent schema && npm run --silent typecheck \
  && CHECKRAISE_WEB_OUT="$WEB_OUT/dist" CHECKRAISE_WIDGET_OUT="$WEB_OUT/widget" npm run --silent bundle)
diff -rq "$WEB_OUT/generated/src/gen" web/src/gen \
  || { echo "web/src/gen is stale: run 'npm run build' in web/" >&2; exit 1; }
diff -rq "$WEB_OUT/schema" web/src/schema \
  || { echo "web/src/schema is stale: run 'npm run build' in web/" >&2; exit 1; }
diff -rq "$WEB_OUT/dist" web/dist \
  || { echo "web/dist is stale: run 'npm run build' in web/" >&2; exit 1; }
for file in widget.js widget.css; do
  cmp -s "$WEB_OUT/widget/$file" "python/checkraise/notebook/$file" \
    || { echo "python/checkraise/notebook/$file is stale: run 'npm run build' in web/" >&2; exit 1; }
done
rm -rf "$WEB_OUT"

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy -D warnings: the Python module's crate"
# The other crates are linted in the cargo test build below. This one (a cdylib for Python,
# which cargo test leaves out) is checked alone: only the engine's dependencies and pyo3's.
cargo clippy -p checkraise-py --all-targets --features "${GAMES_FEATURES#,}" -- -D warnings

step "PostgreSQL for the crash test and the balancer's test (Debian's postgresql package)"
# crates/grpc/tests/crash.rs and tests/test_haproxy.py start their own PostgreSQL server (initdb
# + pg_ctl in a temporary directory); they fail, never skip, when the binaries are missing.
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && [ -z "${CHECKRAISE_PG_BIN:-}" ]; then
  apt-get update -qq && apt-get install -y -qq postgresql >/dev/null
fi

step "cargo test, built by clippy's driver (clippy -D warnings on every target)"
# clippy's driver compiles the workspace's own crates (RUSTC_WORKSPACE_WRAPPER, with the
# arguments `cargo clippy -- -D warnings` would give it), so every target is linted in the one
# build the tests need: the dependencies compile once, where a separate `cargo clippy` checked
# all of them again (measured in docs/benchmarks.md). The driver compiles as rustc does but
# without rustc's MIR optimisations (LLVM still optimises at the test profile's level): these
# test binaries are not what ships; the release server and the wheel below, which pytest
# tests, are built by rustc alone.
# The coverage-guided runs are scripts/fuzz.sh (cargo-afl); here every committed input goes
# through each fuzz target as a test (crate checkraise-fuzz), so a crash found and fixed stays
# fixed. Unit, integration and doc tests; examples and benchmarks are built (and so linted),
# not run.
export RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
RUSTC_WORKSPACE_WRAPPER="$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver)"
CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
cargo test --workspace --exclude checkraise-py --features "$FEATURES" --all-targets --no-run
cargo test --workspace --exclude checkraise-py --features "$FEATURES" --lib --bins --tests
cargo test --workspace --exclude checkraise-py --features "$FEATURES" --doc
unset RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS

step "release build of checkraise-server (the README's first command)"
# The server pytest and the wheel's smoke test run against. Parquet export and PostgreSQL (the
# release tarball's optional features) were tested by cargo test above, whose build of the
# server has them: tests/test_export.py runs that one (CHECKRAISE_EXPORT_SERVER below). This
# build is the only one without the optional features, so a warning in it fails the test
# command, as clippy's -D warnings does for the build with them.
BUILD_LOG="$(mktemp)"
cargo build --release -p checkraise-grpc --bin checkraise-server 2>&1 | tee "$BUILD_LOG"
if grep -q '^warning' "$BUILD_LOG"; then
  echo "the server without the optional features builds with warnings (above)" >&2
  exit 1
fi
rm -f "$BUILD_LOG"

step "Python virtual environment (.venv): waiting for its installation, started at the beginning"
if ! wait "$VENV_PID"; then
  cat "$VENV_LOG" >&2
  echo "installing the Python test dependencies into .venv failed (log above)" >&2
  exit 1
fi
VENV_PID=

step "the wheel (manylinux2014, zig) installed into .venv, and its smoke test without Rust"
# The artifact users install, built as scripts/release.sh builds it but with the quick release
# profile (release.sh: dist, fat LTO): abi3, linked by zig against glibc 2.17's symbols. It
# replaces any `maturin develop` install, so pytest and stubtest below test the wheel, not
# python/ (whose stale _core.abi3.so develop builds leave). maturin finds zig as
# `python -m ziglang` with .venv's python first on PATH.
WHEEL_DIR=target/wheel
rm -rf "$WHEEL_DIR"
PATH="$PWD/.venv/bin:$PATH" .venv/bin/maturin build --release --zig --compatibility manylinux2014 \
  --quiet --out "$WHEEL_DIR"
WHEEL="$(ls "$WHEEL_DIR"/checkraise-*.whl)"
.venv/bin/python -m pip install --quiet --force-reinstall --no-deps "$WHEEL"
.venv/bin/python -c 'import checkraise, sys; f = checkraise.__file__; print("checkraise from", f)
sys.exit(0 if "site-packages" in f else f"checkraise is imported from {f}, not the wheel")'
# Tag, auditwheel, installed size; every game, bots, the arena and the client against the
# server built above, in a fresh venv where only the wheel (with its grpc extra) is installed
# and PATH has no cargo or rustc.
.venv/bin/python scripts/smoke_wheel.py "$WHEEL" --server "$PWD/target/release/checkraise-server"

step "ruff check, ruff format --check, stubtest of _core.pyi"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/python -m mypy.stubtest checkraise._core

step "Chromium for the web page's browser tests, HAProxy for the balancer's"
# Debian's chromium, driven by Playwright (tests/test_web.py); a missing browser fails the
# tests rather than skipping them.
if ! command -v chromium >/dev/null; then
  apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi
# openssl makes the self-signed certificate of the TLS test.
if ! command -v openssl >/dev/null; then
  apt-get update -qq && apt-get install -y -qq openssl >/dev/null
fi
# HAProxy (Debian's haproxy, 2.6) runs packaging/haproxy/haproxy.cfg in front of the server in
# tests/test_haproxy.py, on the PostgreSQL installed above; missing, the test fails saying so.
if ! command -v haproxy >/dev/null && [ ! -x /usr/sbin/haproxy ] && [ -z "${CHECKRAISE_HAPROXY:-}" ]; then
  apt-get update -qq && apt-get install -y -qq haproxy >/dev/null
fi

step "pytest"
# Two workers (pytest-xdist), each taking whole files, so a module's server fixture stays in
# one worker: many tests wait on a server, a browser or a subprocess, and the suite takes about
# two thirds of its one-worker time on the 2-core machine. The slowest tests are listed at the
# end, to see where the time goes.
# The servers on PostgreSQL behind HAProxy (tests/test_haproxy.py) are cargo test's build too:
# the release build has no PostgreSQL.
CHECKRAISE_SERVER="$PWD/target/release/checkraise-server" \
  CHECKRAISE_EXPORT_SERVER="$PWD/target/debug/checkraise-server" \
  CHECKRAISE_CLUSTER_SERVER="$PWD/target/debug/checkraise-server" \
  .venv/bin/python -m pytest -q -n 2 --dist loadfile --durations=15 tests

if [ ${#GAME_FEATURES[@]} -gt 0 ]; then
  step "games behind a feature (${GAME_FEATURES[*]}): every face, by the registry-driven tests"
  # A wheel built as the one above but with the game features (only the engine and the module
  # compile again), unpacked first on PYTHONPATH; the servers cargo test built (target/debug,
  # with the same features). Only the tests of these games run here: the others ran above
  # against the release artifacts. A game's own test file (tests/test_leduc_poker.py: the game
  # against OpenSpiel's) is listed here too; without its feature it skips itself, saying so.
  FEATURE_PY=target/feature-games/python
  rm -rf target/feature-games && mkdir -p "$FEATURE_PY"
  PATH="$PWD/.venv/bin:$PATH" .venv/bin/maturin build --release --zig --compatibility manylinux2014 \
    --quiet --out target/feature-games/wheel --features "${GAMES_FEATURES#,}"
  .venv/bin/python -m zipfile -e target/feature-games/wheel/checkraise-*.whl "$FEATURE_PY"
  SELECT="$(printf ' or %s' "${GAME_FEATURES[@]}")"
  PYTHONPATH="$PWD/$FEATURE_PY" .venv/bin/python -c "import checkraise as cr, sys
missing = set(sys.argv[1:]) - set(cr.game_names())
sys.exit(f'the module built with the features lacks {missing}' if missing else 0)" "${GAME_FEATURES[@]}"
  PYTHONPATH="$PWD/$FEATURE_PY" CHECKRAISE_SERVER="$PWD/target/debug/checkraise-server" \
    .venv/bin/python -m pytest -q -n 2 --dist loadfile -k "${SELECT# or }" \
    tests/test_python_games.py tests/test_python_vector.py tests/test_gymnasium.py \
    tests/test_gymnasium_vector.py tests/test_pettingzoo.py tests/test_arena.py tests/test_render.py \
    tests/test_views.py tests/test_grpc_matches.py tests/test_client.py tests/test_web.py \
    tests/test_leduc_poker.py tests/test_solve.py
fi

step "done"
