// Fuzzes the Grew requests (core/query/deppattern.h): the input up to a line "#" is a
// request, the rest one CoNLL-U sentence (a fixed one when it is missing or does not read).
// Checks: every occurrence binds one node per pattern name, to the anchor or a word; the
// occurrences are sorted and distinct; distinct names not ending in '$' are bound to
// distinct nodes; a limit gives at most that many. Matching is bounded: requests of at most
// 300 bytes and 4 pattern nodes, sentences of at most 12 words.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/formats/conllu.h"
#include "core/query/deppattern.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace treelens;
    if (size > 4096)
        return 0;
    const std::string text(reinterpret_cast<const char *>(data), size);
    const std::size_t cut = text.find("\n#\n");
    const std::string request = text.substr(0, cut);
    auto p = DepPattern::parse(request);
    if (!p)
        return 0;
    (void)looksLikeGrewRequest(request);
    if (request.size() > 300 || p->names().size() > 4)
        return 0;
    Sentence sentence;
    if (cut != std::string::npos) {
        auto r = readConllu(text.substr(cut + 3), "fuzz");
        if (r && r->size() == 1 && r->front().tokens.size() <= 12)
            sentence = r->front();
    }
    if (sentence.tokens.empty())
        sentence = readConllu("1\tKim\tKim\tPROPN\tNNP\tNumber=Sing\t2\tnsubj\t_\t_\n"
                              "2\tsleeps\tsleep\tVERB\tVBZ\tNumber=Sing|Tense=Pres\t0\troot\t_\tSpaceAfter=No\n"
                              "3\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\n\n",
                              "fixed")
                       ->front();
    const int nodes = static_cast<int>(sentence.tokens.size()) + 1;
    const auto matches = p->match(sentence, 10000);
    if (!std::is_sorted(matches.begin(), matches.end()) || std::adjacent_find(matches.begin(), matches.end()) != matches.end())
        std::abort();
    const auto &names = p->names();
    for (const auto &m : matches) {
        if (m.nodes.size() != names.size())
            std::abort();
        for (std::size_t i = 0; i < m.nodes.size(); ++i) {
            if (m.nodes[i] < 0 || m.nodes[i] >= nodes)
                std::abort();
            for (std::size_t j = 0; j < i; ++j)
                if (m.nodes[i] == m.nodes[j] && names[i].back() != '$' && names[j].back() != '$')
                    std::abort();
        }
    }
    if (p->match(sentence, 3).size() > 3)
        std::abort();
    return 0;
}
