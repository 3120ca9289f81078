#include "core/formats/pairs.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

#include <sys/stat.h>

#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "core/base/fileio.h"
#include "core/base/inputlimits.h"
#include "core/base/jsonstrict.h"
#include "core/base/strings.h"
#include "core/base/utf8.h"
#include "core/formats/treelensjson.h"
#include "core/text/tokenizer.h"

namespace treelens {

using nlohmann::json;

namespace {

const std::vector<std::string> kRankingLabels = {"0", "1"};
const char *const kAsciiSpace = " \t\r\v\f";

Error lineError(const std::string &source, int line, const std::string &what)
{
    return makeError(source + ":" + std::to_string(line), what);
}

// The lines of a text file: a final newline does not start another line, and a
// CR before a newline is dropped (CRLF files read like LF files).
std::vector<std::string_view> fileLines(std::string_view text)
{
    std::vector<std::string_view> lines = splitView(text, '\n');
    if (!lines.empty() && lines.back().empty())
        lines.pop_back();
    for (auto &l : lines)
        while (!l.empty() && l.back() == '\r')
            l.remove_suffix(1);
    return lines;
}

// Input quoted in a message: at most 40 bytes (cut at a character boundary).
std::string quotedInput(std::string_view s)
{
    if (s.size() <= 40)
        return "'" + std::string(s) + "'";
    std::size_t cut = 37;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
        --cut;
    return "'" + std::string(s.substr(0, cut)) + "...'";
}

// An already tokenised line (WikiQA): tokens are separated by ASCII white space
// and keep their offsets into the line, which becomes Sentence::text.
Sentence pretokenizedSentence(std::string_view line, int lineNo)
{
    Sentence s;
    s.text = std::string(line);
    s.line = lineNo;
    std::size_t pos = 0;
    while (pos < line.size()) {
        const auto b = line.find_first_not_of(kAsciiSpace, pos);
        if (b == std::string_view::npos)
            break;
        auto e = line.find_first_of(kAsciiSpace, b);
        if (e == std::string_view::npos)
            e = line.size();
        Token t;
        t.text = std::string(line.substr(b, e - b));
        t.charStart = static_cast<int>(b);
        t.charEnd = static_cast<int>(e);
        s.tokens.push_back(std::move(t));
        pos = e;
    }
    return s;
}

// Raw text tokenised as plaintext.cpp does (the project's Tokenizer).
Sentence tokenizedSentence(const Tokenizer &tokenizer, std::string_view text, int lineNo)
{
    Sentence s;
    s.text = std::string(text);
    s.tokens = tokenizer.tokenize(s.text);
    markSpaceAfter(s.tokens, s.text);
    s.line = lineNo;
    return s;
}

// Default ids of a ranking corpus: "q<ID>" for the question, "q<ID>.c<K>" for its
// K-th candidate; ids already set are kept.
void assignRankingIds(std::vector<SentencePair> &pairs)
{
    std::unordered_map<std::string, int> candidates;
    for (auto &p : pairs) {
        const int k = ++candidates[p.group];
        if (p.first.id.empty())
            p.first.id = "q" + p.group;
        if (p.second.id.empty())
            p.second.id = "q" + p.group + ".c" + std::to_string(k);
    }
}

PairCorpus rankingCorpus(std::vector<SentencePair> pairs, const std::string &source)
{
    PairCorpus c;
    assignRankingIds(pairs);
    c.pairs = std::move(pairs);
    c.task = kRankingTask;
    c.labels = kRankingLabels;
    c.source = source;
    return c;
}

// Counts lines incrementally for offsets visited in increasing order (pugixml
// nodes, JSON pairs): lineOfOffset() per node would be quadratic.
class LineCounter {
public:
    explicit LineCounter(std::string_view text) : m_text(text) {}
    int lineAt(std::size_t offset)
    {
        offset = std::min(offset, m_text.size());
        if (offset < m_pos) {
            m_pos = 0;
            m_line = 1;
        }
        m_line += static_cast<int>(std::count(m_text.begin() + static_cast<std::ptrdiff_t>(m_pos),
                                              m_text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
        m_pos = offset;
        return m_line;
    }

private:
    std::string_view m_text;
    std::size_t m_pos = 0;
    int m_line = 1;
};

// ------------------------------------------------------------------ WikiQA

struct WikiQaFile {
    const char *name;
    std::string_view text;
    std::vector<std::string_view> lines;
};

// The file whose line count differs from what most of the four files agree on.
Status checkLineCounts(const WikiQaFile (&files)[4], const std::string &folder)
{
    std::map<std::size_t, int> votes;
    for (const auto &f : files)
        ++votes[f.lines.size()];
    std::size_t expected = files[0].lines.size(); // ties: a.toks decides
    int best = votes[expected];
    for (const auto &[count, n] : votes)
        if (n > best) {
            expected = count;
            best = n;
        }
    for (const auto &f : files) {
        if (f.lines.size() == expected)
            continue;
        std::vector<std::string> agree;
        for (const auto &g : files)
            if (g.lines.size() == expected)
                agree.emplace_back(g.name);
        const std::string others = agree.size() == 1 ? agree[0] + " has"
                                                     : join({agree.begin(), agree.end() - 1}, ", ") + " and " + agree.back() + " have";
        return makeError(folder + "/" + f.name, std::to_string(f.lines.size()) + (f.lines.size() == 1 ? " line" : " lines") + ", but " +
                                                    others + " " + std::to_string(expected) + " (each file has one line per pair)");
    }
    return {};
}

} // namespace

Result<PairCorpus> readWikiQa(const WikiQaFiles &input, const std::string &folder)
{
    WikiQaFile files[4] = {{"a.toks", input.questions, {}}, {"b.toks", input.candidates, {}},
                           {"id.txt", input.ids, {}}, {"sim.txt", input.labels, {}}};
    for (auto &f : files) {
        auto checked = checkedText(f.text, folder + "/" + f.name);
        if (!checked)
            return checked.error();
        f.lines = fileLines(*checked);
    }
    if (auto st = checkLineCounts(files, folder); !st)
        return st.error();
    const std::string qFile = folder + "/a.toks", cFile = folder + "/b.toks", idFile = folder + "/id.txt",
                      labelFile = folder + "/sim.txt";
    std::vector<SentencePair> pairs;
    pairs.reserve(files[0].lines.size());
    for (std::size_t i = 0; i < files[0].lines.size(); ++i) {
        const int lineNo = static_cast<int>(i) + 1;
        SentencePair p;
        p.group = std::string(trimView(files[2].lines[i]));
        if (p.group.empty())
            return lineError(idFile, lineNo, "empty question id");
        const std::string_view label = trimView(files[3].lines[i]);
        if (label != "0" && label != "1")
            return lineError(labelFile, lineNo, "label " + quotedInput(label) + " is not 0 or 1");
        p.label = std::string(label);
        p.first = pretokenizedSentence(files[0].lines[i], lineNo);
        if (p.first.tokens.empty())
            return lineError(qFile, lineNo, "empty question");
        p.second = pretokenizedSentence(files[1].lines[i], lineNo);
        if (p.second.tokens.empty())
            return lineError(cFile, lineNo, "empty candidate sentence");
        pairs.push_back(std::move(p));
    }
    return rankingCorpus(std::move(pairs), folder);
}

Result<PairCorpus> readWikiQaFolder(const std::string &folder)
{
    std::string dir = folder;
    while (dir.size() > 1 && dir.back() == '/')
        dir.pop_back();
    std::string texts[4];
    const char *names[4] = {"a.toks", "b.toks", "id.txt", "sim.txt"};
    for (int k = 0; k < 4; ++k) {
        auto text = readFileLimited(dir + "/" + names[k], inputLimits().maxTextFileBytes);
        if (!text)
            return text.error();
        texts[k] = std::move(*text);
    }
    return readWikiQa(WikiQaFiles{texts[0], texts[1], texts[2], texts[3]}, dir);
}

// --------------------------------------------------------------------- TSV

namespace {

const char *const kTsvHeader = "qid\tquestion\tcandidate\tlabel";

bool isNumber(std::string_view s)
{
    if (s.empty())
        return false;
    const std::string str(s);
    char *end = nullptr;
    (void)std::strtod(str.c_str(), &end);
    return end == str.c_str() + str.size();
}

} // namespace

Result<PairCorpus> readPairsTsv(std::string_view input, const std::string &source)
{
    auto checked = checkedText(input, source);
    if (!checked)
        return checked.error();
    const std::vector<std::string_view> lines = fileLines(*checked);
    const Tokenizer tokenizer;
    std::vector<SentencePair> pairs;
    bool first = true;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const int lineNo = static_cast<int>(i) + 1;
        if (trimView(lines[i]).empty())
            continue;
        const std::vector<std::string_view> cols = splitView(lines[i], '\t');
        const bool header = first && (lines[i] == kTsvHeader || (cols.size() == 4 && toLowerAscii(trimView(cols[3])) == "label"));
        first = false;
        if (header)
            continue;
        if (cols.size() != 4)
            return lineError(source, lineNo, "expected 4 tab-separated columns (qid, question, candidate, label), found " +
                                                 std::to_string(cols.size()));
        SentencePair p;
        p.group = std::string(trimView(cols[0]));
        if (p.group.empty())
            return lineError(source, lineNo, "empty question id (column 1)");
        const std::string_view label = trimView(cols[3]);
        if (label != "0" && label != "1")
            return lineError(source, lineNo, isNumber(label) ? "label " + quotedInput(label) + " is not 0 or 1"
                                                             : "non-numeric label " + quotedInput(label) + " (a ranking TSV has labels 0 and 1)");
        p.label = std::string(label);
        p.first = tokenizedSentence(tokenizer, trimView(cols[1]), lineNo);
        if (p.first.tokens.empty())
            return lineError(source, lineNo, "empty question (column 2)");
        p.second = tokenizedSentence(tokenizer, trimView(cols[2]), lineNo);
        if (p.second.tokens.empty())
            return lineError(source, lineNo, "empty candidate sentence (column 3)");
        pairs.push_back(std::move(p));
    }
    return rankingCorpus(std::move(pairs), source);
}

// --------------------------------------------------------------------- RTE

namespace {

const char *const kRteLabels = "YES, NO, TRUE, FALSE, ENTAILMENT, CONTRADICTION, UNKNOWN";

// TRUE/YES/ENTAILMENT -> YES, FALSE/NO -> NO, UNKNOWN, CONTRADICTION; "" if none.
std::string normalizeRteLabel(std::string_view value)
{
    std::string v = toLowerAscii(trimView(value));
    if (v == "true" || v == "yes" || v == "entailment")
        return "YES";
    if (v == "false" || v == "no")
        return "NO";
    if (v == "unknown")
        return "UNKNOWN";
    if (v == "contradiction")
        return "CONTRADICTION";
    return {};
}

std::vector<std::string> rteLabelSet(const std::vector<SentencePair> &pairs)
{
    std::set<std::string> used;
    for (const auto &p : pairs)
        used.insert(p.label);
    if (!used.count("UNKNOWN") && !used.count("CONTRADICTION"))
        return {"NO", "YES"};
    std::vector<std::string> out;
    if (used.count("NO"))
        out.push_back("NO");
    for (const char *l : {"YES", "UNKNOWN", "CONTRADICTION"})
        out.emplace_back(l);
    return out;
}

// All character data under `node`, in document order, with runs of white space
// collapsed to one space and the ends trimmed. Iterative: nesting depth is the
// input's to choose.
std::string elementText(const pugi::xml_node &node)
{
    std::string raw;
    pugi::xml_node cur = node.first_child();
    while (cur) {
        if (cur.type() == pugi::node_pcdata || cur.type() == pugi::node_cdata)
            raw += cur.value();
        if (cur.first_child()) {
            cur = cur.first_child();
            continue;
        }
        while (cur && cur != node && !cur.next_sibling())
            cur = cur.parent();
        if (!cur || cur == node)
            break;
        cur = cur.next_sibling();
    }
    std::string out;
    bool space = false;
    for (const char c : raw) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            space = !out.empty();
            continue;
        }
        if (space)
            out += ' ';
        space = false;
        out += c;
    }
    return out;
}

class RteReader {
public:
    RteReader(std::string_view text, const std::string &source) : m_text(text), m_source(source), m_lines(text) {}

    Result<PairCorpus> run()
    {
        pugi::xml_document doc;
        // The text was checked as UTF-8: no encoding guess (and no conversion, so
        // node offsets index m_text). pugixml never loads DTDs or external entities.
        const pugi::xml_parse_result parsed = doc.load_buffer(m_text.data(), m_text.size(), pugi::parse_default, pugi::encoding_utf8);
        if (!parsed)
            return lineError(m_source, lineOfOffset(m_text, static_cast<std::size_t>(std::max<std::ptrdiff_t>(parsed.offset, 0))),
                             std::string("XML error: ") + parsed.description());
        const pugi::xml_node root = doc.document_element();
        if (std::strcmp(root.name(), "entailment-corpus") != 0)
            return lineError(m_source, lineOf(root), "root element is <" + std::string(root.name()) +
                                                         ">, not <entailment-corpus> (not a PASCAL RTE file)");
        std::vector<SentencePair> pairs;
        std::unordered_map<std::string, int> seen;
        for (const pugi::xml_node &node : root.children("pair")) {
            auto p = readPair(node);
            if (!p)
                return p.error();
            const auto [it, inserted] = seen.emplace(p->group, lineOf(node));
            if (!inserted)
                return lineError(m_source, lineOf(node), "pair id " + quotedInput(p->group) + " repeats the pair at line " + std::to_string(it->second));
            pairs.push_back(std::move(*p));
        }
        PairCorpus c;
        c.labels = rteLabelSet(pairs);
        c.pairs = std::move(pairs);
        c.task = kClassificationTask;
        c.source = m_source;
        return c;
    }

private:
    int lineOf(const pugi::xml_node &node)
    {
        const std::ptrdiff_t offset = node.offset_debug();
        return offset < 0 ? 0 : m_lines.lineAt(static_cast<std::size_t>(offset));
    }

    Result<SentencePair> readPair(const pugi::xml_node &node)
    {
        const int line = lineOf(node);
        SentencePair p;
        const pugi::xml_attribute id = node.attribute("id");
        if (!id)
            return lineError(m_source, line, "pair has no 'id' attribute");
        p.group = std::string(trimView(id.value()));
        if (p.group.empty())
            return lineError(m_source, line, "pair has an empty 'id'");
        pugi::xml_attribute label = node.attribute("entailment");
        if (!label)
            label = node.attribute("value");
        if (!label)
            return lineError(m_source, line, "pair has no 'entailment' or 'value' attribute");
        p.label = normalizeRteLabel(label.value());
        if (p.label.empty())
            return lineError(m_source, line, "pair " + quotedInput(p.group) + ": label " + quotedInput(label.value()) + " is not one of " + kRteLabels);
        auto t = side(node, "t", p.group, line);
        if (!t)
            return t.error();
        auto h = side(node, "h", p.group, line);
        if (!h)
            return h.error();
        p.first = std::move(*t);
        p.first.id = p.group + ".t";
        p.second = std::move(*h);
        p.second.id = p.group + ".h";
        return p;
    }

    // The one <t> or <h> of a pair, as a tokenised sentence.
    Result<Sentence> side(const pugi::xml_node &pair, const char *name, const std::string &id, int pairLine)
    {
        const pugi::xml_node el = pair.child(name);
        const std::string tag = std::string("<") + name + ">";
        if (!el)
            return lineError(m_source, pairLine, "pair " + quotedInput(id) + " has no " + tag + " element");
        if (const pugi::xml_node again = el.next_sibling(name))
            return lineError(m_source, lineOf(again), "pair " + quotedInput(id) + " has more than one " + tag + " element");
        const int line = lineOf(el);
        const std::string text = elementText(el);
        // Character references (&#xD800;) can spell what the UTF-8 check let through.
        if (findInvalidUtf8(text) >= 0)
            return lineError(m_source, line, "pair " + quotedInput(id) + ": " + tag + " holds a character reference that is not valid UTF-8");
        Sentence s = tokenizedSentence(m_tokenizer, text, line);
        if (s.tokens.empty())
            return lineError(m_source, line, "pair " + quotedInput(id) + " has an empty " + tag);
        return s;
    }

    std::string_view m_text;
    const std::string &m_source;
    LineCounter m_lines;
    const Tokenizer m_tokenizer;
};

} // namespace

Result<PairCorpus> readRteXml(std::string_view input, const std::string &source)
{
    auto checked = checkedText(input, source);
    if (!checked)
        return checked.error();
    return RteReader(*checked, source).run();
}

// -------------------------------------------------------------------- JSON

namespace {

const char *const kJsonFormat = "treelens-pairs";

// Byte offsets where the elements of the top-level "pairs" array start.
// nlohmann::json keeps no positions, so the text (already parsed, hence well
// formed) is scanned for them; a key spelt with escapes is not found, and then
// messages go without a line.
std::vector<std::size_t> pairOffsets(std::string_view text)
{
    std::vector<std::size_t> out;
    int depth = 0;
    std::string_view lastString; // at depth 1: before a '[' it is the array's key
    bool inPairs = false, expectElement = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            continue;
        if (expectElement && c != ']')
            out.push_back(i);
        expectElement = false;
        if (c == '"') {
            const std::size_t start = i + 1;
            for (++i; i < text.size() && text[i] != '"'; ++i)
                if (text[i] == '\\')
                    ++i;
            if (depth == 1)
                lastString = text.substr(start, std::min(i, text.size()) - start);
        } else if (c == '{' || c == '[') {
            ++depth;
            if (c == '[' && depth == 2 && lastString == "pairs")
                inPairs = expectElement = true;
        } else if (c == '}' || c == ']') {
            if (inPairs && depth == 2)
                return out;
            --depth;
        } else if (c == ',' && inPairs && depth == 2) {
            expectElement = true;
        }
    }
    return out;
}

// A string, or an integer written in decimal (groups and labels may be numbers).
bool scalarText(const json &j, std::string &out)
{
    if (j.is_string())
        out = j.get<std::string>();
    else if (j.is_number_integer())
        out = j.dump();
    else
        return false;
    return true;
}

class JsonPairsReader {
public:
    JsonPairsReader(std::string_view text, const std::string &source) : m_text(text), m_source(source) {}

    Result<PairCorpus> run()
    {
        auto parsed = parseJsonStrict(m_text, m_source);
        if (!parsed)
            return parsed.error();
        const json &doc = *parsed;
        if (!doc.is_object() || !doc.contains("format") || doc["format"] != kJsonFormat)
            return makeError(m_source, "not a TreeLens pairs file (expected an object with \"format\": \"treelens-pairs\")");
        if (!doc.contains("version") || !doc["version"].is_number_integer() || doc["version"] != 1)
            return makeError(m_source, "'version' must be 1 (this build reads version 1)");
        PairCorpus c;
        c.source = m_source;
        if (!doc.contains("task") || !doc["task"].is_string() ||
            (doc["task"] != kRankingTask && doc["task"] != kClassificationTask))
            return makeError(m_source, "'task' must be \"ranking\" or \"classification\"");
        c.task = doc["task"].get<std::string>();
        const bool ranking = c.task == kRankingTask;
        if (auto st = readLabels(doc, c); !st)
            return st.error();
        const auto pairsIt = doc.find("pairs");
        if (pairsIt == doc.end() || !pairsIt->is_array())
            return makeError(m_source, "'pairs' must be an array");
        m_offsets = pairOffsets(m_text);
        if (m_offsets.size() != pairsIt->size())
            m_offsets.clear();
        LineCounter lines(m_text);
        std::set<std::string> used;
        for (std::size_t k = 0; k < pairsIt->size(); ++k) {
            const int line = m_offsets.empty() ? 0 : lines.lineAt(m_offsets[k]);
            const std::string where = (line > 0 ? m_source + ":" + std::to_string(line) : m_source) + ": pair " + std::to_string(k + 1);
            auto p = readPair((*pairsIt)[k], where, line, ranking);
            if (!p)
                return p.error();
            if (!c.labels.empty() && std::find(c.labels.begin(), c.labels.end(), p->label) == c.labels.end())
                return makeError(where, "label " + quotedInput(p->label) + " is not in 'labels'");
            used.insert(p->label);
            if (!ranking) {
                const std::string k1 = "p" + std::to_string(k + 1);
                if (p->first.id.empty())
                    p->first.id = k1 + ".1";
                if (p->second.id.empty())
                    p->second.id = k1 + ".2";
            }
            c.pairs.push_back(std::move(*p));
        }
        if (ranking)
            assignRankingIds(c.pairs);
        if (c.labels.empty())
            c.labels.assign(used.begin(), used.end()); // classification without 'labels': sorted
        return c;
    }

private:
    Status readLabels(const json &doc, PairCorpus &c) const
    {
        const auto it = doc.find("labels");
        if (it == doc.end()) {
            if (c.task == kRankingTask)
                c.labels = kRankingLabels;
            return {};
        }
        if (!it->is_array() || it->empty())
            return makeError(m_source, "'labels' must be a non-empty array of strings");
        for (const auto &l : *it) {
            if (!l.is_string() || l.get<std::string>().empty())
                return makeError(m_source, "'labels' must hold non-empty strings");
            if (std::find(c.labels.begin(), c.labels.end(), l.get<std::string>()) != c.labels.end())
                return makeError(m_source, "'labels' names " + quotedInput(l.get<std::string>()) + " twice");
            c.labels.push_back(l.get<std::string>());
        }
        if (c.task == kRankingTask && c.labels != kRankingLabels)
            return makeError(m_source, "a ranking corpus has the labels [\"0\", \"1\"]");
        return {};
    }

    Result<SentencePair> readPair(const json &j, const std::string &where, int line, bool ranking)
    {
        if (!j.is_object())
            return makeError(where, "expected an object");
        SentencePair p;
        if (j.contains("group") && !scalarText(j["group"], p.group))
            return makeError(where, "'group' must be a string or an integer");
        if (ranking && p.group.empty())
            return makeError(where, "a ranking pair needs a non-empty 'group' (its question id)");
        if (!j.contains("label") || !scalarText(j["label"], p.label) || p.label.empty())
            return makeError(where, "'label' must be a non-empty string (or an integer)");
        if (ranking && p.label != "0" && p.label != "1")
            return makeError(where, "label " + quotedInput(p.label) + " is not 0 or 1");
        for (auto [key, out] : {std::pair<const char *, Sentence *>{"first", &p.first}, {"second", &p.second}}) {
            const auto it = j.find(key);
            if (it == j.end())
                return makeError(where, std::string("has no '") + key + "' sentence");
            auto s = sentence(*it, where + ": " + key);
            if (!s)
                return s.error();
            *out = std::move(*s);
            out->line = line;
        }
        return p;
    }

    // A TreeLens JSON sentence; without "tokens" its "text" is tokenised first.
    Result<Sentence> sentence(const json &j, const std::string &where) const
    {
        if (!j.is_object())
            return makeError(where, "expected a sentence object");
        if (j.contains("tokens"))
            return sentenceFromJson(j, where);
        const auto text = j.find("text");
        if (text == j.end() || !text->is_string())
            return makeError(where, "has neither 'tokens' nor a 'text' string");
        json filled = j;
        json tokens = json::array();
        for (const Token &t : m_tokenizer.tokenize(text->get<std::string>()))
            tokens.push_back({{"form", t.text}, {"start", t.charStart}, {"end", t.charEnd}});
        if (tokens.empty())
            return makeError(where, "'text' is empty and there are no 'tokens'");
        filled["tokens"] = std::move(tokens);
        return sentenceFromJson(filled, where);
    }

    std::string_view m_text;
    const std::string &m_source;
    std::vector<std::size_t> m_offsets;
    const Tokenizer m_tokenizer;
};

} // namespace

Result<PairCorpus> readPairsJson(std::string_view input, const std::string &source)
{
    auto checked = checkedText(input, source);
    if (!checked)
        return checked.error();
    return JsonPairsReader(*checked, source).run();
}

// ----------------------------------------------------------- entry points

Result<PairFormat> parsePairFormat(const std::string &name)
{
    const std::string n = toLowerAscii(name);
    if (n == "wikiqa")
        return PairFormat::WikiQa;
    if (n == "tsv")
        return PairFormat::Tsv;
    if (n == "rte" || n == "xml")
        return PairFormat::Rte;
    if (n == "json")
        return PairFormat::Json;
    return Error{"unknown pair format " + quotedInput(name) + " (known: wikiqa, tsv, rte, json)"};
}

std::string pairFormatName(PairFormat format)
{
    switch (format) {
    case PairFormat::WikiQa: return "wikiqa";
    case PairFormat::Tsv: return "tsv";
    case PairFormat::Rte: return "rte";
    case PairFormat::Json: return "json";
    }
    return "tsv";
}

Result<PairFormat> pairFormatFromPath(const std::string &path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        struct stat a {};
        if (::stat((path + "/a.toks").c_str(), &a) == 0)
            return PairFormat::WikiQa;
        return makeError(path, "a folder without a.toks (a WikiQA folder holds a.toks, b.toks, id.txt and sim.txt)");
    }
    const std::string ext = fileExtension(path);
    if (ext == ".xml")
        return PairFormat::Rte;
    if (ext == ".json")
        return PairFormat::Json;
    if (ext == ".tsv" || ext == ".txt")
        return PairFormat::Tsv;
    return makeError(path, "cannot tell the pair format from the name (a WikiQA folder, .tsv/.txt, .xml or .json; or name the format)");
}

Result<PairCorpus> readPairCorpusText(std::string_view text, const std::string &source, PairFormat format)
{
    switch (format) {
    case PairFormat::Tsv: return readPairsTsv(text, source);
    case PairFormat::Rte: return readRteXml(text, source);
    case PairFormat::Json: return readPairsJson(text, source);
    case PairFormat::WikiQa: break;
    }
    return makeError(source, "the WikiQA layout is a folder of four files, not one text");
}

Result<PairCorpus> readPairCorpus(const std::string &path, const std::string &format)
{
    // A path that is not there: say so, not that its format is unclear (a mistyped folder has no extension).
    if (struct stat st {}; path != "-" && ::stat(path.c_str(), &st) != 0)
        return makeError(path, "No such file or directory");
    auto fmt = toLowerAscii(format) == "auto" ? pairFormatFromPath(path) : parsePairFormat(format);
    if (!fmt)
        return fmt.error();
    if (*fmt == PairFormat::WikiQa)
        return readWikiQaFolder(path);
    auto text = readFileLimited(path, inputLimits().maxTextFileBytes);
    if (!text)
        return text.error();
    return readPairCorpusText(*text, path == "-" ? std::string("<stdin>") : path, *fmt);
}

// ------------------------------------------------------------------ writers

namespace {

// A TSV field: tabs and line breaks would start another column or row.
std::string tsvField(std::string_view s)
{
    std::string out(s);
    for (auto &c : out)
        if (c == '\t' || c == '\n' || c == '\r')
            c = ' ';
    return out;
}

std::string joinedTokens(const Sentence &s)
{
    return s.tokens.empty() ? s.text : join(s.words(), " ");
}

} // namespace

std::string writePairsTsv(const PairCorpus &corpus)
{
    std::string out = std::string(kTsvHeader) + "\n";
    for (const auto &p : corpus.pairs) {
        out += tsvField(p.group);
        out += '\t';
        out += tsvField(joinedTokens(p.first));
        out += '\t';
        out += tsvField(joinedTokens(p.second));
        out += '\t';
        out += tsvField(p.label);
        out += '\n';
    }
    return out;
}

std::string writePairsJson(const PairCorpus &corpus)
{
    const auto dump = [](const json &j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); };
    std::string out = "{\"format\":" + dump(kJsonFormat) + ",\"version\":1,\"task\":" + dump(corpus.task);
    // An empty label set (a classification corpus without pairs) is written as
    // none: "labels", when present, must name at least one.
    if (!corpus.labels.empty())
        out += ",\"labels\":" + dump(corpus.labels);
    out += ",\"pairs\":[";
    for (std::size_t k = 0; k < corpus.pairs.size(); ++k) {
        const SentencePair &p = corpus.pairs[k];
        json j = json::object();
        j["group"] = p.group;
        j["label"] = p.label;
        j["first"] = sentenceToJson(p.first);
        j["second"] = sentenceToJson(p.second);
        out += k ? ",\n" : "\n";
        out += dump(j);
    }
    out += "\n]}\n";
    return out;
}

} // namespace treelens
