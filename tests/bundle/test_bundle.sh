#!/usr/bin/env bash
# The relocatable bundle (scripts/bundle.sh; docs/cluster.md) end to end, from its tarball:
#   tests/bundle/test_bundle.sh BUILD_DIR
# 1. scripts/bundle.sh --build BUILD_DIR writes treelens-VERSION-linux-x86_64.tar.gz into a
#    temporary folder; it is extracted into a folder whose path has a space.
# 2. From another, empty directory and with an empty environment (env -i), the bundle's
#    bin/treelens-cli gives byte for byte what BUILD_DIR's treelens-cli gives for --version,
#    analyze --json (the shipped default model), parse (the shipped neural parsers) and
#    parse --parser link-grammar --split (the bundled dictionary; running text with words
#    beyond ASCII).
# 3. Under strace, those runs open nothing outside the bundle but glibc's libraries and
#    files (ld.so.cache, locale, gconv, nsswitch/passwd) and the kernel's /proc, /sys, /dev:
#    no model, dictionary or library of the build machine. (Skipped, saying so, without strace.)
# 4. ldd (under env -i) of bin/treelens-cli and the Python module: every library resolved
#    outside the bundle is one of glibc's (the files of Debian's libc6); any other is named.
# 5. An LD_LIBRARY_PATH holding broken copies of libstdc++ and LibTorch changes nothing (the
#    run paths are DT_RPATH, searched first).
# 6. The Python module from the bundle, env -i PYTHONPATH=BUNDLE/python /usr/bin/python3:
#    imported from the bundle, the shipped model found in the bundle, an analysis and a parse
#    equal to BUILD_DIR's module's; no library of the bundle mapped from elsewhere (bar those
#    python3 itself links).
# 7. Slurm: TREELENS=BUNDLE BUNDLE/slurm/submit.sh analyze, 2 shards on a private cluster
#    (scripts/slurm/local-cluster.sh): the merged output equals the bundle's unsharded run.
#    (Skipped, saying so, when the cluster cannot start.)
# Exit 77 (CTest: skipped) with "SKIPPED: why" when BUILD_DIR is a GUI build (the bundle is
# the headless one) or patchelf/objdump/a C compiler is missing (scripts/setup.sh installs
# them). KEEP_BUNDLE_TEST=1 keeps the temporary folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
(($# == 1)) || { echo "usage: tests/bundle/test_bundle.sh BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
cli=$build/app/treelens-cli
sentence="The old man saw a red kite ."
# Running text with words beyond ASCII: Link Grammar reads them right only in a UTF-8 locale.
text="The old man saw a red kite. The naïve café owner saw it too."
t_all=$(date +%s.%N)
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*" >&2; exit 1; }
secs() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}'; }
declare -a timing_names timing_secs
timed() { timing_names+=("$1"); timing_secs+=("$(secs "$2")"); }
report() {
  local i
  echo "timings (s):"
  for i in "${!timing_names[@]}"; do printf '  %-40s %6s\n' "${timing_names[$i]}" "${timing_secs[$i]}"; done
  printf '  %-40s %6s\n' total "$(secs "$t_all")"
}

[[ -x $cli ]] || fail "$cli is not an executable"
if grep -q '^TREELENS_BUILD_GUI:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  skip "$build is a GUI build: the bundle is made from the headless one (ci-headless runs this test)"
fi
for tool in patchelf objdump cc; do
  command -v "$tool" >/dev/null || skip "$tool not found (scripts/setup.sh installs it)"
done
version=$(sed -n 's/^project(TreeLens VERSION \([0-9][0-9.]*\).*/\1/p' "$root/CMakeLists.txt" | head -n 1)
name=treelens-$version-linux-x86_64

tmp=$(mktemp -d "${TMPDIR:-/tmp}/treelens-bundle.XXXXXX")
cluster=$tmp/cluster
cleanup() {
  local rc=$?
  [[ ! -d $cluster ]] || "$root/scripts/slurm/local-cluster.sh" stop "$cluster" >/dev/null 2>&1 || true
  if [[ -n ${KEEP_BUNDLE_TEST:-} ]]; then echo "kept $tmp" >&2; else rm -rf "$tmp"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 1. The tarball, extracted under a path with a space.
t0=$(date +%s.%N)
tarball=$("$root/scripts/bundle.sh" --build "$build" --out "$tmp/dist" 2>"$tmp/bundle.err") ||
  fail "scripts/bundle.sh exited $?: $(cat "$tmp/bundle.err")"
cat "$tmp/bundle.err"
[[ $tarball == "$tmp/dist/$name.tar.gz" && -f $tarball ]] || fail "bundle.sh printed '$tarball', not $tmp/dist/$name.tar.gz"
[[ ! -e $tmp/dist/$name ]] || fail "bundle.sh left its folder beside the tarball without --keep-dir"
timed "bundle.sh (folder + tar.gz)" "$t0"
t0=$(date +%s.%N)
mkdir -p "$tmp/some where" "$tmp/elsewhere"
tar -xzf "$tarball" -C "$tmp/some where"
[[ $(ls "$tmp/some where") == "$name" ]] || fail "the tarball holds $(ls "$tmp/some where"), not one folder $name"
b="$tmp/some where/$name"
for f in bin/treelens-cli README.txt share/treelens/models/tree-transformer-en-small.safetensors \
  share/link-grammar/en/4.0.dict share/doc/treelens/libraries.tsv lib/libtreelens-bundle.so slurm/submit.sh \
  slurm/cli.sh slurm/analyze-array.sbatch slurm/merge.sbatch; do
  [[ -e $b/$f ]] || fail "the bundle has no $f"
done
glibc_min=$(sed -n 's/.*with glibc \([0-9.]*\) or newer.*/\1/p' "$b/README.txt")
[[ -n $glibc_min ]] || fail "README.txt names no minimum glibc"
echo "bundle: $(du -h "$tarball" | cut -f1) tarball, $(du -sh "$b" | cut -f1) extracted, $(find "$b/lib" -type f | wc -l) libraries, glibc $glibc_min or newer"
timed "extract" "$t0"

# 2. The same output as the build's CLI, from another directory, with an empty environment.
cd "$tmp/elsewhere"
cases=("--version" "analyze --json" "parse" "parse --parser link-grammar --split")
t0=$(date +%s.%N)
for c in "${cases[@]}"; do
  read -ra args <<<"$c"
  case $c in --version) ;; *--split) args+=("$text") ;; *) args+=("$sentence") ;; esac
  env -i "$b/bin/treelens-cli" "${args[@]}" >"$tmp/bundle.out" 2>"$tmp/bundle.err" ||
    fail "env -i bundle/bin/treelens-cli $c exited $?: $(cat "$tmp/bundle.err")"
  env -i "$cli" "${args[@]}" >"$tmp/build.out" 2>/dev/null || fail "the build's treelens-cli $c exited $?"
  cmp -s "$tmp/build.out" "$tmp/bundle.out" || fail "treelens-cli $c: the bundle's output differs from the build's: $(diff "$tmp/build.out" "$tmp/bundle.out" | head -c 600)"
  [[ -s $tmp/bundle.out ]] || fail "treelens-cli $c printed nothing"
done
grep -qx "treelens-cli $version" <(env -i "$b/bin/treelens-cli" --version) || fail "--version does not say $version"
echo "env -i, from another directory: ${#cases[@]} commands give the build's output"
timed "env -i: 4 commands, bundle = build" "$t0"

# glibc's libraries: the files of Debian's libc6 (the list bundle.sh leaves out).
declare -A glibc=()
if command -v dpkg >/dev/null; then
  while read -r f; do glibc[${f##*/}]=1; done < <(dpkg -L libc6 | grep -E '/(ld-linux[^/]*|lib[^/]*\.so[.0-9]*)$')
else
  for f in ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libmvec.so.1 libpthread.so.0 libdl.so.2 librt.so.1 \
    libresolv.so.2 libutil.so.1 libanl.so.1 libnsl.so.1 libBrokenLocale.so.1 libthread_db.so.1 \
    libnss_files.so.2 libnss_dns.so.2 libnss_compat.so.2 libnss_hesiod.so.2 libc_malloc_debug.so.0; do glibc[$f]=1; done
fi
system_file_ok() { # PATH: a file outside the bundle that a glibc-only system has too
  case $1 in
    /proc/* | /sys/* | /dev/*) return 0 ;;
    /etc/ld.so.cache | /etc/ld.so.preload | /etc/nsswitch.conf | /etc/passwd | /etc/group | /etc/localtime | \
      /etc/host.conf | /etc/resolv.conf | /etc/hosts) return 0 ;;
    /usr/lib/locale/* | /usr/share/locale/locale.alias | /usr/lib/x86_64-linux-gnu/gconv/*) return 0 ;;
  esac
  [[ -n ${glibc[${1##*/}]:-} ]]
}

# 3. What the bundle's runs open outside the bundle.
t0=$(date +%s.%N)
if command -v strace >/dev/null; then
  for c in "${cases[@]:1}"; do
    read -ra args <<<"$c"
    if [[ $c == *--split ]]; then args+=("$text"); else args+=("$sentence"); fi
    env -i strace -f -qq -s 4096 -e trace=open,openat,execve -e status=successful -o "$tmp/trace" \
      "$b/bin/treelens-cli" "${args[@]}" >/dev/null 2>&1 || fail "strace treelens-cli $c exited $?"
    bad=$(sed -n 's/^[0-9]* *\(open\|openat\|execve\)(\(AT_FDCWD, \)\{0,1\}"\([^"]*\)".*/\3/p' "$tmp/trace" | sort -u |
      while read -r f; do
        [[ $f == "$b"/* ]] && continue
        system_file_ok "$f" || echo "$f"
      done)
    [[ -z $bad ]] || fail "treelens-cli $c opened files of the build machine outside the bundle: $(echo "$bad" | head -n 10 | paste -sd' ')"
  done
  echo "strace: the bundle's runs open nothing outside it but glibc's files and /proc, /sys, /dev"
  timed "strace: files opened" "$t0"
else
  echo "strace not found: the files-opened check (3) is skipped"
fi

# 4. ldd: outside the bundle, only glibc.
t0=$(date +%s.%N)
pymod=$(compgen -G "$b/python/treelens/_treelens.cpython-*.so" | head -n 1 || true)
for elf in "$b/bin/treelens-cli" ${pymod:+"$pymod"}; do
  deps=$(cd / && env -i /usr/bin/ldd "$elf") || fail "ldd ${elf#"$b"/} exited $?"
  ! grep -q 'not found' <<<"$deps" || fail "ldd ${elf#"$b"/}: $(grep 'not found' <<<"$deps" | tr -s ' \t' ' ')"
  # "SONAME => PATH (0xADDRESS)"; PATH may hold spaces (the bundle's does).
  foreign='' inside=0 outside=0
  while IFS= read -r line; do
    [[ $line =~ ^[[:space:]]*([^ ]+)\ =\>\ (/.*)\ \(0x[0-9a-f]+\)$ ]] || continue
    so=${BASH_REMATCH[1]} path=${BASH_REMATCH[2]}
    if [[ $path == "$b"/* ]]; then inside=$((inside + 1)); continue; fi  # BUNDLE/bin/../lib/...
    outside=$((outside + 1))
    [[ -n ${glibc[$so]:-} ]] || foreign+="${foreign:+, }$so => $path"
  done <<<"$deps"
  [[ -z $foreign ]] || fail "ldd ${elf#"$b"/}: libraries from the system that are not glibc's: ${foreign:0:2000}"
  ((inside > 100)) || fail "ldd ${elf#"$b"/}: only $inside libraries from the bundle"
  echo "ldd ${elf#"$b"/}: $inside libraries from the bundle, $outside from the system, all glibc's"
done
timed "ldd" "$t0"

# 5. A hostile LD_LIBRARY_PATH (a cluster's modules) does not replace the bundled libraries.
mkdir -p "$tmp/hostile"
: >"$tmp/hostile/libstdc++.so.6"
: >"$tmp/hostile/libtorch_cpu.so.1.13"
env -i LD_LIBRARY_PATH="$tmp/hostile" "$b/bin/treelens-cli" --version >/dev/null 2>"$tmp/hostile.err" ||
  fail "with LD_LIBRARY_PATH=broken copies the bundle fails: $(cat "$tmp/hostile.err")"
echo "LD_LIBRARY_PATH with broken libstdc++/LibTorch: the bundle still runs (DT_RPATH)"

# 6. The Python module.
if [[ -n $pymod && -x /usr/bin/python3 && -f $build/python/treelens/__init__.py ]]; then
  t0=$(date +%s.%N)
  cat >"$tmp/py.py" <<'PY'
import os, sys
import treelens
m = treelens.load_model(device="cpu")
a = m.analyze(["The old man saw a red kite ."])[0]
where = {"module": os.path.realpath(treelens.__file__), "model": os.path.realpath(m.path)}
print(a.to_json())
print(treelens.parse("The old man saw a red kite .")[0])
sys.stderr.write(repr(where) + "\n")
with open("/proc/self/maps") as f:
    fields = [line.rstrip("\n").split(None, 5) for line in f]
    maps = sorted({x[5] for x in fields if len(x) == 6 and ".so" in x[5]})
with open(sys.argv[1], "w") as f:
    f.write("\n".join([where["module"], where["model"]] + maps) + "\n")
PY
  env -i PYTHONPATH="$b/python" /usr/bin/python3 "$tmp/py.py" "$tmp/py-bundle.maps" >"$tmp/py-bundle.out" 2>"$tmp/py.err" ||
    fail "env -i PYTHONPATH=bundle/python python3: $(tail -n 5 "$tmp/py.err")"
  env -i PYTHONPATH="$build/python" /usr/bin/python3 "$tmp/py.py" "$tmp/py-build.maps" >"$tmp/py-build.out" 2>/dev/null ||
    fail "PYTHONPATH=$build/python python3 exited $?"
  cmp -s "$tmp/py-build.out" "$tmp/py-bundle.out" || fail "the bundle's Python module gives another analysis or parse than the build's"
  { read -r module; read -r model; } <"$tmp/py-bundle.maps"
  [[ $module == "$(realpath "$b")"/python/treelens/* ]] || fail "python imported treelens from $module, not the bundle"
  [[ $model == "$(realpath "$b")"/share/treelens/models/* ]] || fail "the Python module's default model is $model, not the bundle's"
  # Libraries of the bundle mapped from elsewhere: only those python3 itself links (loaded first).
  declare -A pyown=()
  while read -r so; do pyown[$so]=1; done < <(ldd /usr/bin/python3 | awk '{print $1}')
  foreign=$(tail -n +3 "$tmp/py-bundle.maps" | while read -r path; do
    so=${path##*/}
    [[ $path == "$(realpath "$b")"/* || -n ${glibc[$so]:-} || -n ${pyown[$so]:-} ]] && continue
    if [[ -e $b/lib/$so ]]; then echo "$path"; fi
  done)
  [[ -z $foreign ]] || fail "python3 mapped libraries of the bundle from the system: $(echo "$foreign" | paste -sd, -)"
  echo "Python: env -i PYTHONPATH=bundle/python imports the bundle's module, finds its model, = the build's module"
  timed "Python module" "$t0"
else
  echo "no Python module in the bundle or no /usr/bin/python3: the Python check (6) is skipped"
fi

# 7. Slurm with TREELENS=bundle.
t0=$(date +%s.%N)
rc=0
env_line=$("$root/scripts/slurm/local-cluster.sh" start "$cluster" 2>"$tmp/cluster.err") || rc=$?
if ((rc == 77)); then
  echo "Slurm check (7) skipped: $(tail -n 1 "$tmp/cluster.err")"
elif ((rc != 0)); then
  fail "local-cluster.sh start exited $rc: $(cat "$tmp/cluster.err")"
else
  eval "$env_line"
  corpus=$root/tests/data/probing/tiny.conllu
  env -i "$b/bin/treelens-cli" analyze --input "$corpus" --json --no-attention --device cpu --threads 1 \
    -o "$tmp/unsharded.jsonl" 2>"$tmp/unsharded.err" || fail "unsharded analyze: $(cat "$tmp/unsharded.err")"
  sub=$(env -u TREELENS_CLI TREELENS="$b" "$b/slurm/submit.sh" analyze 2 "$corpus" "$tmp/slurm-out" \
    --device cpu --threads 1 2>"$tmp/submit.err") || fail "submit.sh: $(cat "$tmp/submit.err")"
  ids=$(awk '$1 == "array" || $1 == "merge" {print $2}' <<<"$sub" | paste -sd, -)
  limit=$((SECONDS + 180))
  while [[ -n $(squeue -h -j "$ids" -o %i 2>/dev/null) ]]; do
    ((SECONDS < limit)) || fail "Slurm jobs $ids still queued after 180 s"
    sleep 0.5
  done
  cmp -s "$tmp/unsharded.jsonl" "$tmp/slurm-out/analyze.jsonl" ||
    fail "TREELENS=bundle on Slurm: the merged output differs from the unsharded run (logs: $(tail -n 5 "$tmp"/slurm-out/logs/* 2>/dev/null | head -c 800))"
  echo "Slurm: TREELENS=bundle, 2 shards + merge = the bundle's unsharded analyze"
  timed "Slurm: TREELENS=bundle, 2 shards" "$t0"
fi
echo "bundle: passed"
report
