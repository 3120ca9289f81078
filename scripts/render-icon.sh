#!/usr/bin/env bash
# Regenerates the PNG icon from the SVG source (needs librsvg2-bin).
set -euo pipefail
cd "$(dirname "$0")/.."
rsvg-convert -w 256 -h 256 resources/icons/org.treelens.TreeLens.svg -o resources/icons/org.treelens.TreeLens-256.png
