#!/usr/bin/env bash
# Makes the build context of packaging/container/Containerfile in target/container (or $2):
# rootfs/ with the server binary ($1) and the shared objects `ldd` says it loads, each at the
# path the binary looks for it, plus /tmp; data/, empty, for the /data volume.
#
#   packaging/container/stage.sh PATH/TO/checkraise-server [CONTEXT_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${1:?usage: packaging/container/stage.sh PATH/TO/checkraise-server [CONTEXT_DIR]}"
OUT="${2:-target/container}"
rm -rf "$OUT"
mkdir -p "$OUT/rootfs/usr/local/bin" "$OUT/rootfs/tmp" "$OUT/data"
chmod 1777 "$OUT/rootfs/tmp"
install -m 0755 "$BIN" "$OUT/rootfs/usr/local/bin/checkraise-server"
# Each `name => /path (0x...)` line, and the loader's own `/lib64/ld-linux-x86-64.so.2 (0x...)`;
# linux-vdso is the kernel's. Copied with their directories, links resolved.
ldd "$BIN" | awk '/=> \// { print $3 } /^[[:space:]]*\/[^ ]+ \(0x/ { print $1 }' | while read -r lib; do
  mkdir -p "$OUT/rootfs$(dirname "$lib")"
  cp -L "$lib" "$OUT/rootfs$lib"
done
if ldd "$BIN" | grep -q 'not found'; then
  echo "ldd cannot find a library of $BIN:" >&2
  ldd "$BIN" >&2
  exit 1
fi
"$BIN" --version
find "$OUT" -type f -printf '%P %s bytes\n' | sort
