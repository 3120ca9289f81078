"""TreeLens from Python: parse sentences, run tree-structured attention encoders and
pretrained Transformers, read their attention, constituent priors, gates and node
attention as NumPy arrays, score and evaluate sentence pairs, probe encoders, and draw
the app's views (SVG/PNG/PDF) in notebooks.

The work runs in the same C++ core as the app and ``treelens-cli`` (a pybind11 module),
without the GIL; Ctrl+C cancels it between batches. Errors are :class:`treelens.Error`
with the core's one-line messages. Layers and heads index the arrays from 0 (the app
and the CLI show them from 1). docs/python.md has the whole guide.
"""
from __future__ import annotations

import json as _json
import os as _os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

from . import _treelens as _core
from ._treelens import Analysis, ConstituencyTree, DependencyTree, Error, PairCorpus, Sentence

__version__ = _core.__version__

__all__ = [
    "Analysis", "ConstituencyTree", "Corpus", "DependencyTree", "Error", "Model", "PairCorpus", "Sentence", "evaluate_pairs", "load_model", "parse", "probe",
    "read_corpus", "read_pairs", "render", "score_pairs_idf", "sentences", "views", "write_corpus",
]

SentencesLike = Union[str, Sentence, Iterable[Union[str, Sentence]]]


def _path(path: Union[str, "_os.PathLike[str]"]) -> str:
    return _os.path.expanduser(_os.fspath(path))


class Corpus(list):
    """A list of :class:`Sentence` (what :func:`read_corpus` and :func:`sentences` give) that
    can be searched by tree pattern (docs/query.md, "Python")."""

    def query(self, pattern: str, syntax: str = "auto") -> List[Dict[str, Any]]:
        """The occurrences of a tree pattern, as ``treelens-cli query --json`` finds them: a
        Grew request (``"pattern { V [upos=VERB]; S []; V -[nsubj]-> S }"``, docs/grew.md) on
        the dependency trees, or a Tregex pattern (``"VP < NP=obj"``, docs/tregex.md) on the
        constituency trees; ``syntax``: ``"grew"``, ``"tregex"`` or ``"auto"`` (a Grew request
        when the text starts with ``pattern {``, ``with {`` or ``without {``). One dict per
        occurrence: ``sentence`` (the index in this list), ``sent_id`` and ``nodes``: for
        Grew, each pattern node's word number from 1 (0: the anchor node), for Tregex each
        named node (and ``_root_``) as ``{"label", "first", "last"}`` (words from 1; None
        over traces only) or None when unbound. Sentences without the tree are skipped:
        parse them first (:func:`parse`)."""
        return _core._query(list(self), pattern, syntax)

    def attention_stat(self, model: "Model", pattern: str, from_node: str, to_node: str,
                       batch_size: int = 32) -> Dict[str, Any]:
        """``treelens-cli query --stat attention FROM TO`` as NumPy arrays: the model runs on
        the sentences where the Grew request matches, and for each layer x head the mean
        attention from the word bound to ``from_node`` to the word bound to ``to_node``
        (``mean`` [layers, heads], ``ci95`` [layers, heads, 2]), the best fixed-offset
        baseline (``baseline``: ``offset``, ``hits``, ``mean``, ``ci95``), every occurrence's
        value (``values`` [occurrences, layers, heads]) and which occurrence each is
        (``list``: the dicts of :meth:`query`, in the same order)."""
        found = self.query(pattern, "grew")
        names = set(found[0]["nodes"]) if found else set()
        for n in (from_node, to_node):
            if found and n not in names:
                raise Error("'%s' is not a node of the pattern (%s)" % (n, ", ".join(sorted(names))))
        rows = sorted({o["sentence"] for o in found})
        analyses = model.analyze([self[i] for i in rows], batch_size=batch_size) if rows else []
        where = {i: k for k, i in enumerate(rows)}
        occurrences = [(where[o["sentence"]], o["nodes"][from_node], o["nodes"][to_node]) for o in found]
        stat = _core._attention_stat(analyses, occurrences, from_node, to_node)
        # The occurrences that were counted (an anchor node is skipped), in the order of `values`.
        stat["list"] = [o for o in found if o["nodes"][from_node] > 0 and o["nodes"][to_node] > 0]
        return stat


def read_corpus(path: Union[str, "_os.PathLike[str]"], format: str = "auto") -> Corpus:
    """The sentences of a corpus file: CoNLL-U, PTB brackets (.mrg), TreeLens JSON or plain
    text (tokenised and split), the format from the extension unless ``format`` names it.
    PTB traces are left out, as ``treelens-cli probe`` reads them. A :class:`Corpus`: a list
    that :meth:`Corpus.query` searches by tree pattern."""
    return Corpus(_core._read_file(_path(path), format))


def sentences(text: str, format: str = "text", split: bool = True) -> "Corpus":
    """The sentences of ``text`` in a corpus format: plain text by default, tokenised and,
    with ``split``, cut into sentences as running text (``treelens-cli --split``;
    ``split=False``: a sentence per line, as the CLI reads text without ``--split``);
    also ``conllu``, ``ptb``, ``json``."""
    return Corpus(_core._read_text(text, format, split))


def write_corpus(items: Sequence[Sentence], format: str = "conllu") -> str:
    """The sentences in a corpus format: ``conllu``, ``ptb``, ``json`` or ``text``."""
    return _core._write(list(items), format)


def parse(text_or_sentences: SentencesLike, parser: str = "neural", dependency_model: str = "",
          constituency_model: str = "") -> List[Sentence]:
    """Dependency and constituency trees for text (running text, split into sentences as
    ``--split`` does) or sentences (their trees replaced), as ``treelens-cli parse --split
    --parser PARSER``: the shipped neural parsers by default (``dependency_model``/
    ``constituency_model`` choose others)."""
    return _core._parse(text_or_sentences, parser, dependency_model, constituency_model)


def load_model(path: Optional[Union[str, "_os.PathLike[str]"]] = None, device: str = "auto", threads: int = 0,
               batch_size: int = 32, precision: str = "fp32") -> "Model":
    """Opens a model: any file or folder ``treelens-cli --model`` takes (a TreeLens
    ``.safetensors``, a Hugging Face BERT/RoBERTa folder), the shipped
    tree-transformer-en-small when ``path`` is None. ``device``: ``"cpu"``, ``"cuda"``,
    ``"cuda:N"`` or ``"auto"`` (the GPU when there is one); ``threads``: CPU threads of a
    forward pass (0: the libraries' default); ``precision``: fp32, int8, bf16 or auto
    (the Tree Transformer; docs/performance.md); ``batch_size``: sentences per forward
    pass. ``~`` in ``path`` is the home folder; a bare name that is not a file here
    (``"ggsa-en-wikiqa"``, with or without ``.safetensors``) opens that shipped model."""
    return Model(_core._load_model("" if path is None else _path(path), device, threads, batch_size, precision))


class Model:
    """A loaded encoder (:func:`load_model`). ``info`` describes it; :meth:`analyze` runs
    it on sentences, :meth:`analyze_pairs` on pairs, :meth:`score_pairs` scores a pair
    corpus. One model does one piece of work at a time: threads that share it wait for
    each other (their work runs without the GIL)."""

    def __init__(self, model: "_core._CoreModel"):
        self._model = model

    @property
    def info(self) -> Dict[str, Any]:
        """family, name, layers, heads, d_model, device, max_tokens, has_cls_token,
        pair_input, input (words, dependency or constituency), path."""
        return self._model.info

    @property
    def path(self) -> str:
        return self._model.path

    def __repr__(self) -> str:
        i = self.info
        return "<treelens model %s (%s, %d layers x %d heads) on %s>" % (i["name"], i["family"], i["layers"], i["heads"],
                                                                         i["device"])

    def analyze(self, sentences: SentencesLike, batch_size: int = 32, attention: bool = True,
                states: bool = False, prepend_bos: bool = False,
                ablate: Sequence[Sequence[Optional[int]]] = (),
                pseudo_log_likelihood: bool = False) -> List[Analysis]:
        """One :class:`Analysis` per sentence. ``sentences``: one string of running text
        (split into sentences), a Sentence, or a list of strings and Sentences (each
        string one sentence: the analyses match the list one to one). A model that reads
        trees takes the sentences' own and has the missing ones parsed by the shipped
        parser, as ``treelens-cli analyze`` does; typed text (a string) is always parsed,
        so its analysis has both trees to draw (``render(a, view="dependency")``). ``batch_size``: sentences handed over
        at a time (Ctrl+C is seen between them; the forward pass batches by
        ``load_model(batch_size=)``). ``attention=False`` leaves the attention matrices
        out (faster); ``states=True`` adds every layer's hidden states. A language model
        (GPT-2, Llama, ...) gives each word's surprisal (``Analysis.surprisal``);
        ``prepend_bos=True`` puts the model's BOS in front when its tokenizer adds none, so that
        the first word is predicted too (``treelens-cli analyze --prepend-bos``). ``ablate``:
        heads switched off, ``(layer, head)`` pairs numbered from 0 like the arrays (``head``
        None: every head of the layer), as ``treelens-cli analyze --ablate L.H`` with L and H
        from 1; built for every model with attention heads (a Tree-LSTM raises Error).
        ``pseudo_log_likelihood=True``: a masked language model with its vocabulary head (a Tree
        Transformer saved with its projection, a BertForMaskedLM / RobertaForMaskedLM folder) scores
        each sentence by its pseudo-log-likelihood (each piece masked in turn; ``Analysis.logprob``
        and ``.surprisal``), as ``treelens-cli minimal-pairs`` does; other models raise Error."""
        heads = []
        for entry in ablate:
            layer, head = tuple(entry)
            if not isinstance(layer, int) or layer < 0 or (head is not None and (not isinstance(head, int) or head < 0)):
                raise ValueError("ablate: (layer, head) pairs numbered from 0, head None for a whole layer; got %r"
                                 % (entry,))
            heads.append((layer, -1 if head is None else head))
        return self._model._analyze(sentences, batch_size, attention, states, prepend_bos, heads, pseudo_log_likelihood)

    def analyze_pairs(self, pairs: Union[PairCorpus, Iterable[Sequence[Union[str, Sentence]]]], batch_size: int = 32,
                      attention: bool = True, states: bool = False) -> List[Analysis]:
        """One :class:`Analysis` per pair, the second sentence under ``.second``: a pair
        model (GGSA, the TAT, ...) reads both sentences together (the pair's prediction
        and cross-attention on the first), a single-sentence model each side alone, as
        ``treelens-cli analyze --pairs``. ``pairs``: a PairCorpus, or (first, second)
        tuples of text or Sentences."""
        return self._model._analyze_pairs(pairs, batch_size, attention, states)

    def score_pairs(self, corpus: PairCorpus) -> Dict[str, Any]:
        """Every pair's ranking score, as ``treelens-cli score-pairs``: a dict with
        ``qid``, ``label`` (lists), ``score`` (a float64 array), ``predicted`` (a pair
        model's labels) and ``system``."""
        return self._model._score_pairs(corpus)


def read_pairs(path: Union[str, "_os.PathLike[str]"], format: str = "auto") -> PairCorpus:
    """A labelled pair corpus: a WikiQA folder, a TSV (qid, question, candidate, label),
    PASCAL RTE XML or TreeLens pairs JSON (docs/formats.md)."""
    return _core._read_pairs(_path(path), format)


def score_pairs_idf(corpus: PairCorpus, idf_from: Optional[PairCorpus] = None) -> Dict[str, Any]:
    """The IDF-weighted word-overlap baseline's scores (``score-pairs -m idf-overlap``)."""
    return _core._idf_scores(corpus, idf_from)


def evaluate_pairs(corpus: PairCorpus, scores: Union[Dict[str, Any], Sequence[float], None] = None,
                   predicted: Optional[Sequence[str]] = None) -> Dict[str, Any]:
    """The metrics ``treelens-cli eval-pairs`` reports: MAP, MRR and P@1 under the clean
    protocol for a ranking corpus (``scores``: one per pair, or the dict
    :meth:`Model.score_pairs` returns), accuracy, macro-F1, per-label figures and
    the confusion matrix for a classification corpus (``predicted`` labels, or that dict)."""
    if isinstance(scores, dict):
        if predicted is None and any(scores.get("predicted") or []):
            predicted = scores["predicted"]
        scores = scores["score"]
    return _core._evaluate_pairs(corpus, None if scores is None else [float(s) for s in scores], predicted)


def probe(tasks: str, train: Union[str, Sequence[str]], dev: Union[str, Sequence[str], None] = None,
          test: Union[str, Sequence[str], None] = None, model: Optional[str] = None, **options: Any) -> Dict[str, Any]:
    """A probing run, as ``treelens-cli probe --json``: its report as a dict (the same
    keys; docs/probing.md). ``tasks``: a comma list or ``"all"``; ``train``/``dev``/
    ``test``: corpus files. Other options by their CLI names with ``_`` for ``-``:
    layers, pooling, probe, tree, tree_source, seed, split_seed, epochs, threads, rank,
    control, random_init, baselines, device, precision, features. ``layers`` are named
    as the CLI and the report name them: ``"all"``, or ``"embeddings,2,4"`` / a list
    such as ``["embeddings", 2, 4]`` with encoder layers from 1."""
    allowed = {"layers", "pooling", "probe", "tree", "tree_source", "seed", "split_seed", "epochs", "threads", "rank",
               "control", "random_init", "baselines", "device", "precision", "features"}
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise TypeError("probe() got unknown options: " + ", ".join(unknown))
    if "layers" in options and not isinstance(options["layers"], str):
        options["layers"] = ",".join(str(x) for x in options["layers"])
    files = lambda v: None if v is None else ([_path(v)] if isinstance(v, (str, _os.PathLike)) else [_path(f) for f in v])
    config = dict(options, tasks=tasks, train=files(train), dev=files(dev), test=files(test),
                  model=None if model is None else _path(model))
    return _json.loads(_core._probe(config))


def views() -> List[str]:
    """The names :func:`render` takes (the app's exportable views); empty when TreeLens
    was built without the GUI."""
    return list(_core._views())


def render(item: Union[Analysis, Sentence], view: Optional[str] = None, layer: int = -1, head: int = -1,
           format: str = "svg", dpi: int = 150, attention: str = "model") -> Union[str, bytes]:
    """Draws a view of an analysis (or a sentence's trees alone) with the app's own
    code, offscreen: SVG as text, PNG and PDF as bytes. ``view``: one of :func:`views`
    (default: the first the app shows for it); ``layer``/``head``: 0-based (-1: the
    first); ``attention``: ``model`` (after the structural weighting), ``plain`` or
    ``relation`` (the Dependency-Transformer's). Raises Error with the view's reason
    when it has nothing to draw."""
    if isinstance(item, Analysis):
        data = item._render(view or item._default_view() or "constituency", layer, head, format, dpi, attention)
    elif isinstance(item, Sentence):
        data = _core._render_sentence(item, view or ("constituency" if item.has_constituency else "dependency"), format,
                                      dpi)
    else:
        raise TypeError("render() draws an Analysis or a Sentence, not %s" % type(item).__name__)
    return data.decode("utf-8") if format == "svg" else data


def _analysis_svg(self: Analysis) -> Optional[str]:
    if not _core._views():
        return None
    try:
        return render(self)
    except Error:
        return None


def _analysis_repr(self: Analysis) -> str:
    p = self.prediction
    said = (", prediction %s" % p["label"]) if p else ""
    return "<treelens.Analysis %s: %d tokens, %d layers x %d heads%s>" % (self.family, len(self.tokens), self.layers,
                                                                          self.heads, said)


def _sentence_svg(self: Sentence) -> Optional[str]:
    if not _core._views() or not (self.has_constituency or self.has_dependency):
        return None
    try:
        return render(self)
    except Error:
        return None


def _html(svg: Optional[str]) -> Optional[str]:
    return None if svg is None else '<div class="treelens-view">' + svg + "</div>"


def _analysis_html(self: Analysis) -> Optional[str]:
    return _html(_analysis_svg(self))


def _analysis_bundle(self: Analysis, include=None, exclude=None):  # type: ignore[no-untyped-def]
    """What Jupyter displays: the view drawn once, as SVG and as HTML (IPython asks this
    before the _repr_*_ methods, so the figure is not drawn once per format)."""
    svg = _analysis_svg(self)
    if svg is None:
        return {"text/plain": repr(self)}
    return {"image/svg+xml": svg, "text/html": _html(svg), "text/plain": repr(self)}


Analysis._repr_svg_ = _analysis_svg  # type: ignore[attr-defined]
Analysis._repr_html_ = _analysis_html  # type: ignore[attr-defined]
Analysis._repr_mimebundle_ = _analysis_bundle  # type: ignore[attr-defined]
Analysis.__repr__ = _analysis_repr  # type: ignore[assignment]
Sentence._repr_svg_ = _sentence_svg  # type: ignore[attr-defined]
