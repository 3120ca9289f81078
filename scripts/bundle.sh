#!/usr/bin/env bash
# Writes the relocatable bundle of the headless CLI and the Python module, for machines
# where TreeLens cannot be installed (a cluster without root; docs/cluster.md):
#   dist/treelens-VERSION-linux-x86_64.tar.gz
# holding one folder treelens-VERSION-linux-x86_64/ with
#   bin/treelens-cli            the CLI (run path $ORIGIN/../lib)
#   python/treelens/            the Python module (PYTHONPATH=<bundle>/python; run path $ORIGIN/../../lib)
#   lib/                        every library they load except glibc's: LibTorch, OpenBLAS (the
#                               file the libblas.so.3/liblapack.so.3 alternatives select, under
#                               those names), libstdc++, ICU, Link Grammar, ... (run path $ORIGIN),
#                               and libtreelens-bundle.so (installer/bundle/bundlepaths.c: points
#                               Link Grammar and the Python module at share/)
#   share/treelens/models/      the shipped models (resources/models), found beside bin/
#   share/treelens/samples/     the sample sentences
#   share/link-grammar/en/      Link Grammar's English dictionary (parse --parser link-grammar)
#   slurm/                      the Slurm job scripts of scripts/slurm (submit.sh, *.sbatch, cli.sh)
#   share/doc/treelens/         LICENSE, libraries.tsv (each library's Debian package and
#                               version) and the copyright file of each of those packages
#   README.txt                  what it needs (the minimum glibc, computed from the GLIBC_x.y
#                               symbol versions of every ELF file inside; the Python version)
# Extracted anywhere, bin/treelens-cli runs with an empty environment (env -i). The run paths
# are DT_RPATH (patchelf --force-rpath), not DT_RUNPATH: a cluster's LD_LIBRARY_PATH (module
# load gcc, openblas, ...) is searched after DT_RPATH and before DT_RUNPATH, so it cannot swap
# a bundled library for another build.
#   scripts/bundle.sh [--build DIR] [--out DIR] [--no-tar] [--keep-dir]
# --build DIR   a headless build (TREELENS_BUILD_GUI=OFF) to take the binaries from
#               (default build/ci-headless, which scripts/test.sh builds)
# --out DIR     where to write (default dist/)
# --no-tar      write only the folder OUT/treelens-VERSION-linux-x86_64/, no tarball
# --keep-dir    keep that folder next to the tarball (by default it is removed once packed)
# Prints the tarball's (or, with --no-tar, the folder's) path on stdout. Needs patchelf,
# objdump (binutils), a C compiler, ldd and dpkg (scripts/setup.sh installs them). Runs
# nothing from the network. The tarball is gzip -1 (268 MB in 11 s on 2 cores): gzip -6
# gives 260 MB in 27 s.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: scripts/bundle.sh [--build DIR] [--out DIR] [--no-tar] [--keep-dir]"
build=$root/build/ci-headless
out=$root/dist
tar=1
keep=0
while (($#)); do
  case $1 in
    --build) build=${2:?$usage}; shift ;;
    --out) out=${2:?$usage}; shift ;;
    --no-tar) tar=0 ;;
    --keep-dir) keep=1 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bundle: unknown argument '$1'; $usage" >&2; exit 2 ;;
  esac
  shift
done
say() { echo "bundle: $*" >&2; }
die() { say "$*"; exit 1; }
t_start=$(date +%s)

for tool in patchelf objdump ldd cc dpkg; do
  command -v "$tool" >/dev/null || die "$tool not found (scripts/setup.sh installs it)"
done
[[ $(uname -m) == x86_64 ]] || die "this script bundles for x86_64, not $(uname -m)"
build=$(cd "$build" 2>/dev/null && pwd) || die "no build folder $build (scripts/test.sh builds build/ci-headless)"
cli=$build/app/treelens-cli
[[ -x $cli ]] || die "$cli not found: build the headless preset first (cmake --build --preset ci-headless)"
if grep -q '^TREELENS_BUILD_GUI:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  die "$build is a GUI build: the bundle holds the headless CLI and module (a build with TREELENS_BUILD_GUI=OFF, e.g. build/ci-headless)"
fi
pymod=$(compgen -G "$build/python/treelens/_treelens.cpython-*-x86_64-linux-gnu.so" | head -n 1 || true)
[[ -n $pymod ]] || say "no Python module in $build/python/treelens: the bundle holds the CLI only"

version=$(sed -n 's/^project(TreeLens VERSION \([0-9][0-9.]*\).*/\1/p' "$root/CMakeLists.txt" | head -n 1)
[[ -n $version ]] || die "no 'project(TreeLens VERSION x.y.z' in $root/CMakeLists.txt"
name=treelens-$version-linux-x86_64
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$out/$name
rm -rf "$stage" "$out/$name.tar.gz"
mkdir -p "$stage"/{bin,lib,share/treelens,share/doc/treelens/copyright}

# glibc's own libraries stay out: the files of Debian's libc6 package (ld.so, libc, libm,
# libpthread, libdl, librt, libresolv, libutil, libnss_*, ...).
declare -A glibc=()
while read -r f; do glibc[${f##*/}]=1; done < <(dpkg -L libc6 | grep -E '/(ld-linux[^/]*|lib[^/]*\.so[.0-9]*)$')
((${#glibc[@]} > 5)) || die "dpkg -L libc6 lists no libraries"

# 1. The binaries, and the shim that finds share/ (installer/bundle/bundlepaths.c).
cp "$cli" "$stage/bin/treelens-cli"
if [[ -n $pymod ]]; then
  mkdir -p "$stage/python/treelens"
  cp "$pymod" "$build/python/treelens/"*.py "$stage/python/treelens/"
  cp "$build/python/treelens/"*.pyi "$build/python/treelens/py.typed" "$stage/python/treelens/" 2>/dev/null || true
fi
cc -O2 -shared -fPIC -Wall -Wextra -Werror -o "$stage/lib/libtreelens-bundle.so" \
  "$root/installer/bundle/bundlepaths.c" -llink-grammar

# 2. Every library they load, as the build machine's loader resolves them (ldd follows the
# whole tree), under the name they are asked for (libblas.so.3: the alternative's real file).
elves=("$stage/bin/treelens-cli" "$stage/lib/libtreelens-bundle.so")
[[ -z $pymod ]] || elves+=("$stage/python/treelens/${pymod##*/}")
declare -A want=()
for elf in "${elves[@]}"; do
  deps=$(env -u LD_LIBRARY_PATH -u LD_PRELOAD ldd "$elf") || die "ldd $elf failed"
  if grep -q 'not found' <<<"$deps"; then die "$elf: $(grep 'not found' <<<"$deps" | tr -s ' \t' ' ')"; fi
  while read -r soname arrow path _; do
    [[ $arrow == "=>" && $path == /* ]] || continue
    [[ -z ${glibc[$soname]:-} ]] || continue
    want[$soname]=$path
  done <<<"$deps"
done
for soname in "${!want[@]}"; do
  cp -L "${want[$soname]}" "$stage/lib/$soname"
done
chmod -R u+w "$stage/lib"
say "${#want[@]} libraries from the build machine, $(du -sh "$stage/lib" | cut -f1)"

# 3. Run paths: the binaries look in the bundle's lib/, each library beside itself; the
# binaries load the shim.
# shellcheck disable=SC2016  # $ORIGIN is for the loader, not the shell
origin='$ORIGIN'
patchelf --add-needed libtreelens-bundle.so "$stage/bin/treelens-cli"
patchelf --force-rpath --set-rpath "$origin/../lib" "$stage/bin/treelens-cli"
if [[ -n $pymod ]]; then
  patchelf --add-needed libtreelens-bundle.so "$stage/python/treelens/${pymod##*/}"
  patchelf --force-rpath --set-rpath "$origin/../../lib" "$stage/python/treelens/${pymod##*/}"
fi
for lib in "$stage"/lib/*; do
  patchelf --force-rpath --set-rpath "$origin" "$lib"
done

# 4. Data: the shipped models and samples (as the install rules of resources/ lay them out,
# share/treelens beside bin/), Link Grammar's English dictionary, the licences.
cp -r "$root/resources/models" "$stage/share/treelens/models"
rm -f "$stage/share/treelens/models/.gitkeep"
cp -r "$root/resources/samples" "$stage/share/treelens/samples"
lgdict=/usr/share/link-grammar/en
[[ -f $lgdict/4.0.dict ]] || die "$lgdict/4.0.dict not found (link-grammar-dictionaries-en)"
mkdir -p "$stage/share/link-grammar"
cp -rL "$lgdict" "$stage/share/link-grammar/en"
cp "$root/LICENSE" "$stage/share/doc/treelens/LICENSE"
# The Slurm scripts (docs/cluster.md): TREELENS=<this folder> slurm/submit.sh ... on a cluster.
mkdir -p "$stage/slurm"
cp "$root/scripts/slurm/cli.sh" "$root/scripts/slurm/submit.sh" "$root/scripts/slurm/"*.sbatch "$stage/slurm/"

# Each bundled library's Debian package (the name dpkg knows it by: /lib and /usr/lib are
# one folder on Debian 12, but dpkg records one of the two), its version and copyright.
manifest=$stage/share/doc/treelens/libraries.tsv
printf 'library\tdebian_package\tversion\tfrom\n' >"$manifest"
declare -A real=() owner=() pkgs=() pkgver=()
for soname in "${!want[@]}"; do real[$soname]=$(realpath "${want[$soname]}"); done
# One dpkg -S for all of them (per file it is ~0.1 s): "PACKAGE[:ARCH]: PATH" per known path.
while IFS= read -r line; do
  owner[${line#*: }]=${line%%: *}
done < <(for f in "${real[@]}"; do printf '%s\n' "$f" "${f/#\/usr\/lib\//\/lib\/}" "${f/#\/lib\//\/usr\/lib\/}"; done |
  sort -u | xargs dpkg -S 2>/dev/null || true)
while IFS=$'\t' read -r pkg ver; do pkgver[$pkg]=$ver; done < <(dpkg-query -W -f='${Package}\t${Version}\n' 2>/dev/null)
for soname in $(printf '%s\n' "${!want[@]}" | sort); do
  f=${real[$soname]}
  pkg=${owner[$f]:-${owner[${f/#\/usr\/lib\//\/lib\/}]:-${owner[${f/#\/lib\//\/usr\/lib\/}]:-}}}
  pkg=${pkg%%:*}
  [[ -z $pkg ]] || pkgs[$pkg]=1
  printf '%s\t%s\t%s\t%s\n' "$soname" "${pkg:--}" "${pkgver[$pkg]:--}" "$f" >>"$manifest"
done
printf 'libtreelens-bundle.so\t(TreeLens: installer/bundle/bundlepaths.c)\t%s\t-\n' "$version" >>"$manifest"
pkgs[link-grammar-dictionaries-en]=1
for pkg in "${!pkgs[@]}"; do
  pkgdoc=/usr/share/doc/${pkg%%:*}/copyright
  if [[ -f $pkgdoc ]]; then cp "$pkgdoc" "$stage/share/doc/treelens/copyright/${pkg%%:*}"; fi
done

# 5. The glibc it needs: the highest GLIBC_x.y symbol version any ELF file inside asks for.
glibc_min=$(find "$stage" -type f \( -name '*.so*' -o -path "$stage/bin/*" \) -print0 |
  xargs -0 objdump -T 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
[[ -n $glibc_min ]] || die "objdump -T found no GLIBC_ symbol versions"
needer=$(for f in "$stage"/bin/* "$stage"/lib/* ${pymod:+"$stage/python/treelens/${pymod##*/}"}; do
  # grep reads all (not -q): under pipefail an early exit makes objdump's SIGPIPE a failure.
  if objdump -T "$f" 2>/dev/null | grep "GLIBC_${glibc_min}[^.0-9]" >/dev/null; then echo "${f#"$stage"/}"; fi
done | head -n 3 | paste -sd, - | sed 's/,/, /g')
pyver=
if [[ -n $pymod ]]; then
  tag=${pymod##*cpython-}
  tag=${tag%%-*}
  pyver=${tag:0:1}.${tag:1}
fi
debver=$(cat /etc/debian_version 2>/dev/null || echo unknown)
torchver=$(dpkg-query -W -f='${Version}' libtorch1.13 2>/dev/null || dpkg-query -W -f='${Version}' libtorch-dev 2>/dev/null || echo unknown)
blas=$(realpath "${want[libblas.so.3]:-/dev/null}")

title="TreeLens $version for Linux x86_64: a relocatable bundle"
cat >"$stage/README.txt" <<EOF
$title
${title//?/=}

The headless treelens-cli${pymod:+ and the Python module}, with every library they load except
glibc's (built on Debian $debver; LibTorch $torchver, OpenBLAS from $blas).

Needs
  - Linux on x86_64 with glibc $glibc_min or newer: the highest GLIBC_x.y symbol version
    any file of this bundle asks for ($needer).
    Check with:  ldd --version | head -n 1
    An older glibc (CentOS 7: 2.17, RHEL/Rocky 8: 2.28, Ubuntu 20.04: 2.31) cannot run it:
    use the Apptainer container instead (docs/cluster.md of the sources,
    installer/apptainer/treelens.def).
  - nothing else: no root, no environment variables, no other libraries.
EOF
if [[ -n $pymod ]]; then
  cat >>"$stage/README.txt" <<EOF
  - for the Python module: CPython $pyver (the module is ${pymod##*/}) with NumPy.
EOF
fi
cat >>"$stage/README.txt" <<EOF

Use
  tar -xzf $name.tar.gz -C \$HOME
  \$HOME/$name/bin/treelens-cli --version
  \$HOME/$name/bin/treelens-cli analyze --json "The old man saw a red kite ."
Any folder will do, and it may be moved later: the binaries find their libraries and data
relative to themselves (run paths \$ORIGIN). On a Slurm cluster:
  export TREELENS=\$HOME/$name
  \$TREELENS/slurm/submit.sh analyze 16 corpus.conllu out
submits a 16-task job array and the job that merges its outputs into out/analyze.jsonl
(docs/cluster.md of the sources walks through it; slurm/submit.sh's header lists its options).
EOF
if [[ -n $pymod ]]; then
  cat >>"$stage/README.txt" <<EOF

Python
  PYTHONPATH=\$HOME/$name/python python$pyver -c 'import treelens; print(treelens.__version__)'
The module finds the shipped models in share/treelens/models (TREELENS_MODEL_DIR, when set,
wins). This is the headless module: treelens.render() is not available (it needs the GUI
build). Import treelens before other modules that load C++ libraries, so that this bundle's
libstdc++ is the one the process uses.
EOF
fi
cat >>"$stage/README.txt" <<EOF

Layout
  bin/treelens-cli          the CLI
  lib/                      the libraries (share/doc/treelens/libraries.tsv: each one's Debian
                            package and version; share/doc/treelens/copyright/: their licences)
  share/treelens/models/    the shipped models (the default model, the neural parsers, ...)
  share/link-grammar/en/    Link Grammar's English dictionary (parse --parser link-grammar)
  slurm/                    the Slurm job scripts (submit.sh, *.sbatch; TREELENS names this folder)
EOF
[[ -z $pymod ]] || echo "  python/treelens/          the Python module" >>"$stage/README.txt"
cat >>"$stage/README.txt" <<EOF

Notes
  - The libraries are found through DT_RPATH, which the loader searches before
    LD_LIBRARY_PATH: modules a cluster loads (gcc, openblas, ...) do not replace them.
  - Link Grammar reads words in a UTF-8 locale; it switches to C.UTF-8, which glibc has
    shipped since 2.35 (and RHEL/Rocky since 8).
  - The CPU build of LibTorch: --device cpu. For GPUs, build TreeLens against a CUDA LibTorch
    (docs/building.md of the sources).
EOF
say "glibc $glibc_min or newer (asked by $needer)"

if ((tar == 0)); then
  say "wrote $stage in $(($(date +%s) - t_start)) s ($(du -sh "$stage" | cut -f1))"
  echo "$stage"
  exit 0
fi
# 6. The tarball, written under a temporary name and renamed when complete.
tmp_tar=$(mktemp "$out/.$name.tar.gz.XXXXXX")
trap 'rm -f "$tmp_tar"' EXIT
tar -C "$out" --owner=0 --group=0 --numeric-owner -cf - "$name" | gzip -1 >"$tmp_tar"
chmod 644 "$tmp_tar"
mv "$tmp_tar" "$out/$name.tar.gz"
trap - EXIT
unpacked=$(du -sh "$stage" | cut -f1)
((keep)) || rm -rf "$stage"
say "wrote $out/$name.tar.gz in $(($(date +%s) - t_start)) s ($(du -h "$out/$name.tar.gz" | cut -f1); unpacked $unpacked)"
echo "$out/$name.tar.gz"
