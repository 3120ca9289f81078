// Tree patterns for the corpus commands and their --where (issue 48); see queryfilter.h.
#include "app/cli/queryfilter.h"

#include <algorithm>
#include <iostream>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/base/fileio.h"
#include "core/base/inputlimits.h"
#include "core/parsing/headrules.h"

namespace treelens::cli {

namespace {

using ojson = nlohmann::ordered_json;

/// The word a Tregex node stands for (0-based): itself for a word, else its head child's down
/// to a word (Collins head rules); -1 for a trace or a node over traces only.
int headWord(const ConstituencyTree &tree, int node)
{
    const std::size_t count = tree.nodes().size();
    for (std::size_t steps = 0; node >= 0 && static_cast<std::size_t>(node) < count && steps <= count; ++steps) {
        const ConstituencyNode &n = tree.node(node);
        if (n.terminal)
            return n.wordIndex;
        if (n.children.empty())
            return -1;
        const int child = n.children.size() == 1 ? 0 : findHeadChild(tree, node, HeadRules::Collins);
        if (child < 0 || static_cast<std::size_t>(child) >= n.children.size())
            return -1;
        node = n.children[static_cast<std::size_t>(child)];
    }
    return -1;
}

} // namespace

const char *patternTreeName(PatternTree tree) { return tree == PatternTree::Dependency ? "dependency" : "constituency"; }

std::vector<std::string> TreePattern::names() const
{
    if (grew)
        return grew->names();
    std::vector<std::string> out{"_root_"};
    out.insert(out.end(), tregex->names().begin(), tregex->names().end());
    return out;
}

Result<TreePattern> readTreePattern(const std::string &text, const std::string &file, const std::string &syntax,
                                    const std::string &flag)
{
    std::string pattern = text, where = flag;
    if (!file.empty()) {
        auto read = readFile(file);
        if (!read)
            return read.error();
        pattern = std::move(*read);
        while (!pattern.empty() &&
               (pattern.back() == '\n' || pattern.back() == '\r' || pattern.back() == ' ' || pattern.back() == '\t'))
            pattern.pop_back();
        where = file;
    }
    const bool grew = syntax == "grew" || (syntax == "auto" && looksLikeGrewRequest(pattern));
    TreePattern p;
    if (grew) {
        auto parsed = DepPattern::parse(pattern);
        if (!parsed)
            return makeError(where + " (Grew request)", parsed.error());
        p.grew = std::move(*parsed);
    } else {
        auto parsed = TregexPattern::parse(pattern);
        if (!parsed)
            return makeError(where + " (Tregex pattern)", parsed.error());
        p.tregex = std::move(*parsed);
    }
    return p;
}

// ---------------------------------------------------------------------------
// The trees a sentence lacks

TreeSupply::TreeSupply(const ParserSpec &spec, PatternTree kind, std::string source)
    : m_spec(spec), m_kind(kind), m_source(std::move(source))
{
}

std::string TreeSupply::treeSourceKey(PatternTree kind) { return std::string(patternTreeName(kind)) + "_source"; }

bool TreeSupply::has(const Sentence &s) const
{
    return m_kind == PatternTree::Dependency ? s.dependency.has_value() : s.constituency.has_value();
}

Status TreeSupply::complete(std::vector<Sentence> &chunk, std::vector<std::string> &failures)
{
    std::vector<Sentence> todo;
    std::vector<std::size_t> where;
    for (std::size_t i = 0; i < chunk.size(); ++i)
        if (!has(chunk[i])) {
            todo.push_back(chunk[i]);
            where.push_back(i);
        }
    if (todo.empty())
        return {};
    if (auto st = open(); !st)
        return st;
    auto parsed = parseSentences(*m_parser, m_spec, std::move(todo), m_source, &failures);
    if (!parsed)
        return parsed.error();
    for (std::size_t k = 0; k < where.size(); ++k)
        take(chunk[where[k]], (*parsed)[k]);
    return {};
}

Status TreeSupply::open()
{
    if (m_parser)
        return {};
    auto parser = createParser(parserConfig(m_spec));
    if (!parser)
        return parser.error();
    const ParserInfo info = (*parser)->info();
    const bool gives = m_kind == PatternTree::Dependency ? info.dependencies : info.constituencies;
    if (!gives)
        return Error{"the parser '" + info.name + "' gives no " + patternTreeName(m_kind) + " trees, and " +
                     (m_kind == PatternTree::Dependency ? "a Grew request is matched on dependency trees"
                                                        : "a Tregex pattern is matched on constituency trees (give an input "
                                                          "that has them: PTB brackets, or CoNLL-U with '# constituency' "
                                                          "comments, or a parser that gives them)")};
    m_parser = std::move(*parser);
    return {};
}

void TreeSupply::take(Sentence &s, const Sentence &parsed) const
{
    const bool dep = m_kind == PatternTree::Dependency;
    if (dep ? !parsed.dependency : !parsed.constituency)
        return; // refused or failed: left without (its message is in the failures)
    if (dep)
        s.dependency = parsed.dependency;
    else
        s.constituency = parsed.constituency;
    s.setMetadata(treeSourceKey(m_kind), "parsed");
    // Raw text has no tags: the parser's, where the input has none (a Grew request reads them).
    auto fill = [](std::string &mine, const std::string &theirs) {
        if ((mine.empty() || mine == "_") && !theirs.empty())
            mine = theirs;
    };
    for (std::size_t i = 0; i < s.tokens.size() && i < parsed.tokens.size(); ++i) {
        fill(s.tokens[i].upos, parsed.tokens[i].upos);
        fill(s.tokens[i].xpos, parsed.tokens[i].xpos);
        fill(s.tokens[i].lemma, parsed.tokens[i].lemma);
        fill(s.tokens[i].feats, parsed.tokens[i].feats);
    }
}

// ---------------------------------------------------------------------------
// Occurrences as words

std::vector<PatternOccurrence> occurrencesOf(const TreePattern &pattern, const Sentence &s)
{
    std::vector<PatternOccurrence> out;
    if (pattern.grew) {
        if (!s.dependency)
            return out;
        for (const DepMatch &m : pattern.grew->match(DepGraph::fromSentence(s)))
            out.push_back(PatternOccurrence{m.nodes});
        return out;
    }
    if (!s.constituency || s.constituency->empty())
        return out;
    const ConstituencyTree &tree = *s.constituency;
    auto word = [&](int node) {
        const int w = node < 0 ? -1 : headWord(tree, node);
        return w < 0 ? -1 : w + 1;
    };
    for (const TregexMatch &m : pattern.tregex->match(tree)) {
        PatternOccurrence o;
        o.words.push_back(word(m.node));
        for (int node : m.bound)
            o.words.push_back(word(node));
        out.push_back(std::move(o));
    }
    return out;
}

void addWhereOptions(CLI::App *cmd, WhereSpec &spec, const std::string &what)
{
    auto *pattern = cmd->add_option("--where", spec.pattern,
                                    what + " of the pattern P: a Grew request ('pattern { V -[nsubj]-> S }') or a Tregex "
                                           "pattern ('VP < NP=obj'), as query reads it (docs/query.md)")
                        ->type_name("P");
    auto *file = cmd->add_option("--where-file", spec.file, "--where's pattern read from the file F")->type_name("F");
    pattern->excludes(file);
    cmd->add_option("--where-syntax", spec.syntax, "--where's language: grew, tregex or auto (as query's --syntax)")
        ->check(CLI::IsMember({"grew", "tregex", "auto"}))
        ->capture_default_str();
}

std::string WhereTotals::trees() const
{
    const std::size_t searched = sentences - unparsed;
    return predicted == 0 ? "gold" : predicted >= searched ? "predicted" : "mixed";
}

// ---------------------------------------------------------------------------
// The filter

QueryFilter::QueryFilter(TreePattern pattern, const ParserSpec &parser, const std::string &source)
    : m_pattern(std::move(pattern)), m_supply(std::make_unique<TreeSupply>(parser, m_pattern.tree(), source)),
      m_parserName(parser.parser)
{
}

Result<QueryFilter> QueryFilter::open(const WhereSpec &spec, const ParserSpec &parser, const std::string &source)
{
    auto pattern = readTreePattern(spec.pattern, spec.file, spec.syntax, "--where");
    if (!pattern)
        return pattern.error();
    return QueryFilter(std::move(*pattern), parser, source);
}

Result<std::vector<std::vector<PatternOccurrence>>> QueryFilter::match(std::vector<Sentence> &chunk)
{
    std::vector<std::string> failures;
    if (auto st = m_supply->complete(chunk, failures); !st)
        return st.error();
    for (const auto &f : failures)
        std::cerr << "treelens-cli: warning: " << printableMessage(f) << " (not searched by --where: left out)\n";
    const PatternTree kind = m_pattern.tree();
    const std::string key = TreeSupply::treeSourceKey(kind);
    std::vector<std::vector<PatternOccurrence>> out(chunk.size());
    for (std::size_t k = 0; k < chunk.size(); ++k) {
        const Sentence &s = chunk[k];
        ++m_totals.sentences;
        if (kind == PatternTree::Dependency ? !s.dependency : (!s.constituency || s.constituency->empty())) {
            ++m_totals.unparsed;
            continue;
        }
        if (s.metadataValue(key) == "parsed")
            ++m_totals.predicted;
        out[k] = occurrencesOf(m_pattern, s);
        m_totals.occurrences += out[k].size();
        m_totals.matched += out[k].empty() ? 0 : 1;
    }
    return out;
}

Result<std::vector<std::vector<PatternOccurrence>>> QueryFilter::keepMatched(std::vector<Sentence> &chunk,
                                                                               std::vector<std::size_t> *kept)
{
    auto all = match(chunk);
    if (!all)
        return all.error();
    std::vector<Sentence> matched;
    std::vector<std::vector<PatternOccurrence>> occurrences;
    if (kept)
        kept->clear();
    for (std::size_t k = 0; k < chunk.size(); ++k)
        if (!(*all)[k].empty()) {
            matched.push_back(std::move(chunk[k]));
            occurrences.push_back(std::move((*all)[k]));
            if (kept)
                kept->push_back(k);
        }
    chunk = std::move(matched);
    return occurrences;
}

std::string QueryFilter::matchesJson(const std::vector<PatternOccurrence> &occurrences) const
{
    const std::vector<std::string> names = m_pattern.names();
    ojson out = ojson::array();
    for (const PatternOccurrence &o : occurrences) {
        ojson one = ojson::object();
        for (std::size_t i = 0; i < names.size() && i < o.words.size(); ++i)
            one[names[i]] = o.words[i] < 0 ? ojson(nullptr) : ojson(o.words[i]);
        out.push_back(std::move(one));
    }
    return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string QueryFilter::matchesText(const std::vector<PatternOccurrence> &occurrences, const Sentence &s) const
{
    const std::vector<std::string> names = m_pattern.names();
    std::string out;
    for (const PatternOccurrence &o : occurrences) {
        std::string one;
        for (std::size_t i = 0; i < names.size() && i < o.words.size(); ++i) {
            const int w = o.words[i];
            if (w < 0)
                continue;
            const std::string form = w == 0 ? std::string("__0__")
                                            : static_cast<std::size_t>(w) <= s.tokens.size() ? s.tokens[static_cast<std::size_t>(w - 1)].text
                                                                                              : std::string();
            one += (one.empty() ? "" : " ") + names[i] + "=" + std::to_string(w) + ":" + form;
        }
        out += (out.empty() ? "" : "; ") + one;
    }
    return out;
}

std::string QueryFilter::note(const std::string &command, const std::string &what) const
{
    const WhereTotals &t = m_totals;
    std::vector<std::string> lines{command + ": --where: " + std::to_string(t.matched) + " of " + std::to_string(t.sentences) +
                                   " sentences have an occurrence (" + std::to_string(t.occurrences) +
                                   (t.occurrences == 1 ? " occurrence) of the " : " occurrences) of the ") +
                                   (m_pattern.grew ? "Grew request " : "Tregex pattern ") + patternOneLine(m_pattern.text()) +
                                   "; only they are " + what};
    if (t.predicted > 0)
        lines.push_back(command + ": --where: the " + patternTreeName(m_pattern.tree()) + " trees of " +
                        std::to_string(t.predicted) + " of " + std::to_string(t.sentences) + " sentences are predicted (parser " +
                        m_parserName + "), not the input's");
    if (t.unparsed > 0)
        lines.push_back(command + ": --where: " + std::to_string(t.unparsed) +
                        " sentences the parser refused or failed on were not searched (left out)");
    std::string out;
    for (const std::string &line : lines)
        out += printableMessage(line) + "\n";
    return out;
}

std::string patternOneLine(const std::string &text)
{
    std::string out = text;
    std::replace_if(out.begin(), out.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; }, ' ');
    return out;
}

} // namespace treelens::cli
