// Parsing both sides of a pair corpus (see pairparsing.h).
#include "core/parsing/pairparsing.h"

#include <algorithm>
#include <map>

namespace treelens {

Result<std::size_t> parsePairCorpus(PairCorpus &corpus, Parser &parser, const RunControl &control, int maxWords,
                                    std::size_t batchSize)
{
    // Each distinct sentence once: a ranking group's question is shared.
    std::vector<Sentence *> targets;
    std::map<std::string, Sentence *> question;
    std::vector<std::pair<Sentence *, Sentence *>> copies; // (pair's first, the parsed question)
    for (auto &p : corpus.pairs) {
        if (corpus.task == kRankingTask) {
            const std::string key = p.group + '\n' + p.first.text;
            auto [it, fresh] = question.emplace(key, &p.first);
            if (fresh)
                targets.push_back(&p.first);
            else
                copies.push_back({&p.first, it->second});
        } else {
            targets.push_back(&p.first);
        }
        targets.push_back(&p.second);
    }
    std::size_t unparsed = 0;
    batchSize = std::max<std::size_t>(1, batchSize);
    for (std::size_t start = 0; start < targets.size(); start += batchSize) {
        if (control.isCancelled())
            return cancelledError("parsing pairs");
        std::vector<Sentence> batch;
        std::vector<Sentence *> where;
        const std::size_t end = std::min(targets.size(), start + batchSize);
        for (std::size_t i = start; i < end; ++i) {
            Sentence *s = targets[i];
            if (s->tokens.empty() || s->tokens.size() > static_cast<std::size_t>(maxWords)) {
                ++unparsed;
                continue;
            }
            batch.push_back(*s);
            where.push_back(s);
        }
        // The parser reports its progress within this batch: passed on as a position in the
        // whole corpus, so the count only goes up (it ran "112/256" back to "16/256").
        RunControl inBatch;
        inBatch.cancelled = control.cancelled;
        const std::size_t total = targets.size();
        inBatch.progress = [&control, start, total](std::size_t done, std::size_t, const std::string &) {
            control.report(std::min(total, start + done), total, "parsing both sides");
        };
        auto parsed = parser.parseAll(batch, inBatch);
        if (parsed && parsed->size() == where.size()) {
            for (std::size_t i = 0; i < where.size(); ++i)
                *where[i] = std::move((*parsed)[i]);
        } else {
            if (!parsed && isCancelled(parsed.error()))
                return cancelledError("parsing pairs");
            unparsed += where.size();
        }
        control.report(end, targets.size(), "parsing both sides");
    }
    for (auto &[first, parsed] : copies) {
        first->dependency = parsed->dependency;
        first->constituency = parsed->constituency;
        first->metadata = parsed->metadata;
    }
    return unparsed;
}

} // namespace treelens
