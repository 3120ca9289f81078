// Grew requests (core/query/deppattern.h, docs/query.md): every construct of the subset
// on three hand-made sentences whose counts are worked out by hand in the comments, the
// count as Grew gives it (one per distinct binding of the pattern nodes, injective),
// errors with their line and column, and counts on UD English EWT against an independent
// script (scripts/grew_reference_counts.py).
#include "core/query/deppattern.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/formats/conllu.h"
#include "core/formats/corpus.h"
#include "testutil.h"

using namespace treelens;

namespace {

// S1 "The dogs that the cat chases were not barking ."  (a relative clause; an auxiliary)
// S2 "It was eaten by Kim."                               (a passive: nsubj:pass, aux:pass)
// S3 "Kim sleeps."
const char *kCorpus =
    "# sent_id = s1\n"
    "1\tThe\tthe\tDET\tDT\tDefinite=Def|PronType=Art\t2\tdet\t_\t_\n"
    "2\tdogs\tdog\tNOUN\tNNS\tNumber=Plur\t9\tnsubj\t_\t_\n"
    "3\tthat\tthat\tPRON\tWDT\tPronType=Rel\t6\tobj\t_\t_\n"
    "4\tthe\tthe\tDET\tDT\tDefinite=Def|PronType=Art\t5\tdet\t_\t_\n"
    "5\tcat\tcat\tNOUN\tNN\tNumber=Sing\t6\tnsubj\t_\t_\n"
    "6\tchases\tchase\tVERB\tVBZ\tMood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin\t2\tacl:relcl\t_\t_\n"
    "7\twere\tbe\tAUX\tVBD\tMood=Ind|Number=Plur|Person=3|Tense=Past|VerbForm=Fin\t9\taux\t_\t_\n"
    "8\tnot\tnot\tPART\tRB\tPolarity=Neg\t9\tadvmod\t_\t_\n"
    "9\tbarking\tbark\tVERB\tVBG\tTense=Pres|VerbForm=Part\t0\troot\t_\t_\n"
    "10\t.\t.\tPUNCT\t.\t_\t9\tpunct\t_\t_\n"
    "\n"
    "# sent_id = s2\n"
    "1\tIt\tit\tPRON\tPRP\tCase=Nom|Gender=Neut|Number=Sing|Person=3|PronType=Prs\t3\tnsubj:pass\t_\t_\n"
    "2\twas\tbe\tAUX\tVBD\tMood=Ind|Number=Sing|Person=3|Tense=Past|VerbForm=Fin\t3\taux:pass\t_\t_\n"
    "3\teaten\teat\tVERB\tVBN\tTense=Past|VerbForm=Part|Voice=Pass\t0\troot\t_\t_\n"
    "4\tby\tby\tADP\tIN\t_\t5\tcase\t_\t_\n"
    "5\tKim\tKim\tPROPN\tNNP\tNumber=Sing\t3\tobl:agent\t_\tSpaceAfter=No\n"
    "6\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_\n"
    "\n"
    "# sent_id = s3\n"
    "1\tKim\tKim\tPROPN\tNNP\tNumber=Sing\t2\tnsubj\t_\t_\n"
    "2\tsleeps\tsleep\tVERB\tVBZ\tMood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin\t0\troot\t_\tSpaceAfter=No\n"
    "3\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\n"
    "\n";

const std::vector<Sentence> &corpus()
{
    static const std::vector<Sentence> sentences = [] {
        auto r = readConllu(kCorpus, "corpus");
        EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.message());
        return r.ok() ? *r : std::vector<Sentence>();
    }();
    return sentences;
}

DepPattern pattern(const std::string &text)
{
    auto p = DepPattern::parse(text);
    EXPECT_TRUE(p.ok()) << text << ": " << (p.ok() ? "" : p.message());
    return p.ok() ? *p : *DepPattern::parse("pattern { X [form=\"no such word\", form=\"nor this\"] }");
}

std::size_t count(const std::string &text)
{
    const DepPattern p = pattern(text);
    std::size_t n = 0;
    for (const Sentence &s : corpus())
        n += p.match(s).size();
    return n;
}

/// The bound forms of every occurrence, "X=form Y=form; ..." in corpus order.
std::string bindings(const std::string &text)
{
    const DepPattern p = pattern(text);
    std::string out;
    for (const Sentence &s : corpus())
        for (const DepMatch &m : p.match(s)) {
            out += out.empty() ? "" : "; ";
            for (std::size_t i = 0; i < m.nodes.size(); ++i)
                out += (i ? " " : "") + p.names()[i] + "="
                    + (m.nodes[i] == 0 ? std::string("__0__") : s.tokens[static_cast<std::size_t>(m.nodes[i] - 1)].text);
        }
    return out;
}

std::string errorOf(const std::string &text)
{
    auto p = DepPattern::parse(text);
    return p.ok() ? "(parsed)" : p.message();
}

} // namespace

TEST(DepPattern, RelationsMatchExactlyAndByTheirParts)
{
    // nsubj: chases->cat, barking->dogs (S1), sleeps->Kim (S3); eaten->It is nsubj:pass.
    EXPECT_EQ(bindings("pattern { V [upos=VERB]; S []; V -[nsubj]-> S }"), "V=chases S=cat; V=barking S=dogs; V=sleeps S=Kim");
    // 1=nsubj takes the subtypes: S2's nsubj:pass as well.
    EXPECT_EQ(count("pattern { V [upos=VERB]; V -[1=nsubj]-> S }"), 4u);
    EXPECT_EQ(count("pattern { V -[1=nsubj, 2=pass]-> S }"), 1u);
    EXPECT_EQ(count("pattern { V -[1=nsubj, !2]-> S }"), 3u);
    EXPECT_EQ(count("pattern { V -[1=aux|nsubj, 2<>pass]-> S }"), 0u); // 2<>pass needs a second part
    // Alternatives and negation: barking's children are dogs (nsubj), were (aux), not
    // (advmod) and . (punct).
    EXPECT_EQ(bindings("pattern { V [lemma=bark]; V -[^nsubj|punct]-> X }"), "V=barking X=were; V=barking X=not");
    EXPECT_EQ(count("pattern { V [lemma=bark]; V -[aux|advmod]-> X }"), 2u);
    EXPECT_EQ(count("pattern { V [lemma=bark]; V -> X }"), 4u);
    // A regular expression on the whole label: acl:relcl, aux:pass, nsubj:pass, obl:agent.
    EXPECT_EQ(count("pattern { X -[re\".*:.*\"]-> Y }"), 4u);
    EXPECT_EQ(count("pattern { X -[re\"nsubj\"]-> Y }"), 3u); // a full match: not nsubj:pass
    // An edge to or from any node: verbs with a nsubj; the head of a relative clause.
    EXPECT_EQ(count("pattern { V [upos=VERB]; V -[nsubj]-> * }"), 3u);
    EXPECT_EQ(bindings("pattern { X []; * -[acl:relcl]-> X }"), "X=chases");
}

TEST(DepPattern, NodeFeaturesWithGrewsMeaning)
{
    // = needs the feature with one of the values; <> needs it present with another value;
    // F alone: present; !F: absent. Number: dogs Plur, cat Sing, chases Sing, were Plur,
    // It Sing, was Sing, Kim Sing (S2), Kim Sing, sleeps Sing.
    EXPECT_EQ(count("pattern { X [Number=Sing] }"), 7u);
    EXPECT_EQ(count("pattern { X [Number=Sing|Plur] }"), 9u);
    EXPECT_EQ(bindings("pattern { X [Number<>Sing] }"), "X=dogs; X=were");
    EXPECT_EQ(bindings("pattern { V [upos=VERB, !Number] }"), "V=barking; V=eaten");
    EXPECT_EQ(bindings("pattern { V [upos=VERB, Number] }"), "V=chases; V=sleeps");
    EXPECT_EQ(count("pattern { S [upos=NOUN|PROPN, lemma<>\"it\"] }"), 4u);
    // Regular expressions (OCaml Str syntax, matching the whole value): be, bark, be, by.
    EXPECT_EQ(count("pattern { X [lemma=re\"b.*\"] }"), 4u);
    EXPECT_EQ(count("pattern { X [lemma=re\"b\"] }"), 0u);
    EXPECT_EQ(count("pattern { X [form=re\"[A-Z].*\"] }"), 4u); // The, It, Kim, Kim
    EXPECT_EQ(count("pattern { X [form=re\"dogs\\|cat\"] }"), 2u); // \| is Str's alternation
    EXPECT_EQ(count("pattern { X [form=re\"dogs|cat\"] }"), 0u);   // a plain | is a character
    EXPECT_EQ(count("pattern { X [form=/dogs|cat/] }"), 2u);
    EXPECT_EQ(count("pattern { X [lemma<>re\"b.*\"] }"), 22u - 3u - 4u); // every word but the 4 (the anchor has no lemma)
    // MISC is a feature too; xpos and form.
    EXPECT_EQ(bindings("pattern { X [SpaceAfter=No] }"), "X=Kim; X=sleeps");
    EXPECT_EQ(count("pattern { X [xpos=VBZ] }"), 2u);
    EXPECT_EQ(count("pattern { X [form=\"Kim\", upos=PROPN] }"), 2u);
}

TEST(DepPattern, TheAnchorNodeAndInjectivity)
{
    // Every sentence has node 0 (form __0__) with a root edge to its root word: 10+6+3
    // words and 3 anchors.
    EXPECT_EQ(count("pattern { X [] }"), 22u);
    EXPECT_EQ(bindings("pattern { R -[root]-> V }"), "R=__0__ V=barking; R=__0__ V=eaten; R=__0__ V=sleeps");
    EXPECT_EQ(count("pattern { R [form=\"__0__\"] }"), 3u);
    // Distinct pattern nodes are distinct words (dogs/cat both ways), unless named with a
    // final $ (then also dogs/dogs and cat/cat).
    EXPECT_EQ(bindings("pattern { X [upos=NOUN]; Y [upos=NOUN] }"), "X=dogs Y=cat; X=cat Y=dogs");
    EXPECT_EQ(count("pattern { X [upos=NOUN]; Y$ [upos=NOUN] }"), 4u);
    // Two pattern clauses are one pattern.
    EXPECT_EQ(count("pattern { V [upos=VERB] } pattern { V -[nsubj]-> S }"), 3u);
}

TEST(DepPattern, WordOrderAndDominance)
{
    EXPECT_EQ(bindings("pattern { X [upos=DET]; Y [upos=NOUN]; X < Y }"), "X=The Y=dogs; X=the Y=cat");
    EXPECT_EQ(count("pattern { X [upos=DET]; Y [upos=NOUN]; X << Y }"), 3u); // The<dogs, The<cat, the<cat
    EXPECT_EQ(count("pattern { X [upos=DET]; Y [upos=NOUN]; Y >> X }"), 3u);
    EXPECT_EQ(bindings("pattern { V [upos=VERB]; S [upos=NOUN]; V -[nsubj]-> S; V > S }"), "V=chases S=cat");
    // The issue's example: a singular verb and its nominal subject before it, not "it".
    EXPECT_EQ(bindings("pattern { V [upos=VERB, Number=Sing]; S [upos=NOUN|PROPN, lemma<>\"it\"]; V -[nsubj]-> S; S << V }"),
              "V=chases S=cat; V=sleeps S=Kim");
    // -*-> : strict dominance (barking dominates dogs and, through the relative clause, cat).
    EXPECT_EQ(bindings("pattern { X [lemma=bark]; Y [upos=NOUN]; X -*-> Y }"), "X=barking Y=dogs; X=barking Y=cat");
    EXPECT_EQ(count("pattern { X [lemma=dog]; Y [lemma=dog]; X -*-> Y }"), 0u);
}

TEST(DepPattern, WithAndWithoutClauses)
{
    // Verbs: chases, barking (aux were), eaten (aux:pass was), sleeps.
    EXPECT_EQ(bindings("pattern { V [upos=VERB] } without { V -[aux]-> A }"), "V=chases; V=eaten; V=sleeps");
    EXPECT_EQ(bindings("pattern { V [upos=VERB] } without { V -[aux]-> A } without { V -[1=aux]-> A }"),
              "V=chases; V=sleeps");
    EXPECT_EQ(bindings("pattern { V [upos=VERB] } with { V -[1=aux]-> A }"), "V=barking; V=eaten");
    // Each extension is independent: A is a new node in each; the second removes the
    // verbs with a punctuation child (eaten, sleeps, barking).
    EXPECT_EQ(bindings("pattern { V [upos=VERB] } without { V -[aux]-> A } without { A [upos=PUNCT]; V -> A }"), "V=chases");
    // A filter on a pattern node inside without.
    EXPECT_EQ(bindings("pattern { V [upos=VERB] } without { V [Number=Sing] }"), "V=barking; V=eaten");
    // An extension's node is another word than the pattern's (injective there too): the
    // only noun with a det is not the one bound to X... both nouns have one.
    EXPECT_EQ(count("pattern { X [upos=NOUN] } without { Y [upos=NOUN]; X << Y }"), 1u); // cat: no noun after it
    // % comments and newlines as separators.
    EXPECT_EQ(count("% verbs\npattern {\n  V [upos=VERB]   % a verb\n  V -[nsubj]-> S\n}\n"), 3u);
}

TEST(DepPattern, FeatureComparisons)
{
    // Subject and auxiliary agree in Number: dogs/were (Plur/Plur), It/was (Sing/Sing).
    EXPECT_EQ(count("pattern { V []; V -[1=nsubj]-> S; V -[1=aux]-> A; S.Number = A.Number }"), 2u);
    EXPECT_EQ(count("pattern { V []; V -[1=nsubj]-> S; V -[1=aux]-> A; S.Number <> A.Number }"), 0u);
    // A missing feature fails both = and <> (barking has no Number).
    EXPECT_EQ(bindings("pattern { V -[nsubj]-> S; S.Number = V.Number }"), "V=chases S=cat; V=sleeps S=Kim");
    EXPECT_EQ(count("pattern { V -[nsubj]-> S; S.Number <> V.Number }"), 0u);
    EXPECT_EQ(count("pattern { V -[nsubj]-> S; V.lemma = \"bark\" }"), 1u);
    EXPECT_EQ(count("pattern { V -[nsubj]-> S; V.lemma <> \"bark\" }"), 2u);
    EXPECT_EQ(count("pattern { V -[nsubj]-> S; V.lemma = re\"s.*\" }"), 1u);
}

TEST(DepPattern, ErrorsNameTheLineColumnAndWhatWasExpected)
{
    EXPECT_EQ(errorOf("pattern { V [upos=VERB; }"), "line 1, column 23: expected ',' or ']', found ';'");
    EXPECT_EQ(errorOf("pattern { V -[nsubj> S }"), "line 1, column 20: expected ']->', found '>'");
    EXPECT_EQ(errorOf("pattern {\n  V [upos=VERB]\n  V = S\n}"), "line 3, column 5: expected '[', '->', '-[', '-*->', '<', '<<', '>', '>>' or '.' after the node name, found '='");
    EXPECT_EQ(errorOf("patern { V [] }"), "line 1, column 1: expected 'pattern', 'with' or 'without', found 'patern'");
    EXPECT_EQ(errorOf("pattern { V [lemma=\"be] }"), "line 1, column 20: a string that does not end (expected '\"')");
    EXPECT_EQ(errorOf("pattern { V [lemma=re\"(\"] }"), "(parsed)"); // ( is literal in Str
    EXPECT_NE(errorOf("pattern { V [lemma=re\"\\(\"] }").find("line 1, column 20: not a regular expression"), std::string::npos);
    EXPECT_EQ(errorOf("pattern { V [] "), "line 1, column 16: expected '}', found the end of the request");
    EXPECT_EQ(errorOf(""), "line 1, column 1: expected 'pattern {', 'with {' or 'without {', found the end of the request");
    EXPECT_EQ(errorOf("without { V [] }"), "line 1, column 1: the request has no 'pattern' node (pattern { X [] } matches every word)");
    EXPECT_EQ(errorOf("pattern { V < V }"), "line 1, column 11: a node cannot be before or above itself");
    EXPECT_TRUE(looksLikeGrewRequest("  % x\n pattern { V [] }"));
    EXPECT_TRUE(looksLikeGrewRequest("without{ V [] }"));
    EXPECT_FALSE(looksLikeGrewRequest("NP < DT"));
    EXPECT_FALSE(looksLikeGrewRequest("pattern < DT"));
}

TEST(DepPattern, LimitAndSortedOccurrences)
{
    const DepPattern p = pattern("pattern { X [upos=NOUN]; Y [] }");
    const auto all = p.match(corpus()[0]);
    EXPECT_EQ(all.size(), 2u * 10u); // X dogs or cat; Y any other of the 10 words or the anchor
    EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
    EXPECT_EQ(p.match(corpus()[0], 5).size(), 5u);
}

TEST(DepPattern, CountsOnEwtTrainEqualAnIndependentScript)
{
    // scripts/grew_reference_counts.py counts each request with plain loops (no pattern
    // engine); these are its counts on en_ewt-ud-train.conllu (12,544 sentences).
    TREELENS_REQUIRE_SHARED("data/ud-english-ewt/en_ewt-ud-train.conllu");
    auto sentences = readCorpusFile(test::sharedPath("data/ud-english-ewt/en_ewt-ud-train.conllu"), CorpusFormat::Conllu);
    ASSERT_TRUE(sentences.ok()) << sentences.message();
    std::vector<DepGraph> graphs;
    for (const Sentence &s : *sentences)
        graphs.push_back(DepGraph::fromSentence(s));
    const std::pair<std::size_t, const char *> expected[] = {
        {1388, "pattern { V [upos=VERB, Number=Sing]; S [upos=NOUN|PROPN, lemma<>\"it\"]; V -[nsubj]-> S; S << V }"},
        {2018, "pattern { V [upos=VERB]; S [upos=NOUN|PROPN, lemma<>\"it\"]; V -[nsubj]-> S; S << V } without { V -[aux]-> A }"},
        {11770, "pattern { V [upos=VERB]; V -[nsubj]-> S }"},
        {13129, "pattern { V [upos=VERB]; V -[1=nsubj]-> S }"},
        {9117, "pattern { V [upos=VERB] } without { V -[aux]-> A } without { V -[1=nsubj]-> S }"},
        {38, "pattern { V [upos=VERB, lemma=re\".*ize\"]; V -[obj|iobj]-> O }"},
        {8407, "pattern { N [upos=NOUN]; D [upos=DET]; N -[det]-> D; D < N }"},
        {18007, "pattern { V [upos=VERB, Tense=Past]; V -[^punct|nsubj]-> X }"},
        {93, "pattern { V -[1=nsubj]-> S; V -[1=aux]-> A; S.Number <> A.Number }"},
        {11785, "pattern { X [upos=ADJ]; Y [upos=ADJ]; X << Y }"},
        {5298, "pattern { R -[root]-> V; V [upos<>VERB] }"},
        {64, "pattern { V [upos=VERB]; S [upos=NOUN]; V -[nsubj]-> S; S -[acl:relcl]-> R; S << R; R << V }"},
        {217121, "pattern { X [] }"},
    };
    for (const auto &[n, request] : expected) {
        const DepPattern p = pattern(request);
        std::size_t got = 0;
        for (const DepGraph &g : graphs)
            got += p.match(g).size();
        EXPECT_EQ(got, n) << request;
    }
}
