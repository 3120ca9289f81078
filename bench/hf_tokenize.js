#!/usr/bin/env node
// Token ids, tokens and offsets of sentences as the official Rust-backed `tokenizers`
// library (npm package `tokenizers`) gives them for a folder's tokenizer.json, with the
// special tokens added (`encode(text)`): the ids the decoder reference tests and the
// decoder benchmark feed to bench/hf_eager.py. Optional: the package is looked up in
// bench/node_modules (scripts/setup-bench.sh installs it there) or on NODE_PATH; nothing
// is downloaded here.
//
//   node bench/hf_tokenize.js TOKENIZER.json [TEXTS.txt|-]  ->  one JSON object per line:
//   {"text", "input_ids", "tokens", "offsets"}; TEXTS has one sentence per line.
//
// Offsets: the library gives them in Unicode code points here (the fixture README's
// convention); a text outside the Basic Multilingual Plane checks that (see below).
'use strict';
const fs = require('fs');
const path = require('path');

function loadTokenizers() {
  const local = path.join(__dirname, 'node_modules', 'tokenizers');
  try {
    return require(local);
  } catch (e) {
    return require('tokenizers'); // NODE_PATH; throws "Cannot find module" when absent
  }
}

async function main() {
  const [tokenizerPath, textsPath = '-'] = process.argv.slice(2);
  if (!tokenizerPath) {
    process.stderr.write('usage: hf_tokenize.js TOKENIZER.json [TEXTS.txt|-]\n');
    process.exit(2);
  }
  const { Tokenizer } = loadTokenizers();
  const tokenizer = Tokenizer.fromFile(tokenizerPath);
  const input = fs.readFileSync(textsPath === '-' ? 0 : textsPath, 'utf8');
  const texts = input.split('\n').filter((line) => line.length > 0);
  for (const text of texts) {
    const enc = await tokenizer.encode(text);
    const out = { text, input_ids: enc.getIds(), tokens: enc.getTokens(), offsets: enc.getOffsets() };
    process.stdout.write(JSON.stringify(out) + '\n');
  }
}

main().catch((e) => {
  process.stderr.write(`hf_tokenize.js: ${e.message}\n`);
  process.exit(1);
});
