#include "core/eval/minimalpairs.h"

#include <cmath>

#include "core/base/inputlimits.h"
#include "core/base/jsonstrict.h"
#include "core/base/strings.h"

namespace treelens {

namespace {

Error lineError(const std::string &source, int line, const std::string &message)
{
    return makeError(source + ":" + std::to_string(line), message);
}

/// A JSON value that names something: a string as it is, a number written out.
std::string nameOf(const nlohmann::json &v)
{
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_number_integer())
        return std::to_string(v.get<long long>());
    return v.is_null() ? std::string() : v.dump();
}

Result<MinimalPair> jsonPair(std::string_view line, const std::string &source, int number)
{
    auto j = parseJsonStrict(line, source + ":" + std::to_string(number));
    if (!j)
        return j.error();
    if (!j->is_object())
        return lineError(source, number, "a pair line is a JSON object with \"sentence_good\" and \"sentence_bad\"");
    MinimalPair p;
    p.line = number;
    for (const char *key : {"sentence_good", "sentence_bad"}) {
        const auto it = j->find(key);
        if (it == j->end() || !it->is_string())
            return lineError(source, number, std::string("no \"") + key + "\" string");
        const std::string text(trimView(it->get<std::string>()));
        if (text.empty())
            return lineError(source, number, std::string("\"") + key + "\" is empty");
        (std::string(key) == "sentence_good" ? p.good : p.bad) = text;
    }
    for (const char *key : {"UID", "linguistics_term", "field"})
        if (j->contains(key) && p.phenomenon.empty())
            p.phenomenon = nameOf((*j)[key]);
    p.id = j->contains("pairID") ? nameOf((*j)["pairID"]) : std::to_string(number);
    return p;
}

} // namespace

std::vector<std::string> pairWords(const std::string &text)
{
    std::vector<std::string> words;
    std::string word;
    for (char c : text) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            if (!word.empty())
                words.push_back(std::move(word));
            word.clear();
        } else {
            word += c;
        }
    }
    if (!word.empty())
        words.push_back(std::move(word));
    return words;
}

Result<std::vector<MinimalPair>> readMinimalPairs(const std::string &text, const std::string &source)
{
    auto checked = checkedText(text, source);
    if (!checked)
        return checked.error();
    const auto lines = splitView(*checked, '\n');
    std::vector<MinimalPair> out;
    bool json = false, decided = false;
    int phenomenonColumn = -1;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const int number = static_cast<int>(i) + 1;
        std::string_view line = lines[i];
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (trimView(line).empty())
            continue;
        if (!decided) {
            decided = true;
            json = trimView(line).front() == '{';
            if (!json) { // the TSV header
                const auto cols = splitView(line, '\t');
                if (cols.size() < 2 || trimView(cols[0]) != "good" || trimView(cols[1]) != "bad" || cols.size() > 3 ||
                    (cols.size() == 3 && trimView(cols[2]) != "phenomenon"))
                    return lineError(source, number,
                                     "a pair file is BLiMP JSON Lines, or a TSV whose header is good<TAB>bad[<TAB>phenomenon]");
                phenomenonColumn = cols.size() == 3 ? 2 : -1;
                continue;
            }
        }
        if (json) {
            auto p = jsonPair(line, source, number);
            if (!p)
                return p.error();
            out.push_back(std::move(*p));
            continue;
        }
        const auto cols = splitView(line, '\t');
        const std::size_t want = phenomenonColumn < 0 ? 2 : 3;
        if (cols.size() != want)
            return lineError(source, number, std::to_string(cols.size()) + " columns, the header has " + std::to_string(want));
        MinimalPair p;
        p.line = number;
        p.id = std::to_string(number);
        p.good = std::string(trimView(cols[0]));
        p.bad = std::string(trimView(cols[1]));
        if (phenomenonColumn >= 0)
            p.phenomenon = std::string(trimView(cols[2]));
        if (p.good.empty() || p.bad.empty())
            return lineError(source, number, "an empty sentence");
        out.push_back(std::move(p));
    }
    if (out.empty())
        return makeError(source, "no pairs");
    return out;
}

Result<std::vector<MinimalPair>> readMinimalPairsFile(const std::string &path)
{
    auto text = readFileLimited(path, inputLimits().maxTextFileBytes);
    if (!text)
        return text.error();
    return readMinimalPairs(*text, path);
}

std::optional<int> firstDifference(const std::vector<std::string> &a, const std::vector<std::string> &b)
{
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i)
        if (a[i] != b[i])
            return static_cast<int>(i);
    if (a.size() != b.size())
        return static_cast<int>(n);
    return std::nullopt;
}

Proportion wilsonInterval(int hits, int total)
{
    Proportion p;
    p.hits = hits;
    p.total = total;
    if (total <= 0)
        return p;
    const double z = 1.96, n = total, phat = hits / n;
    const double denom = 1.0 + z * z / n;
    const double centre = (phat + z * z / (2 * n)) / denom;
    const double half = z * std::sqrt(phat * (1 - phat) / n + z * z / (4 * n * n)) / denom;
    p.value = phat;
    p.low = std::max(0.0, centre - half);
    p.high = std::min(1.0, centre + half);
    return p;
}

PairSummary summarizePairs(const std::vector<bool> &correct, const std::vector<double> &margin,
                           const std::vector<std::string> &phenomenon)
{
    PairSummary s;
    std::map<std::string, std::pair<int, int>> counts;
    std::map<std::string, double> sums;
    int hits = 0;
    double sum = 0.0;
    for (std::size_t i = 0; i < correct.size(); ++i) {
        const std::string name = i < phenomenon.size() && !phenomenon[i].empty() ? phenomenon[i] : "(none)";
        auto &c = counts[name];
        c.first += correct[i] ? 1 : 0;
        c.second += 1;
        hits += correct[i] ? 1 : 0;
        const double m = i < margin.size() ? margin[i] : 0.0;
        sums[name] += m;
        sum += m;
    }
    s.accuracy = wilsonInterval(hits, static_cast<int>(correct.size()));
    s.meanMargin = correct.empty() ? 0.0 : sum / static_cast<double>(correct.size());
    for (const auto &[name, c] : counts) {
        s.byPhenomenon[name] = wilsonInterval(c.first, c.second);
        s.marginByPhenomenon[name] = sums[name] / c.second;
    }
    return s;
}

} // namespace treelens
