#!/usr/bin/env bash
# Encoder speed figures of docs/performance.md: the official Tree Transformer
# configuration (10 layers, d_model 512, 8 heads, d_ff 2048, vocabulary 16k,
# random weights), 40-word sentences, batch 1 and 64, on N threads, for the
# official operation sequence (reference) and TreeLens's fp32 and bf16 paths.
# Prints one JSON object per line. Usage: bench/encoder_bench.sh [CLI] [THREADS] [SECONDS]
set -euo pipefail
cli=${1:-build/dev/app/treelens-cli}
threads=${2:-1}
secs=${3:-5}
for batch in 1 64; do
  "$cli" bench --model random:official --words 40 --batch "$batch" --threads "$threads" --seconds "$secs" --official-ops --no-peak
  "$cli" bench --model random:official --words 40 --batch "$batch" --threads "$threads" --seconds "$secs" --onednn --no-peak
  "$cli" bench --model random:official --words 40 --batch "$batch" --threads "$threads" --seconds "$secs" --no-peak
  "$cli" bench --model random:official --words 40 --batch "$batch" --threads "$threads" --seconds "$secs" --precision bf16 \
    $([[ $batch == 64 ]] && echo "" || echo "--no-peak")
done
