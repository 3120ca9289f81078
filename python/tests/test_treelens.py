"""The Python module against the CLI (issue 36, docs/python.md): for the same sentences and
model, the arrays of ``Model.analyze`` agree with ``treelens-cli analyze --json`` within
1e-6; pairs, scores and metrics agree with ``score-pairs``/``eval-pairs``; a probing run
returns the CLI's report; ``render`` draws SVG that holds the words (PNG and PDF too);
errors are ``treelens.Error`` with the core's message; Ctrl+C cancels long work.

Run by CTest as ``python`` (PYTHONPATH=build/<preset>/python, TREELENS_CLI the built CLI).
"""
import json
import os
import signal
import subprocess
import threading
import time

import numpy as np
import pytest

import treelens

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.environ.get("TREELENS_TEST_DATA_DIR", os.path.join(ROOT, "tests", "data"))
CLI = os.environ.get("TREELENS_CLI", os.path.join(ROOT, "build", "ci", "app", "treelens-cli"))
MODELS = os.path.join(ROOT, "resources", "models")
TINY = os.path.join(DATA, "probing", "tiny.conllu")
GOLD = os.path.join(DATA, "conformance", "gold.conllu")
PAIRS = os.path.join(DATA, "conformance", "pairs.tsv")
HAS_GUI = os.environ.get("TREELENS_HAS_GUI", "1").lower() in ("1", "on", "true", "yes")


def cli(*args):
    r = subprocess.run([CLI, *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def cli_json_lines(*args):
    return [json.loads(line) for line in cli(*args).splitlines() if line.strip()]


def close(array, nested, what):
    expected = np.asarray(nested, dtype=np.float64)
    assert array is not None, what + ": None"
    assert array.shape == expected.shape, "%s: shape %s, the CLI's %s" % (what, array.shape, expected.shape)
    assert np.max(np.abs(array.astype(np.float64) - expected)) <= 1e-6, what


def test_import_and_version():
    assert treelens.__version__
    assert issubclass(treelens.Error, RuntimeError)


def test_read_write_sentences():
    sents = treelens.read_corpus(GOLD)
    assert len(sents) == 2
    s = sents[0]
    assert s.has_dependency and len(s.heads) == len(s.words)
    text = s.conllu()
    rows = [line.split("\t") for line in text.splitlines() if line and line[0].isdigit()]
    assert [r[1] for r in rows] == s.words and [int(r[6]) for r in rows] == s.heads
    assert treelens.write_corpus(sents, "conllu").count("\n\n") == 2
    split = treelens.sentences("Dogs bark. Cats sleep.")
    assert [x.words for x in split] == [["Dogs", "bark", "."], ["Cats", "sleep", "."]]
    lines = treelens.sentences("Dogs bark. Cats sleep.\nBirds sing.", split=False)  # a sentence per line
    assert [len(x) for x in lines] == [6, 3]
    # In a list, each string is one sentence: the analyses match the list.
    m = treelens.load_model(device="cpu")
    got = m.analyze(["He left at 3 p.m. Then it rained.", "Hello world!  How are you?", "ok"], attention=False)
    assert [len(a.words) for a in got] == [9, 7, 1]
    with pytest.raises(treelens.Error, match="one sentence"):
        m.analyze(["two\nlines"])


def test_parse_equals_cli_parse():
    parsed = treelens.parse("The old man saw a red kite. It flew away.")
    assert len(parsed) == 2 and all(p.has_dependency and p.has_constituency for p in parsed)
    cli_out = cli("parse", "--split", "--format", "conllu", "The old man saw a red kite. It flew away.")
    cli_heads = [[int(line.split("\t")[6]) for line in block.splitlines() if line and line[0].isdigit()]
                 for block in cli_out.strip().split("\n\n")]
    assert [p.heads for p in parsed] == cli_heads
    ptb = parsed[0].ptb()
    assert ptb.startswith("(") and "kite" in ptb
    tree = parsed[0].constituency
    assert str(tree) == ptb and tree.words == parsed[0].words
    assert ("NP", 0, 3) in tree.spans()  # "The old man"
    dep = parsed[0].dependency
    assert dep.heads == parsed[0].heads and len(dep.arcs()) == len(parsed[0].words)
    assert str(dep).splitlines()[2].split("\t")[:2] == ["3", "man"]


@pytest.mark.parametrize("model,needs", [
    ("tree-transformer-en-small", ["attention", "attention_raw", "constituent_prior", "link_probs", "embedding"]),
    ("dependency-transformer-en-polarity", ["attention", "attention_raw"]),
])
def test_analyze_agrees_with_cli_json(model, needs):
    path = os.path.join(MODELS, model + ".safetensors")
    expected = cli_json_lines("analyze", "--json", "--input", TINY, "--model", path)
    m = treelens.load_model(path, device="cpu")
    assert m.info["family"] == expected[0]["family"]
    got = m.analyze(treelens.read_corpus(TINY))
    assert len(got) == len(expected) == 30
    for a, e in zip(got, expected):
        assert a.tokens == e["tokens"]
        assert (a.layers, a.heads) == (e["layers"], e["heads"])
        for key in needs:
            attr = {"constituent_prior": "prior"}.get(key, key)
            close(getattr(a, attr), e[key], "%s %s" % (model, key))
        if "prediction" in e:
            assert a.prediction["label"] == e["prediction"]["label"]
            for label, p in zip(e["prediction"]["labels"], e["prediction"]["probabilities"]):
                assert abs(a.prediction["probabilities"][label] - p) <= 1e-6
        for name, g in e.get("gates", {}).items():
            assert list(a.gates[name].shape) == g["shape"], name
            close(a.gates[name].reshape(-1), g["data"], "gate " + name)
        if "induced_tree" in e:
            assert str(a.induced_tree) == e["induced_tree"]
    # One matrix without a copy: a view of the analysis' memory, read-only.
    a = got[0]
    view = a.matrix("attention", 1, 2)
    assert not view.flags.writeable and not view.flags.owndata
    np.testing.assert_array_equal(view, a.attention[1, 2])


def test_analyze_pairs_agrees_with_cli():
    path = os.path.join(MODELS, "ggsa-en-wikiqa.safetensors")
    expected = cli_json_lines("analyze", "--json", "--pairs", PAIRS, "--model", path)
    m = treelens.load_model(path, device="cpu")
    with pytest.raises(treelens.Error, match="pairs"):
        m.analyze("The old man saw a red kite .")
    corpus = treelens.read_pairs(PAIRS)
    got = m.analyze_pairs(corpus)
    assert len(got) == len(expected) == len(corpus)
    for a, e in zip(got, expected):
        close(a.attention, e["attention"], "ggsa attention")
        close(a.second.attention, e["second"]["attention"], "ggsa second attention")
        assert a.second.tokens == e["second"]["tokens"]
        assert abs(a.prediction["score"] - e["prediction"]["score"]) <= 1e-6
        for name, g in e.get("gates", {}).items():
            assert list(a.gates[name].shape) == g["shape"], name
            close(a.gates[name].reshape(-1), g["data"], "gate " + name)


def test_scores_and_metrics_agree_with_cli():
    path = os.path.join(MODELS, "ggsa-en-wikiqa.safetensors")
    corpus = treelens.read_pairs(PAIRS)
    scores = treelens.load_model(path, device="cpu").score_pairs(corpus)
    rows = [line.split("\t") for line in cli("score-pairs", "--model", path, "--input", PAIRS).splitlines()[1:]]
    assert scores["qid"] == [r[0] for r in rows]
    np.testing.assert_allclose(scores["score"], [float(r[3]) for r in rows], atol=1e-6)
    metrics = treelens.evaluate_pairs(corpus, scores)
    report = json.loads(cli("eval-pairs", "--model", path, "--input", PAIRS, "--json"))
    overall = report["overall"]
    for key in ("map", "mrr", "p_at_1"):
        assert abs(metrics[key] - overall[key]) <= 1e-9, key
    assert metrics["questions_used"] == overall["questions"]
    idf = treelens.score_pairs_idf(corpus)
    idf_rows = [line.split("\t") for line in cli("score-pairs", "--model", "idf-overlap", "--input", PAIRS).splitlines()[1:]]
    np.testing.assert_allclose(idf["score"], [float(r[3]) for r in idf_rows], atol=1e-6)


def test_probe_returns_the_cli_report():
    report = treelens.probe("sentlen,structural-depth", train=GOLD, test=GOLD, epochs=1)
    expected = json.loads(cli("probe", "--task", "sentlen,structural-depth", "--train", GOLD, "--test", GOLD, "--epochs",
                              "1", "--json"))
    for r in (report, expected):
        r.pop("timing", None)
        r.pop("command", None)
    assert report == expected


def test_errors_are_treelens_errors():
    with pytest.raises(treelens.Error, match="no-such-model"):
        treelens.load_model("/no-such-model.safetensors")
    with pytest.raises(treelens.Error):
        treelens.read_corpus("/no/such/file.conllu")
    with pytest.raises(TypeError):
        treelens.probe("sentlen", train=GOLD, bogus=1)


def test_a_forward_that_throws_is_a_treelens_error(tmp_path):
    """Errors in one place (issue 44): the BERT reference folder with its tokenizer giving the
    text token type 7 (the model has 2): the forward's embedding lookup throws inside LibTorch,
    and the module raises treelens.Error naming the model and the sentence (tests/faultymodel.h
    makes the same folder for the C++ tests)."""
    source = os.path.join(ROOT, "..", "shared", "fixtures", "hf-transformers-reference", "bert-tiny-random")
    if not os.path.isdir(source):
        pytest.skip("SKIPPED: ../shared/fixtures/hf-transformers-reference not found (the Hugging Face fixture)")
    folder = tmp_path / "bert-faulty"
    folder.mkdir()
    for name in ("config.json", "model.safetensors", "tokenizer_config.json", "vocab.txt"):
        (folder / name).write_bytes(open(os.path.join(source, name), "rb").read())
    tokenizer = json.load(open(os.path.join(source, "tokenizer.json")))
    for piece in tokenizer["post_processor"]["single"]:
        if "Sequence" in piece:
            piece["Sequence"]["type_id"] = 7
    (folder / "tokenizer.json").write_text(json.dumps(tokenizer))
    m = treelens.load_model(str(folder), device="cpu")
    # Both sentences go in one batch (sorted by length): the message names the batch's sentences.
    with pytest.raises(treelens.Error, match=r"bert-faulty, analyze, sentences? [0-9, ]+(\(one batch\))?: the computation failed \(index out of range") as e:
        m.analyze(treelens.read_corpus(GOLD))
    assert "internal error" not in str(e.value)


def test_ctrl_c_cancels_long_work():
    m = treelens.load_model(device="cpu", threads=1)
    many = treelens.read_corpus(TINY) * 400  # 12,000 sentences: far longer than the interrupt's delay
    timer = threading.Timer(0.5, lambda: signal.pthread_kill(threading.main_thread().ident, signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        m.analyze(many, batch_size=16, attention=False)
    timer.join()
    # Stopped midway: the run finished only some of its batches (not all, then the interrupt).
    done, total = treelens._core._last_work()
    assert total == 12000 and done < total


def test_one_model_from_two_threads():
    m = treelens.load_model(device="cpu", threads=1)
    sents = treelens.read_corpus(TINY)
    alone = m.analyze(sents)
    results = [None, None]

    def run(k):
        results[k] = m.analyze(sents)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        for a, b in zip(r, alone):
            np.testing.assert_array_equal(a.attention, b.attention)


def test_arrays_are_kept_and_read_only():
    a = treelens.load_model(device="cpu").analyze("The old man saw a red kite .")[0]
    assert a.attention is a.attention  # made once
    assert not a.attention.flags.writeable and not a.prior.flags.writeable
    with pytest.raises(ValueError):
        a.attention[0, 0, 0, 0] = 1.0
    assert a.induced_tree == a.induced_tree and a.induced_tree != None  # noqa: E711 (== with None is allowed)


def test_hugging_face_folder_agrees_with_cli():
    folder = os.path.join(ROOT, "..", "shared", "fixtures", "hf-transformers-reference", "bert-tiny-random")
    if not os.path.isdir(folder):
        pytest.skip("SKIPPED: ../shared/fixtures/hf-transformers-reference not found (the Hugging Face fixture)")
    expected = cli_json_lines("analyze", "--json", "--input", GOLD, "--model", folder)
    got = treelens.load_model(folder, device="cpu").analyze(treelens.read_corpus(GOLD))
    assert len(got) == len(expected) == 2
    for a, e in zip(got, expected):
        assert a.tokens == e["tokens"] and a.pieces == e["pieces"]
        close(a.attention, e["attention"], "bert attention")
        close(a.piece_attention, e["piece_attention"], "bert piece attention")


def test_node_attention_and_relations_agree_with_cli():
    dtt = os.path.join(MODELS, "dtt-edges-en-polarity.safetensors")
    e = cli_json_lines("analyze", "--json", "--input", GOLD, "--model", dtt)[0]
    a = treelens.load_model(dtt, device="cpu").analyze(treelens.read_corpus(GOLD))[0]
    nodes = e["node_attention"]
    assert len(a.node_attention) == len(nodes) > 0
    for got, want in zip(a.node_attention, nodes):
        assert got["node"] == want["node"] and got["targets"] == want["targets"]
        for w_got, w_want in zip(got["weights"], want["weights"]):
            close(w_got, w_want, "node attention")
    dep = os.path.join(MODELS, "dependency-transformer-en-polarity.safetensors")
    e = cli_json_lines("analyze", "--json", "--input", GOLD, "--model", dep)[0]
    a = treelens.load_model(dep, device="cpu").analyze(treelens.read_corpus(GOLD))[0]
    close(a.attention_relation, e["attention_relation"], "relation attention")
    close(a.mean_embedding, e["mean_embedding"], "mean embedding")


@pytest.mark.skipif(not HAS_GUI, reason="built without the GUI (TREELENS_BUILD_GUI=OFF): no views")
def test_render_draws_the_words():
    assert "dependency" in treelens.views() and "constituency" in treelens.views()
    m = treelens.load_model(device="cpu")
    a = m.analyze(treelens.parse("The old man saw a red kite."))[0]
    for view in ("constituency", "dependency", "prior"):
        svg = treelens.render(a, view=view, layer=2, head=1)
        assert svg.lstrip().startswith("<?xml") or "<svg" in svg[:400], view
        if view != "prior":
            for word in ("old", "man", "kite"):
                assert word in svg, (view, word)
    png = treelens.render(a, view="dependency", format="png", dpi=72)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pdf = treelens.render(a, view="constituency", format="pdf")
    assert pdf[:5] == b"%PDF-"
    assert "kite" in a._repr_svg_()
    with pytest.raises(treelens.Error, match="head 9"):
        treelens.render(a, view="dependency", head=9)
    dep = treelens.load_model(os.path.join(MODELS, "dependency-transformer-en-polarity.safetensors"), device="cpu")
    with pytest.raises(treelens.Error, match="prior"):
        treelens.render(dep.analyze(treelens.read_corpus(GOLD))[0], view="prior")
    assert "kite" in treelens.render(treelens.parse("The old man saw a red kite.")[0], view="constituency")


def test_typed_text_is_parsed_as_the_cli_parses_it():
    # Issue 47, item 5: a string's analysis had no trees ("the parser gave none" in render).
    m = treelens.load_model(device="cpu")
    a = m.analyze("The old man saw a red kite.")[0]
    s = treelens.parse("The old man saw a red kite.")[0]
    assert a.sentence.heads == s.heads and a.sentence.deprels == s.deprels
    assert a.sentence.ptb() == s.ptb()
    # Each string of a list is one sentence, parsed.
    mixed = m.analyze(["Cats sleep .", "The old man saw a red kite ."])
    assert mixed[0].sentence.heads and mixed[1].sentence.heads == s.heads
    if HAS_GUI:
        svg = treelens.render(a, view="dependency", layer=2, head=1)
        assert "kite" in svg and "layer 3" in svg.lower().replace("\n", " ")


DECODERS = os.path.join(ROOT, "..", "shared", "fixtures", "hf-decoders-reference")


def reference_word_surprisal(sentence, words):
    """Per word, -(sum of the reference's next-token log-probabilities of its pieces), from
    expected.json alone: piece t (t >= 1) has log p(ids[t] | ids[..t]) = next_token_logprobs[t - 1];
    a piece belongs to the word whose characters its offsets cover (a byte-level piece's span may
    start with the space before the word); a word holding the sequence's first piece has no
    prediction (NaN); the BOS ([0, 0] in front) belongs to no word. A piece that is only the space
    before a word (trimmed offsets make its span empty, [s, s]) belongs to the word after it, as an
    untrimmed space does."""
    starts, pos = [], 0
    for w in words:
        starts.append(pos)
        pos += len(w) + 1
    out = [0.0] * len(words)
    for t, (s, e) in enumerate(sentence["offsets"]):
        if s == e and t == 0:
            continue
        first = s
        while first < len(sentence["text"]) and sentence["text"][first] == " ":
            first += 1
        w = max(k for k, start in enumerate(starts) if start <= first)
        out[w] += float("nan") if t == 0 else -sentence["next_token_logprobs"][t - 1]
    return np.array(out)


@pytest.mark.parametrize("folder", ["gpt2", "pythia", "llama2", "llama3", "qwen2", "qwen3", "gemma"])
def test_decoder_surprisal_sums_the_reference_logprobs(folder, tmp_path):
    path = os.path.join(DECODERS, folder + "-tiny-random")
    if not os.path.isdir(path):
        pytest.skip("SKIPPED: ../shared/fixtures/hf-decoders-reference not found (the decoder fixtures)")
    with open(os.path.join(path, "expected.json"), encoding="utf-8") as f:
        sentences = [s for s in json.load(f)["sentences"] if "  " not in s["text"] and s["text"].strip() == s["text"]]
    assert sentences
    # The reference's texts as CoNLL-U words split at single spaces: TreeLens joins them back into the same text.
    conllu = tmp_path / "ref.conllu"
    with open(conllu, "w", encoding="utf-8") as f:
        for k, s in enumerate(sentences):
            words = s["text"].split(" ")
            f.write("# sent_id = ref-%d\n# text = %s\n" % (k + 1, s["text"]))
            for i, w in enumerate(words):
                f.write("%d\t%s\t_\t_\t_\t_\t%d\tdep\t_\t_\n" % (i + 1, w, i))
            f.write("\n")
    model = treelens.load_model(path, device="cpu")
    got = model.analyze(treelens.read_corpus(str(conllu)))
    expected_json = cli_json_lines("analyze", "--json", "--no-attention", "--input", str(conllu), "--model", path)
    for a, s, e in zip(got, sentences, expected_json):
        words = s["text"].split(" ")
        ref = reference_word_surprisal(s, words)
        assert a.causal and e["causal"]
        np.testing.assert_allclose(a.surprisal, ref, atol=2e-5, err_msg=folder + ": " + s["text"])
        cli_values = np.array([np.nan if v is None else v for v in e["surprisal"]])
        np.testing.assert_allclose(cli_values, ref, atol=2e-5, err_msg=folder + " (CLI): " + s["text"])
        assert abs(a.logprob - s["sentence_logprob"]) <= 2e-5


def write_pairs_tsv(path, sentences):
    """A good/bad TSV of consecutive sentences as pairs (sentence k good, k + 1 bad); returns the path."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("good\tbad\tphenomenon\n")
        for a, b in zip(sentences, sentences[1:]):
            f.write("%s\t%s\tfixture\n" % (a["text"], b["text"]))
    return path


def write_words_conllu(path, text):
    """One CoNLL-U sentence whose words are `text` split at single spaces (TreeLens joins them
    back into the same text); returns the path."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("# sent_id = ref-1\n# text = %s\n" % text)
        for i, w in enumerate(text.split(" ")):
            f.write("%d\t%s\t_\t_\t_\t_\t%d\tdep\t_\t_\n" % (i + 1, w, i))
        f.write("\n")
    return path


def reference_pairs(folder):
    """The fixture's sentences as minimal pairs (sentence k good, sentence k+1 bad), the texts
    without runs of spaces, with their reference log-probabilities and ablation entries."""
    with open(os.path.join(folder, "expected.json"), encoding="utf-8") as f:
        sentences = [s for s in json.load(f)["sentences"] if "  " not in s["text"] and s["text"].strip() == s["text"]]
    return sentences


@pytest.mark.parametrize("folder", ["gpt2", "pythia", "llama2", "llama3", "qwen2", "qwen3", "gemma"])
def test_minimal_pairs_logprobs_are_the_references_with_and_without_ablation(folder, tmp_path):
    """minimal-pairs gives each sentence's log-probability within 1e-4 of the reference's
    sentence_logprob, and with --ablate (the reference's 0-based entries given from 1, a whole
    layer as L.*) the ablated run's."""
    path = os.path.join(DECODERS, folder + "-tiny-random")
    if not os.path.isdir(path):
        pytest.skip("SKIPPED: ../shared/fixtures/hf-decoders-reference not found (the decoder fixtures)")
    sentences = reference_pairs(path)
    assert len(sentences) >= 2
    tsv = write_pairs_tsv(tmp_path / "pairs.tsv", sentences)
    records = cli_json_lines("minimal-pairs", "--json", "--input", str(tsv), "--model", path)
    summary = records[-1]["summary"]
    assert summary["pairs"] == len(sentences) - 1
    for r, a, b in zip(records, sentences, sentences[1:]):
        assert abs(r["good"]["logprob"] - a["sentence_logprob"]) <= 1e-4, (folder, a["text"])
        assert abs(r["bad"]["logprob"] - b["sentence_logprob"]) <= 1e-4, (folder, b["text"])
        assert r["correct"] == (a["sentence_logprob"] > b["sentence_logprob"])
    correct = sum(a["sentence_logprob"] > b["sentence_logprob"] for a, b in zip(sentences, sentences[1:]))
    assert summary["correct"] == correct
    # Each of the reference's three ablations, through --ablate L.H / L.*.
    for k in range(3):
        entry = sentences[0]["ablations"][k]
        flag = "%d.%s" % (entry["layer"] + 1, "*" if entry["head"] is None else entry["head"] + 1)
        ablated = cli_json_lines("minimal-pairs", "--json", "--input", str(tsv), "--model", path, "--ablate", flag)
        assert ablated[-1]["summary"]["ablated"] == [{"layer": entry["layer"] + 1,
                                                       "head": None if entry["head"] is None else entry["head"] + 1}]
        for r, a, b in zip(ablated, sentences, sentences[1:]):
            ea = next(x for x in a["ablations"] if x["layer"] == entry["layer"] and x["head"] == entry["head"])
            eb = next(x for x in b["ablations"] if x["layer"] == entry["layer"] and x["head"] == entry["head"])
            assert abs(r["good"]["logprob"] - ea["sentence_logprob"]) <= 1e-4, (folder, flag, a["text"])
            assert abs(r["bad"]["logprob"] - eb["sentence_logprob"]) <= 1e-4, (folder, flag, b["text"])
    # Python: the same ablation, numbered from 0.
    entry = sentences[0]["ablations"][0]
    conllu = write_words_conllu(tmp_path / "first.conllu", sentences[0]["text"])
    model = treelens.load_model(path, device="cpu")
    got = model.analyze(treelens.read_corpus(str(conllu)), attention=False, ablate=[(entry["layer"], entry["head"])])[0]
    assert got.ablated == [(entry["layer"], entry["head"])]
    assert abs(got.logprob - entry["sentence_logprob"]) <= 1e-4
    with pytest.raises(ValueError):
        model.analyze(treelens.read_corpus(str(conllu)), ablate=[(-1, 0)])


ENCODERS = os.path.join(ROOT, "..", "shared", "fixtures", "hf-transformers-reference")


def eager_mlm():
    """bench/hf_eager_mlm.py: the eager BERT/RoBERTa with the masked-LM head (the reference)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("hf_eager_mlm", os.path.join(ROOT, "bench", "hf_eager_mlm.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# BERT only: the RoBERTa reference folder's tokenizer holds nothing but its five special tokens
# (every sentence is <s> </s>), so no piece of it could be masked.
@pytest.mark.parametrize("folder", ["bert"])
def test_minimal_pairs_of_a_masked_lm_folder_are_the_eager_pseudo_log_likelihoods(folder, tmp_path):
    """A BertForMaskedLM folder (the fixture's weights and a random masked-LM head) scores each
    sentence by its pseudo-log-likelihood: minimal-pairs gives the
    eager reference's (each piece masked in turn, bench/hf_eager_mlm.py, itself checked against
    the fixture's hidden states) within 1e-4, with and without --ablate; the folder without the
    head is refused with the reason."""
    src = os.path.join(ENCODERS, folder + "-tiny-random")
    if not os.path.isdir(src):
        pytest.skip("SKIPPED: ../shared/fixtures/hf-transformers-reference not found (the encoder fixtures)")
    ref = eager_mlm()
    assert ref.check(src) <= 1e-4  # the reference computes the fixture's network
    mlm = ref.add_head(src, str(tmp_path / (folder + "-mlm")), seed=3)
    model = ref.MaskedLm(mlm)
    sentences = reference_pairs(src)[:4]
    assert len(sentences) >= 2
    tsv = write_pairs_tsv(tmp_path / "pairs.tsv", sentences)
    for flag, ablate in [(None, ()), ("2.2", ((1, 1),)), ("1.*", ((0, None),))]:
        args = ["minimal-pairs", "--json", "--input", str(tsv), "--model", mlm] + (["--ablate", flag] if flag else [])
        records = cli_json_lines(*args)
        want = [model.pll(s["input_ids"], ablate)[1] for s in sentences]
        for r, wa, wb in zip(records, want, want[1:]):
            assert abs(r["good"]["logprob"] - wa) <= 1e-4, (folder, flag, r["good"]["text"])
            assert abs(r["bad"]["logprob"] - wb) <= 1e-4, (folder, flag, r["bad"]["text"])
            assert r["correct"] == (wa > wb)
        if flag:  # the ablation moved the scores (else this proves nothing about it)
            assert max(abs(a - b) for a, b in zip(want, [model.pll(s["input_ids"])[1] for s in sentences])) > 1e-3
    r = subprocess.run([CLI, "minimal-pairs", "--input", str(tsv), "--model", src], capture_output=True, text=True)
    assert r.returncode != 0
    assert "no masked-LM head" in r.stderr, r.stderr
    # Python: Model.analyze(..., pseudo_log_likelihood=True), the words as the reference's text has them.
    conllu = write_words_conllu(tmp_path / "first.conllu", sentences[0]["text"])
    loaded = treelens.load_model(mlm, device="cpu")
    got = loaded.analyze(treelens.read_corpus(str(conllu)), attention=False, pseudo_log_likelihood=True)[0]
    assert abs(got.logprob - model.pll(sentences[0]["input_ids"])[1]) <= 1e-4
    assert abs(np.nansum(got.surprisal) + got.logprob) <= 1e-6
    assert loaded.analyze(treelens.read_corpus(str(conllu)), attention=False)[0].logprob is None
    with pytest.raises(treelens.Error):
        treelens.load_model(src, device="cpu").analyze(treelens.read_corpus(str(conllu)), pseudo_log_likelihood=True)


def test_ablate_sweep_cells_are_minimal_pairs_runs_with_that_ablation(tmp_path):
    """Every cell of ablate-sweep (a head, or a whole layer) is minimal-pairs --ablate of that
    cell against the unablated run: the same accuracy, the pairs flipped each way, the mean
    margin change; the cells cover every head and layer of the model."""
    path = os.path.join(DECODERS, "llama3-tiny-random")
    if not os.path.isdir(path):
        pytest.skip("SKIPPED: ../shared/fixtures/hf-decoders-reference not found (the decoder fixtures)")
    sentences = reference_pairs(path)
    tsv = tmp_path / "pairs.tsv"
    with open(tsv, "w", encoding="utf-8") as f:
        f.write("good\tbad\n")
        for a in sentences:
            for b in sentences:
                if a is not b:
                    f.write("%s\t%s\n" % (a["text"], b["text"]))
    sweep = json.loads(cli("ablate-sweep", "--json", "--input", str(tsv), "--model", path))
    assert (sweep["layers"], sweep["heads"]) == (2, 4)
    assert len(sweep["cells"]) == 2 * (4 + 1)
    base = cli_json_lines("minimal-pairs", "--json", "--input", str(tsv), "--model", path)
    assert abs(sweep["baseline"]["accuracy"] - base[-1]["summary"]["accuracy"]) < 1e-12
    for cell in sweep["cells"]:
        flag = "%d.%s" % (cell["layer"], "*" if cell["head"] is None else cell["head"])
        run = cli_json_lines("minimal-pairs", "--json", "--input", str(tsv), "--model", path, "--ablate", flag)
        assert abs(cell["accuracy"] - run[-1]["summary"]["accuracy"]) < 1e-12, flag
        to_wrong = [b["id"] for b, r in zip(base, run[:-1]) if b["correct"] and not r["correct"]]
        to_right = [b["id"] for b, r in zip(base, run[:-1]) if not b["correct"] and r["correct"]]
        assert cell["flipped_to_wrong"] == to_wrong and cell["flipped_to_right"] == to_right, flag
        margin = np.mean([r["margin"] - b["margin"] for b, r in zip(base, run[:-1])])
        assert abs(cell["mean_margin_change"] - margin) < 1e-9, flag
        lo, hi = cell["accuracy_change_ci95"]
        assert lo <= cell["accuracy_change"] <= hi


def test_a_shipped_model_opens_by_name_from_any_folder(tmp_path, monkeypatch):
    # Issue 47 (item 6): the tour runs outside docs/notebooks; a bare name that is no file in
    # the current folder opens the shipped model of that name, with or without the extension.
    monkeypatch.chdir(tmp_path)
    full = treelens.load_model(os.path.join(MODELS, "ggsa-en-wikiqa.safetensors"), device="cpu")
    for name in ("ggsa-en-wikiqa", "ggsa-en-wikiqa.safetensors"):
        m = treelens.load_model(name, device="cpu")
        assert os.path.realpath(m.info["path"]) == os.path.realpath(full.info["path"])
        assert m.info["name"] == full.info["name"]
    with pytest.raises(treelens.Error):
        treelens.load_model("no-such-model", device="cpu")


def test_unknown_words_are_reported():
    # Issue 47 (item 9): "zxqv" is not in the shipped model's vocabulary; the others are.
    m = treelens.load_model(device="cpu")
    a = m.analyze("The zxqv company said it will sell the shares .")[0]
    assert a.unknown_words == [1]
    assert m.analyze("The company said it will sell the shares .")[0].unknown_words == []


def test_corpus_query_agrees_with_cli_query():
    # A Grew request on the gold CoNLL-U trees and Tregex on the gold PTB trees: the same
    # occurrences as treelens-cli query --json, by sentence and bound words.
    corpus = treelens.read_corpus(GOLD)
    assert isinstance(corpus, treelens.Corpus) and isinstance(corpus, list)
    request = "pattern { V [upos=VERB]; S []; V -[1=nsubj]-> S } without { V -[obj]-> O }"
    got = corpus.query(request)
    expected = cli_json_lines("query", "--json", "--input", GOLD, "--pattern", request)
    assert len(got) == len(expected) == 1  # "Dogs bark loudly.": "saw" has an object
    assert got[0]["nodes"] == {"V": 2, "S": 1}
    for g, e in zip(got, expected):
        assert g["sent_id"] == e["sent_id"] == corpus[g["sentence"]].id
        assert g["nodes"] == {name: n["word"] for name, n in e["nodes"].items()}
    ptb = treelens.read_corpus(os.path.join(DATA, "conformance", "gold.mrg"))
    got = ptb.query("VP < NP=obj")
    expected = cli_json_lines("query", "--json", "--input", os.path.join(DATA, "conformance", "gold.mrg"), "--pattern",
                              "VP < NP=obj")
    assert len(got) == len(expected) > 0
    for g, e in zip(got, expected):
        assert g["nodes"]["obj"]["first"] == e["nodes"]["obj"]["first"]
        assert g["nodes"]["obj"]["label"] == e["nodes"]["obj"]["label"] == "NP"
    with pytest.raises(treelens.Error, match="line 1, column 23"):
        corpus.query("pattern { V [upos=VERB; }")


def test_corpus_attention_stat_agrees_with_cli_stat():
    corpus = treelens.read_corpus(GOLD)
    request = "pattern { V [upos=VERB]; S []; V -[nsubj]-> S }"
    m = treelens.load_model(None, device="cpu")
    stat = corpus.attention_stat(m, request, "V", "S")
    expected = json.loads(cli("query", "--json", "--input", GOLD, "--pattern", request, "--stat", "attention", "V", "S"))
    assert stat["occurrences"] == expected["occurrences"] > 0
    close(stat["mean"], expected["mean"], "mean")
    close(stat["ci95"], expected["ci95"], "ci95")
    assert stat["baseline"]["offset"] == expected["baseline"]["offset"]
    close(stat["baseline"]["mean"], expected["baseline"]["mean"], "baseline mean")
    assert stat["values"].shape == (stat["occurrences"], stat["layers"], stat["heads"])
    np.testing.assert_allclose(stat["values"].mean(axis=0), stat["mean"], atol=1e-6)
    assert [(o["sent_id"], o["nodes"]["V"], o["nodes"]["S"]) for o in stat["list"]] == \
        [(o["sent_id"], o["from"], o["to"]) for o in expected["list"]]
