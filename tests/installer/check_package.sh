#!/usr/bin/env bash
# Builds the .deb and .tar.gz with CPack and checks what they contain.
# Usage: check_package.sh BUILD_DIR SOURCE_DIR GUI(ON|OFF)
set -euo pipefail
build=$1
src=$(cd "$2" && pwd)
gui=$3
cd "$build"
rm -rf _CPack_Packages treelens-*.deb treelens-*.tar.gz
cpack -G "DEB;TGZ" >cpack.log 2>&1 || { cat cpack.log; exit 1; }
deb=$(compgen -G "treelens*.deb" | head -1 || true)
tgz=$(compgen -G "treelens-*.tar.gz" | head -1 || true)
[[ -f $deb ]] || { echo "no .deb produced"; ls; exit 1; }
[[ -f $tgz ]] || { echo "no .tar.gz produced"; exit 1; }
contents=$(dpkg-deb -c "$deb")
need=(./usr/bin/treelens-cli ./usr/share/treelens/samples/sentences.txt)
for m in tree-transformer-en-small ggsa-en-wikiqa iggsa-en-wikiqa dependency-transformer-en-polarity dependency-transformer-en-trec dependency-transformer-en-rte tat-en-wikiqa dtt-edges-en-polarity tree-lstm-attention-en-rte; do
  if [[ -f $src/resources/models/$m.safetensors ]]; then
    need+=(./usr/share/treelens/models/$m.safetensors)
  fi
done
if [[ $gui == ON ]]; then
  need+=(./usr/bin/treelens
         ./usr/share/applications/org.treelens.TreeLens.desktop
         ./usr/share/metainfo/org.treelens.TreeLens.metainfo.xml
         ./usr/share/icons/hicolor/scalable/apps/org.treelens.TreeLens.svg
         ./usr/share/icons/hicolor/256x256/apps/org.treelens.TreeLens.png)
fi
for f in "${need[@]}"; do
  grep -q " $f\$" <<<"$contents" || { echo "missing in $deb: $f"; echo "$contents"; exit 1; }
done
# The package declares its library dependencies (dpkg-shlibdeps) and the runtime data.
depends=$(dpkg-deb -f "$deb" Depends)
for d in libtorch link-grammar-dictionaries-en libopenblas0-pthread; do
  grep -q "$d" <<<"$depends" || { echo "Depends lacks $d: $depends"; exit 1; }
done
tarlist=$(tar tzf "$tgz")
grep -q "bin/treelens-cli$" <<<"$tarlist" || { echo "tar.gz lacks bin/treelens-cli"; exit 1; }
if [[ $gui == ON ]]; then
  if command -v desktop-file-validate >/dev/null; then
    desktop-file-validate "$src/installer/org.treelens.TreeLens.desktop"
  else
    echo "note: desktop-file-validate not installed, .desktop not validated"
  fi
  if command -v appstreamcli >/dev/null; then
    appstreamcli validate --no-net "$src/installer/org.treelens.TreeLens.metainfo.xml"
  else
    echo "note: appstreamcli not installed, metainfo not validated"
  fi
fi
echo "package OK: $deb ($(du -h "$deb" | cut -f1)), $tgz"
