// Fuzzes the minimal-pair readers and makers: the first byte chooses. Even: a pair file
// (BLiMP JSON Lines or a good/bad TSV): no crash, every accepted pair has both sentences
// non-empty. Odd: a CoNLL-U treebank made into agreement and determiner pairs: no crash, and
// every made pair differs from its sentence in exactly the one word it names, with the
// controller inside the sentence and the attractors strictly between the two.
#include <cstdlib>
#include <string>

#include "core/eval/makepairs.h"
#include "core/eval/minimalpairs.h"
#include "core/formats/conllu.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const std::string text(reinterpret_cast<const char *>(data) + 1, size - 1);
    if ((data[0] & 1) == 0) {
        auto r = treelens::readMinimalPairs(text, "fuzz.tsv");
        if (r)
            for (const auto &p : *r)
                if (p.good.empty() || p.bad.empty() || treelens::pairWords(p.good).empty())
                    std::abort();
        return 0;
    }
    auto sentences = treelens::readConllu(text, "fuzz.conllu");
    if (!sentences)
        return 0;
    for (auto phenomenon : {treelens::PairPhenomenon::Agreement, treelens::PairPhenomenon::Determiner}) {
        const auto made = treelens::makePairs(*sentences, phenomenon);
        for (const auto &p : made.pairs) {
            const int n = static_cast<int>(p.goodWords.size());
            if (p.badWords.size() != p.goodWords.size() || p.changed < 1 || p.changed > n || p.controller < 1 || p.controller > n ||
                p.changed == p.controller)
                std::abort();
            for (int i = 0; i < n; ++i)
                if ((p.goodWords[static_cast<std::size_t>(i)] != p.badWords[static_cast<std::size_t>(i)]) != (i + 1 == p.changed))
                    std::abort();
            for (int a : p.attractors)
                if (a <= std::min(p.changed, p.controller) || a >= std::max(p.changed, p.controller))
                    std::abort();
            (void)treelens::madePairJson(p, phenomenon, 1);
        }
    }
    return 0;
}
