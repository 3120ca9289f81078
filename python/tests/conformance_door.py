"""The conformance matrix's Python door (tests/conformance, docs/conformance.md): one model
through the treelens module as a notebook user would take it. A sentence model analyses the
gold corpus, a pair model the pairs (analyze_pairs); with the GUI, the analysis' default
view is rendered. Prints one line per step on stdout; a refusal is one line on stderr,
"treelens.Error: MESSAGE", exit 1.

    python3 conformance_door.py MODEL GOLD PAIRS
"""
import sys

import treelens


def main(model_path, gold, pairs):
    try:
        model = treelens.load_model(model_path, device="cpu")
        if model.info["pair_input"]:
            analyses = model.analyze_pairs(treelens.read_pairs(pairs))
        else:
            analyses = model.analyze(treelens.read_corpus(gold))
        a = analyses[0]
        shape = None if a.attention is None else list(a.attention.shape)
        print("python: %d analyses, %s, %d tokens, attention %s" % (len(analyses), a.family, len(a.tokens), shape))
        if treelens.views():
            view = a._default_view()
            svg = treelens.render(a) if view else ""
            print("python: default view %s, %d bytes of SVG" % (view or "(none)", len(svg)))
    except treelens.Error as e:
        print("treelens.Error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
