// The pair workbench's tables (see pairtable.h).
#include "core/eval/pairtable.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace treelens {

namespace {

void csvField(std::string &out, const std::string &field)
{
    if (field.find_first_of(",\"\r\n") == std::string::npos) {
        out += field;
        return;
    }
    out += '"';
    for (char c : field) {
        if (c == '"')
            out += '"';
        out += c;
    }
    out += '"';
}

std::string num(double x)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", x);
    return buf;
}

} // namespace

std::string corpusLabelFor(const Prediction &p, const PairCorpus &corpus)
{
    if (corpus.labels.size() != 2 || p.labels.size() != 2)
        return "";
    const bool positive = p.label == p.labels[1];
    for (const char *pos : {"1", "YES"})
        if (corpus.labels[1] == pos || corpus.labels[0] == pos) {
            const std::string neg = corpus.labels[0] == pos ? corpus.labels[1] : corpus.labels[0];
            return positive ? std::string(pos) : neg;
        }
    return positive ? corpus.labels[1] : corpus.labels[0];
}

std::vector<std::size_t> pairBlockStarts(const std::vector<SentencePair> &pairs, std::size_t block, std::size_t firstIndex)
{
    block = std::max<std::size_t>(1, block);
    std::vector<std::size_t> starts;
    std::size_t lastBlock = 0;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        const bool groupStart = i == 0 || pairs[i].group.empty() || pairs[i].group != pairs[i - 1].group;
        if (!groupStart)
            continue;
        const std::size_t b = (firstIndex + i) / block;
        if (starts.empty() || b != lastBlock) {
            starts.push_back(i);
            lastBlock = b;
        }
    }
    return starts;
}

Result<PairSystem> scorePairCorpus(Encoder &encoder, const PairCorpus &corpus, const RunControl *control, std::size_t chunk,
                                   std::size_t firstIndex)
{
    const EncoderInfo &info = encoder.info();
    if (!info.pairInput)
        return makeError(info.name, "a " + info.family + " model reads single sentences, not pairs");
    PairSystem out;
    out.name = info.name.empty() ? info.family : info.name;
    AnalyzeOptions options;
    options.attention = false;
    const std::vector<std::size_t> starts = pairBlockStarts(corpus.pairs, chunk, firstIndex);
    for (std::size_t k = 0; k < starts.size(); ++k) {
        if (control && control->isCancelled())
            return cancelledError("scoring pairs");
        std::vector<EncoderInput> batch;
        const std::size_t start = starts[k], end = k + 1 < starts.size() ? starts[k + 1] : corpus.pairs.size();
        for (std::size_t i = start; i < end; ++i) {
            batch.push_back(pairEncoderInput(corpus.pairs[i].first, corpus.pairs[i].second));
        }
        auto analyses = encoder.analyze(batch, options, control);
        if (!analyses)
            return makeError(corpus.source, "pairs " + std::to_string(start + 1) + "-" + std::to_string(end) + ": " +
                                                analyses.message());
        for (const auto &a : *analyses) {
            if (!a.prediction)
                return makeError(out.name, "the model gave no score for a pair");
            out.scores.push_back(a.prediction->score);
            out.predicted.push_back(corpusLabelFor(*a.prediction, corpus));
        }
        if (control)
            control->report(end, corpus.pairs.size(), "scoring pairs");
    }
    return out;
}

PairSystem idfBaselineSystem(const PairCorpus &corpus, const PairCorpus &idfSource)
{
    PairSystem s;
    s.name = kIdfBaselineName;
    s.scores = idfOverlapScores(corpus, candidateIdf(idfSource));
    s.predicted.assign(corpus.pairs.size(), "");
    return s;
}

Result<std::vector<QuestionRow>> questionRows(const PairCorpus &corpus, const PairSystem &a, const PairSystem *b)
{
    auto ea = evaluateRanking(corpus, a.scores);
    if (!ea)
        return ea.error();
    Result<RankingEval> eb = Error{""};
    if (b) {
        eb = evaluateRanking(corpus, b->scores);
        if (!eb)
            return eb.error();
    }
    std::vector<QuestionRow> rows;
    for (std::size_t g = 0; g < ea->groups.size(); ++g) {
        const GroupRanking &ga = ea->groups[g];
        QuestionRow r;
        r.ranked = ga.ranked; // corpus indices, best first
        if (r.ranked.empty())
            continue;
        r.group = ga.group;
        r.question = corpus.pairs[static_cast<std::size_t>(*std::min_element(r.ranked.begin(), r.ranked.end()))].first.text;
        r.candidates = ga.candidates;
        r.correct = ga.correct;
        r.used = ga.used;
        r.ap = ga.averagePrecision;
        r.rr = ga.reciprocalRank;
        r.firstCorrectRank = ga.firstCorrectRank;
        r.topA = r.ranked.front();
        if (b) {
            const GroupRanking &gb = eb->groups[g];
            r.hasB = true;
            r.apB = gb.averagePrecision;
            r.rrB = gb.reciprocalRank;
            r.firstCorrectRankB = gb.firstCorrectRank;
            r.topB = gb.ranked.empty() ? -1 : gb.ranked.front();
        }
        rows.push_back(std::move(r));
    }
    return rows;
}

void sortWorstFirst(std::vector<QuestionRow> &rows)
{
    std::stable_sort(rows.begin(), rows.end(), [](const QuestionRow &x, const QuestionRow &y) {
        if (x.used != y.used)
            return x.used;
        if (x.ap != y.ap)
            return x.ap < y.ap;
        if (x.rr != y.rr)
            return x.rr < y.rr;
        return x.group < y.group;
    });
}

std::vector<QuestionRow> disagreements(const std::vector<QuestionRow> &rows)
{
    std::vector<QuestionRow> out;
    for (const auto &r : rows)
        if (r.topDisagrees())
            out.push_back(r);
    return out;
}

std::string questionRowsCsv(const std::vector<QuestionRow> &rows)
{
    const bool b = !rows.empty() && rows.front().hasB;
    std::string out = "group,question,candidates,correct,used,ap,rr,first_correct_rank";
    if (b)
        out += ",ap_b,rr_b,delta_ap,top_disagrees";
    out += "\r\n";
    for (const auto &r : rows) {
        csvField(out, r.group);
        out += ',';
        csvField(out, r.question);
        out += ',' + std::to_string(r.candidates) + ',' + std::to_string(r.correct) + ',' + (r.used ? "1" : "0") + ',' +
               num(r.ap) + ',' + num(r.rr) + ',' + std::to_string(r.firstCorrectRank);
        if (b)
            out += ',' + num(r.apB) + ',' + num(r.rrB) + ',' + num(r.deltaAp()) + ',' + (r.topDisagrees() ? "1" : "0");
        out += "\r\n";
    }
    return out;
}

std::string questionRowsJson(const std::vector<QuestionRow> &rows)
{
    nlohmann::json a = nlohmann::json::array();
    for (const auto &r : rows) {
        nlohmann::json j = {{"group", r.group}, {"question", r.question}, {"candidates", r.candidates},
                            {"correct", r.correct}, {"used", r.used}, {"ap", r.ap}, {"rr", r.rr},
                            {"first_correct_rank", r.firstCorrectRank}, {"ranked", r.ranked}};
        if (r.hasB) {
            j["ap_b"] = r.apB;
            j["rr_b"] = r.rrB;
            j["delta_ap"] = r.deltaAp();
            j["top_disagrees"] = r.topDisagrees();
        }
        a.push_back(j);
    }
    return a.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<std::vector<SliceRow>> sliceRows(const PairCorpus &corpus, const PairSystem &system, SliceKind kind,
                                        const std::string &text)
{
    std::vector<SliceRow> rows;
    const bool ranking = corpus.task == kRankingTask;
    for (const auto &s : slicePairs(corpus, kind, text)) {
        SliceRow r;
        r.kind = sliceKindName(kind);
        r.slice = s.name;
        r.pairs = s.pairs.size();
        if (ranking) {
            auto e = evaluateRankingSlice(corpus, system.scores, s);
            if (!e)
                return e.error();
            r.questions = e->groupsUsed;
            r.map = e->map;
            r.mrr = e->mrr;
            r.p1 = e->precisionAt1;
        } else {
            auto e = evaluateClassificationSlice(corpus, system.predicted, s);
            if (!e)
                return e.error();
            r.accuracy = e->accuracy;
            r.macroF1 = e->macroF1;
        }
        rows.push_back(r);
    }
    return rows;
}

std::string sliceRowsCsv(const std::vector<SliceRow> &rows, bool ranking)
{
    std::string out = ranking ? "kind,slice,pairs,questions,map,mrr,p_at_1\r\n" : "kind,slice,pairs,accuracy,macro_f1\r\n";
    for (const auto &r : rows) {
        csvField(out, r.kind);
        out += ',';
        csvField(out, r.slice);
        out += ',' + std::to_string(r.pairs);
        if (ranking)
            out += ',' + std::to_string(r.questions) + ',' + num(r.map) + ',' + num(r.mrr) + ',' + num(r.p1);
        else
            out += ',' + num(r.accuracy) + ',' + num(r.macroF1);
        out += "\r\n";
    }
    return out;
}

std::string sliceRowsJson(const std::vector<SliceRow> &rows, bool ranking)
{
    nlohmann::json a = nlohmann::json::array();
    for (const auto &r : rows) {
        nlohmann::json j = {{"kind", r.kind}, {"slice", r.slice}, {"pairs", r.pairs}};
        if (ranking) {
            j["questions"] = r.questions;
            j["map"] = r.map;
            j["mrr"] = r.mrr;
            j["p_at_1"] = r.p1;
        } else {
            j["accuracy"] = r.accuracy;
            j["macro_f1"] = r.macroF1;
        }
        a.push_back(j);
    }
    return a.dump(1);
}

} // namespace treelens
