#!/usr/bin/env python3
"""Counts of Grew requests on a CoNLL-U file, each written out by hand as plain loops.

An independent reference for TreeLens's Grew matcher (core/query/depmatch.cpp): every
request below is counted here without a pattern engine, with Grew's meaning (docs/query.md):
one occurrence per distinct injective binding of the pattern nodes; `F<>v` needs F
present; `-[nsubj]->` is the exact relation, `-[1=nsubj]->` its first part; `without`
clauses rule an occurrence out when they can be satisfied. tests/core/test_deppattern.cpp
holds the counts this prints for UD English EWT train.

Usage: scripts/grew_reference_counts.py en_ewt-ud-train.conllu
"""
import sys


def read(path):
    sents, cur = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if cur:
                    sents.append(cur)
                cur = []
                continue
            if line.startswith("#"):
                continue
            c = line.split("\t")
            if "-" in c[0] or "." in c[0]:  # multiword tokens and empty nodes are not nodes
                continue
            feats = {}
            for col in (c[5], c[9]):
                if col != "_":
                    for kv in col.split("|"):
                        if "=" in kv:
                            k, v = kv.split("=", 1)
                            feats.setdefault(k, v)
            cur.append({"id": int(c[0]), "form": c[1], "lemma": None if c[2] == "_" else c[2],
                        "upos": None if c[3] == "_" else c[3], "feats": feats,
                        "head": int(c[6]), "deprel": c[7]})
    if cur:
        sents.append(cur)
    return sents


def children(s, h):
    return [t for t in s if t["head"] == h]


def p_issue(s, with_without=False):
    n = 0
    for sub in s:
        if sub["upos"] not in ("NOUN", "PROPN") or sub["lemma"] is None or sub["lemma"] == "it":
            continue
        if sub["deprel"] != "nsubj" or sub["head"] == 0:
            continue
        v = s[sub["head"] - 1]
        if v["upos"] != "VERB" or not sub["id"] < v["id"]:
            continue
        if not with_without and v["feats"].get("Number") != "Sing":
            continue
        if with_without and any(c["deprel"] == "aux" and c["id"] != sub["id"] for c in children(s, v["id"])):
            continue
        n += 1
    return n


def p_subj(s, exact):
    return sum(1 for t in s if t["head"] > 0 and s[t["head"] - 1]["upos"] == "VERB"
               and (t["deprel"] == "nsubj" if exact else t["deprel"].split(":")[0] == "nsubj"))


def p_verbs_without(s):
    n = 0
    for v in s:
        if v["upos"] != "VERB":
            continue
        ch = children(s, v["id"])
        if any(c["deprel"] == "aux" for c in ch) or any(c["deprel"].split(":")[0] == "nsubj" for c in ch):
            continue
        n += 1
    return n


def p_ize_obj(s):
    import re
    return sum(1 for o in s if o["head"] > 0 and o["deprel"] in ("obj", "iobj")
               and s[o["head"] - 1]["upos"] == "VERB" and s[o["head"] - 1]["lemma"] is not None
               and re.fullmatch(r".*ize", s[o["head"] - 1]["lemma"]))


def p_det_next(s):
    return sum(1 for d in s if d["upos"] == "DET" and d["deprel"] == "det" and d["head"] == d["id"] + 1
               and s[d["head"] - 1]["upos"] == "NOUN")


def p_past_not(s):
    return sum(1 for x in s if x["head"] > 0 and x["deprel"] not in ("punct", "nsubj")
               and s[x["head"] - 1]["upos"] == "VERB" and s[x["head"] - 1]["feats"].get("Tense") == "Past")


def p_disagree(s):
    # pattern { V -[1=nsubj]-> S; V -[1=aux]-> A; S.Number <> A.Number }
    n = 0
    for subj in s:
        if subj["head"] == 0 or subj["deprel"].split(":")[0] != "nsubj":
            continue
        for a in children(s, subj["head"]):
            if a["id"] == subj["id"] or a["deprel"].split(":")[0] != "aux":
                continue
            x, y = subj["feats"].get("Number"), a["feats"].get("Number")
            if x is not None and y is not None and x != y:
                n += 1
    return n


def p_adj_pairs(s):
    adj = [t["id"] for t in s if t["upos"] == "ADJ"]
    return sum(1 for x in adj for y in adj if x < y)


def p_root_not_verb(s):
    return sum(1 for t in s if t["head"] == 0 and t["deprel"] == "root" and t["upos"] is not None and t["upos"] != "VERB")


def p_relcl_subject(s):
    n = 0
    for subj in s:
        if subj["upos"] != "NOUN" or subj["deprel"] != "nsubj" or subj["head"] == 0:
            continue
        v = s[subj["head"] - 1]
        if v["upos"] != "VERB":
            continue
        for r in children(s, subj["id"]):
            if r["deprel"] == "acl:relcl" and subj["id"] < r["id"] < v["id"] and r["id"] != v["id"]:
                n += 1
    return n


def p_all_nodes(s):
    return len(s) + 1  # the words and node 0


REQUESTS = [
    ('pattern { V [upos=VERB, Number=Sing]; S [upos=NOUN|PROPN, lemma<>"it"]; V -[nsubj]-> S; S << V }', p_issue),
    ('pattern { V [upos=VERB]; S [upos=NOUN|PROPN, lemma<>"it"]; V -[nsubj]-> S; S << V } '
     'without { V -[aux]-> A }', lambda s: p_issue(s, True)),
    ('pattern { V [upos=VERB]; V -[nsubj]-> S }', lambda s: p_subj(s, True)),
    ('pattern { V [upos=VERB]; V -[1=nsubj]-> S }', lambda s: p_subj(s, False)),
    ('pattern { V [upos=VERB] } without { V -[aux]-> A } without { V -[1=nsubj]-> S }', p_verbs_without),
    ('pattern { V [upos=VERB, lemma=re".*ize"]; V -[obj|iobj]-> O }', p_ize_obj),
    ('pattern { N [upos=NOUN]; D [upos=DET]; N -[det]-> D; D < N }', p_det_next),
    ('pattern { V [upos=VERB, Tense=Past]; V -[^punct|nsubj]-> X }', p_past_not),
    ('pattern { V -[1=nsubj]-> S; V -[1=aux]-> A; S.Number <> A.Number }', p_disagree),
    ('pattern { X [upos=ADJ]; Y [upos=ADJ]; X << Y }', p_adj_pairs),
    ('pattern { R -[root]-> V; V [upos<>VERB] }', p_root_not_verb),
    ('pattern { V [upos=VERB]; S [upos=NOUN]; V -[nsubj]-> S; S -[acl:relcl]-> R; S << R; R << V }', p_relcl_subject),
    ('pattern { X [] }', p_all_nodes),
]


def main():
    sents = read(sys.argv[1])
    for request, count in REQUESTS:
        print(f"{sum(count(s) for s in sents)}\t{request}")


if __name__ == "__main__":
    main()
