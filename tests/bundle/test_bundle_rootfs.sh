#!/usr/bin/env bash
# The relocatable bundle (scripts/bundle.sh) in a root file system that holds nothing but
# glibc: the files of Debian's libc6 package (dpkg -L libc6: ld.so, libc, libm, libpthread,
# ..., gconv) and the C.UTF-8 locale (libc-bin's; both are built from the glibc source
# package, and glibc has C.UTF-8 since 2.35: Link Grammar switches to it to read words beyond
# ASCII, and without it parses "naïve café" differently), with the bundle folder in /opt. No
# shell, no libstdc++, no LibTorch, no dictionaries, no models outside the bundle: whatever
# the bundle forgot is missing there.
#   tests/bundle/test_bundle_rootfs.sh BUILD_DIR
# In a private mount namespace (unshare -m; the mounts vanish with it) the kernel's /proc,
# /dev and /sys are mounted into the root, and `env -i chroot ROOT /opt/BUNDLE/bin/treelens-cli`
# runs --version, analyze --json (the shipped default model), parse (the shipped neural
# parsers) and parse --parser link-grammar --split (the bundled dictionary; running text with
# words beyond ASCII): each output must equal BUILD_DIR's treelens-cli's on this machine,
# byte for byte.
# Why not a debootstrap --variant=minbase root (docs/cluster.md, "How the bundle is tested"):
# debootstrap downloads Debian's packages at test time, and nothing may download at build or
# run time; and minbase holds Debian's Essential packages and apt besides glibc (libstdc++,
# zlib, liblzma, libgcc, ...), which would hide a library the bundle forgot. This root is the
# stricter one.
# The Python module is not run here (the root has no Python; test_bundle.sh runs it with
# env -i). Exit 77 (CTest: skipped) with "SKIPPED: why" when not root (chroot and mount need
# it), unshare/chroot/dpkg are missing, the kernel refuses a mount namespace, BUILD_DIR is a
# GUI build, or patchelf/objdump/a C compiler is missing. KEEP_BUNDLE_TEST=1 keeps the
# temporary folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
(($# == 1)) || { echo "usage: tests/bundle/test_bundle_rootfs.sh BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
cli=$build/app/treelens-cli
sentence="The old man saw a red kite ."
# Running text with words beyond ASCII: Link Grammar reads them right only in a UTF-8 locale.
text="The old man saw a red kite. The naïve café owner saw it too."
t_all=$(date +%s.%N)
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*" >&2; exit 1; }
secs() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}'; }

[[ -x $cli ]] || fail "$cli is not an executable"
if grep -q '^TREELENS_BUILD_GUI:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  skip "$build is a GUI build: the bundle is made from the headless one (ci-headless runs this test)"
fi
[[ $(id -u) == 0 ]] || skip "not root: chroot and mount need root"
for tool in unshare chroot mount dpkg patchelf objdump cc; do
  command -v "$tool" >/dev/null || skip "$tool not found"
done
unshare -m true 2>/dev/null || skip "unshare -m: no mount namespace here ($(unshare -m true 2>&1 | head -n 1))"
version=$(sed -n 's/^project(TreeLens VERSION \([0-9][0-9.]*\).*/\1/p' "$root/CMakeLists.txt" | head -n 1)
name=treelens-$version-linux-x86_64

tmp=$(mktemp -d "${TMPDIR:-/tmp}/treelens-rootfs.XXXXXX")
cleanup() {
  local rc=$?
  if [[ -n ${KEEP_BUNDLE_TEST:-} ]]; then echo "kept $tmp" >&2; else rm -rf "$tmp"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The bundle's folder (no tarball: test_bundle.sh tests that path).
t0=$(date +%s.%N)
bundle=$("$root/scripts/bundle.sh" --build "$build" --out "$tmp/dist" --no-tar 2>"$tmp/bundle.err") ||
  fail "scripts/bundle.sh --no-tar exited $?: $(cat "$tmp/bundle.err")"
[[ $bundle == "$tmp/dist/$name" && -x $bundle/bin/treelens-cli ]] || fail "bundle.sh printed '$bundle'"
echo "bundle.sh --no-tar: $(secs "$t0") s"

# The root: libc6's files (not its folders: they are made as needed), the C.UTF-8 locale,
# empty /proc /dev /sys /tmp, and the bundle (hard links when /tmp allows, else a copy).
t0=$(date +%s.%N)
r=$tmp/root
mkdir -p "$r"/{proc,dev,sys,tmp,opt}
chmod 1777 "$r/tmp"
files=0
while read -r f; do
  [[ -d $f ]] && continue  # folders (and /lib, a link to usr/lib here) are made as needed
  [[ -e $f || -L $f ]] || continue
  mkdir -p "$r$(dirname "$f")"
  cp -a "$f" "$r$f"
  files=$((files + 1))
done < <(dpkg -L libc6)
((files > 20)) || fail "dpkg -L libc6 gave $files files"
if [[ -d /usr/lib/locale/C.utf8 ]]; then
  mkdir -p "$r/usr/lib/locale"
  cp -a /usr/lib/locale/C.utf8 "$r/usr/lib/locale/"
fi
cp -al "$bundle" "$r/opt/$name" 2>/dev/null || cp -a "$bundle" "$r/opt/$name"
[[ -e $r/lib64/ld-linux-x86-64.so.2 ]] || fail "the root has no /lib64/ld-linux-x86-64.so.2"
# Nothing but glibc outside the bundle: no shell, no C++ runtime, no Link Grammar data.
for stray in bin/sh usr/bin/env; do [[ ! -e $r/$stray ]] || fail "the root has /$stray"; done
outside=$(find "$r" -path "$r/opt" -prune -o \( -name 'libstdc++*' -o -name 'libtorch*' -o -name 'libgomp*' -o -path '*/link-grammar*' \) -print)
[[ -z $outside ]] || fail "the root holds more than glibc: $outside"
echo "root: $files files of libc6 + C.UTF-8 ($(du -sh --exclude=opt "$r" | cut -f1)) + /opt/$name"
echo "root built: $(secs "$t0") s"

# Each command in the root, against the build's on this machine.
t0=$(date +%s.%N)
cases=("--version" "analyze --json" "parse" "parse --parser link-grammar --split")
# Inside the namespace: the kernel's file systems into the root, then the command in it.
chroot=$(command -v chroot)
# shellcheck disable=SC2016  # expanded by the inner bash
inner='r=$1 chroot=$2; shift 2; mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" && mount --rbind /sys "$r/sys" &&
  exec env -i "$chroot" "$r" "$@"'
for c in "${cases[@]}"; do
  read -ra args <<<"$c"
  case $c in --version) ;; *--split) args+=("$text") ;; *) args+=("$sentence") ;; esac
  unshare --mount --propagation private bash -c "$inner" _ "$r" "$chroot" "/opt/$name/bin/treelens-cli" "${args[@]}" \
    >"$tmp/root.out" 2>"$tmp/root.err" || fail "in the glibc-only root, treelens-cli $c exited $?: $(head -c 1500 "$tmp/root.err")"
  (cd / && env -i "$cli" "${args[@]}") >"$tmp/build.out" 2>/dev/null || fail "the build's treelens-cli $c exited $?"
  [[ -s $tmp/root.out ]] || fail "treelens-cli $c printed nothing in the root"
  cmp -s "$tmp/build.out" "$tmp/root.out" ||
    fail "treelens-cli $c: in the root the output differs from the build's: $(diff "$tmp/build.out" "$tmp/root.out" | head -c 600)"
done
echo "glibc-only root: ${#cases[@]} commands give the build's output ($(secs "$t0") s)"
echo "bundle_rootfs: passed in $(secs "$t_all") s"
