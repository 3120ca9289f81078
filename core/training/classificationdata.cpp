// The labelled data of the classification trainers (see classificationdata.h).
#include "core/training/classificationdata.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "core/base/inputlimits.h"
#include "core/formats/labelledtext.h"
#include "core/formats/pairs.h"
#include "core/formats/plaintext.h"
#include "core/parsing/parser.h"

namespace treelens::training {

using nlohmann::json;

/// The polarity-style data: two files of one sentence per line, split 80/10/10 by a seed.
Result<LabelledSplit> readPolaritySplit(const std::string &dataJson)
{
    json data;
    try {
        data = json::parse(dataJson);
    } catch (const std::exception &e) {
        return makeError("recipe", std::string("data: ") + e.what());
    }
    std::vector<LabelledExample> all;
    const std::vector<std::pair<std::string, int>> files = {{data.at("negative").get<std::string>(), 0},
                                                            {data.at("positive").get<std::string>(), 1}};
    for (const auto &[path, label] : files) {
        auto text = readFileLimited(path, inputLimits().maxTextFileBytes);
        if (!text)
            return text.error();
        auto sentences = readPlainText(*text, path);
        if (!sentences)
            return sentences.error();
        for (auto &s : *sentences)
            all.push_back({std::move(s), label, std::nullopt});
    }
    std::mt19937_64 rng(data.value("split_seed", 1u));
    std::shuffle(all.begin(), all.end(), rng);
    const std::size_t n = all.size(), nTrain = n * 8 / 10, nDev = n / 10;
    LabelledSplit split(3);
    for (std::size_t i = 0; i < n; ++i)
        split[i < nTrain ? 0 : i < nTrain + nDev ? 1 : 2].push_back(std::move(all[i]));
    return split;
}

/// TREC question classification (Li & Roth): train and test files of `COARSE:fine words`
/// lines; the development set is a seeded `dev_fraction` of the training file (the
/// test file is only scored at the end). Classes: the coarse labels (or, with
/// "labels": "fine", the full ones) of the training file, sorted.
Result<LabelledSplit> readTrecSplit(const std::string &dataJson, std::vector<std::string> &classes, std::string &notesJson)
{
    const json data = json::parse(dataJson);
    const bool fine = data.value("labels", std::string("coarse")) == "fine";
    const double devFraction = data.value("dev_fraction", 0.1);
    if (!(devFraction > 0 && devFraction < 0.5))
        return makeError("recipe", "data.dev_fraction must be in (0, 0.5)");
    std::vector<std::vector<LabelledSentence>> parts;
    int latin1 = 0;
    for (const char *key : {"trec_train", "trec_test"}) {
        const std::string path = data.at(key).get<std::string>();
        auto text = readFileLimited(path, inputLimits().maxTextFileBytes);
        if (!text)
            return text.error();
        auto read = readLabelledText(*text, path);
        if (!read)
            return read.error();
        latin1 += read->latin1Lines;
        parts.push_back(std::move(read->sentences));
    }
    std::set<std::string> labels;
    for (const auto &s : parts[0])
        labels.insert(fine ? s.label : s.coarseLabel);
    classes.assign(labels.begin(), labels.end());
    auto index = [&](const LabelledSentence &s) -> int {
        const auto it = std::find(classes.begin(), classes.end(), fine ? s.label : s.coarseLabel);
        return it == classes.end() ? -1 : static_cast<int>(it - classes.begin());
    };
    std::vector<LabelledExample> train;
    for (auto &s : parts[0])
        train.push_back({std::move(s.sentence), index(s), std::nullopt});
    std::mt19937_64 rng(data.value("split_seed", 1u));
    std::shuffle(train.begin(), train.end(), rng);
    const auto nDev = static_cast<std::size_t>(std::lround(static_cast<double>(train.size()) * devFraction));
    LabelledSplit split(3);
    split[1].assign(std::make_move_iterator(train.begin()), std::make_move_iterator(train.begin() + static_cast<std::ptrdiff_t>(nDev)));
    split[0].assign(std::make_move_iterator(train.begin() + static_cast<std::ptrdiff_t>(nDev)), std::make_move_iterator(train.end()));
    int unseen = 0;
    for (auto &s : parts[1]) {
        const int k = index(s);
        if (k < 0) {
            ++unseen; // a test label the training file never has: cannot be predicted, left out and counted
            continue;
        }
        split[2].push_back({std::move(s.sentence), k, std::nullopt});
    }
    notesJson = json{{"latin1_lines", latin1}, {"test_unseen_labels", unseen}, {"labels", fine ? "fine" : "coarse"}}.dump();
    return split;
}

/// RTE for the pair head: "rte_train" and "rte_test" lists of RTE XML files
/// (core/formats/pairs.h); dev = a seeded `dev_fraction` of the training pairs.
/// Classes: the training files' label set ({"NO", "YES"} for RTE 1-3), which the
/// test files must share.
Result<LabelledSplit> readRteSplit(const std::string &dataJson, std::vector<std::string> &classes, std::string &notesJson)
{
    const json data = json::parse(dataJson);
    const double devFraction = data.value("dev_fraction", 0.1);
    if (!(devFraction > 0 && devFraction < 0.5))
        return makeError("recipe", "data.dev_fraction must be in (0, 0.5)");
    std::vector<std::vector<LabelledExample>> parts(2);
    std::vector<std::string> labelSets[2];
    for (int part = 0; part < 2; ++part) {
        const char *key = part == 0 ? "rte_train" : "rte_test";
        const auto files = data.at(key).is_array() ? data.at(key).get<std::vector<std::string>>()
                                                   : std::vector<std::string>{data.at(key).get<std::string>()};
        for (const auto &path : files) {
            auto text = readFileLimited(path, inputLimits().maxTextFileBytes);
            if (!text)
                return text.error();
            auto corpus = readRteXml(*text, path);
            if (!corpus)
                return corpus.error();
            if (labelSets[part].empty())
                labelSets[part] = corpus->labels;
            else if (labelSets[part] != corpus->labels)
                return makeError(path, "its label set differs from the other files' of " + std::string(key));
            for (auto &p : corpus->pairs) {
                const auto it = std::find(corpus->labels.begin(), corpus->labels.end(), p.label);
                parts[static_cast<std::size_t>(part)].push_back(
                    {std::move(p.first), static_cast<int>(it - corpus->labels.begin()), std::move(p.second)});
            }
        }
    }
    if (labelSets[0] != labelSets[1])
        return makeError("recipe", "the rte_train and rte_test files have different label sets");
    classes = labelSets[0];
    std::mt19937_64 rng(data.value("split_seed", 1u));
    std::shuffle(parts[0].begin(), parts[0].end(), rng);
    const auto nDev = static_cast<std::size_t>(std::lround(static_cast<double>(parts[0].size()) * devFraction));
    LabelledSplit split(3);
    split[1].assign(std::make_move_iterator(parts[0].begin()), std::make_move_iterator(parts[0].begin() + static_cast<std::ptrdiff_t>(nDev)));
    split[0].assign(std::make_move_iterator(parts[0].begin() + static_cast<std::ptrdiff_t>(nDev)), std::make_move_iterator(parts[0].end()));
    split[2] = std::move(parts[1]);
    notesJson = json{{"task", "pair-classification"}}.dump();
    return split;
}

Status parseSplit(LabelledSplit &split, bool pairs, int maxWords, bool needConstituency, long &unparsed)
{
    auto parser = createParser(ParserConfig{});
    if (!parser)
        return parser.error();
    for (auto &part : split) {
        // Pairs: the texts, then the hypotheses, in one run of the parser.
        std::vector<Sentence> sentences;
        for (auto &e : part)
            sentences.push_back(e.sentence);
        if (pairs)
            for (auto &e : part)
                sentences.push_back(*e.second);
        CorpusParseOptions po;
        po.maxWords = maxWords;
        std::vector<std::string> failures;
        auto parsed = parseCorpus(**parser, std::move(sentences), "training data", po, &failures);
        if (!parsed)
            return parsed.error();
        auto usable = [&](const Sentence &s) { return s.dependency && (!needConstituency || s.constituency); };
        std::vector<LabelledExample> kept;
        for (std::size_t i = 0; i < part.size(); ++i) {
            Sentence &first = (*parsed)[i];
            Sentence *second = pairs ? &(*parsed)[part.size() + i] : nullptr;
            if (usable(first) && (!second || usable(*second))) {
                part[i].sentence = std::move(first);
                if (second)
                    part[i].second = std::move(*second);
                kept.push_back(std::move(part[i]));
            } else {
                ++unparsed;
            }
        }
        part = std::move(kept);
    }
    return {};
}

} // namespace treelens::training
