#!/usr/bin/env python3
"""Markdown summary of a `treelens-cli train` JSON-lines log (data, recipe,
loss and held-out MLM loss at every checkpoint). Usage: summarize_training_log.py LOG [EVERY]"""
import json, sys

log = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
every = int(sys.argv[2]) if len(sys.argv) > 2 else 500
events = [e for e in log if "event" in e]
rows = [e for e in log if "step" in e and "loss" in e and e.get("validation_loss", -1) >= 0]
print("# Training log summary\n")
for e in events:
    print(f"- {e['event']} at step {e['step']}")
if events:
    d = events[0]["data"]
    print(f"\nData: {d['sentences']} sentences, {d['words']} words ({', '.join(f'{k} {v}' for k, v in d['by_source'].items())}), "
          f"vocabulary {d['vocab_size']}, unknown-word rate {100 * d['unknown_rate']:.1f} %.\n")
print("| step | train MLM loss | masked-token accuracy | held-out MLM loss (EWT dev, 400 sentences) | lr | steps/s | elapsed (s) |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    if r["step"] % every == 0:
        print(f"| {r['step']} | {r['loss']:.3f} | {r['accuracy']:.3f} | {r['validation_loss']:.3f} | {r['lr']:.2e} | "
              f"{r['steps_per_s']:.2f} | {r['elapsed_s']:.0f} |")
