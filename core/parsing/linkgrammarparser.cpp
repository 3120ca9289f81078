// linkgrammarparser: the Link Grammar backend's driver (the library's handles,
// the runs with the null-link fallback and the time budget, the metadata); the
// stages it calls are in core/parsing/linkgrammar/. See linkgrammarparser.h.
#include "core/parsing/linkgrammarparser.h"

#include <link-grammar/link-includes.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/parsing/linkgrammar/constituency.h"
#include "core/parsing/linkgrammar/dependencies.h"
#include "core/parsing/linkgrammar/linkage.h"
#include "core/parsing/linkgrammar/tagger.h"
#include "core/parsing/linkgrammar/wordclasses.h"

#if LINK_MAJOR_VERSION < 5 || (LINK_MAJOR_VERSION == 5 && LINK_MINOR_VERSION < 9)
#error "The Link Grammar backend needs link-grammar 5.9 or newer (linkage_get_word_byte_start)"
#endif

// Link Grammar's C API declares global types called Sentence, Dictionary and
// Linkage; inside namespace treelens "Sentence" is ours, so the C types get aliases.
using LgDictionary = ::Dictionary;
using LgOptions = ::Parse_Options;
using LgSentence = ::Sentence;
using LgLinkage = ::Linkage;

namespace treelens {
namespace {

using namespace linkgrammar;

// Enough to rank the best linkages without post-processing thousands of them;
// Link Grammar samples (deterministically, repeatable_rand) when more exist.
constexpr int kLinkageLimit = 100;

// The null-link fallback stops at (this / number of words) null links: beyond
// that a partial parse is mostly unlinked words anyway, and the library's count
// table can take gigabytes (see parse()).
constexpr int kNullLinkWordBudget = 1000;

// ---------------------------------------------------------------------------
// Library plumbing: per-thread message capture and RAII handles.

/// Installs a collecting error handler for the lifetime of the object. Link
/// Grammar's handler is per thread, so every call that may report installs one
/// and restores whatever the host application had before.
class LgMessages {
public:
    LgMessages()
    {
        m_prevData = lg_error_set_handler_data(this);
        m_prevHandler = lg_error_set_handler(&LgMessages::collect, this);
    }
    ~LgMessages()
    {
        lg_error_flush(); // a message without its final newline is still pending
        lg_error_set_handler(m_prevHandler, const_cast<void *>(m_prevData));
    }
    LgMessages(const LgMessages &) = delete;
    LgMessages &operator=(const LgMessages &) = delete;

    /// Errors and fatal errors reported so far, "; "-joined ("" if none).
    /// Warnings and info (e.g. about the locale) are dropped on purpose.
    const std::string &errors() const { return m_errors; }

private:
    static void collect(lg_errinfo *info, void *data)
    {
        auto *self = static_cast<LgMessages *>(data);
        if (!self || !info || !info->text || info->severity > lg_Error)
            return;
        std::string text = info->text;
        while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
            text.pop_back();
        if (text.empty())
            return;
        if (!self->m_errors.empty())
            self->m_errors += "; ";
        self->m_errors += text;
    }

    lg_error_handler m_prevHandler = nullptr;
    const void *m_prevData = nullptr;
    std::string m_errors;
};

struct DictionaryDeleter {
    void operator()(LgDictionary d) const { dictionary_delete(d); }
};
struct OptionsDeleter {
    void operator()(LgOptions o) const { parse_options_delete(o); }
};
struct SentenceDeleter {
    void operator()(LgSentence s) const { sentence_delete(s); }
};
struct LinkageDeleter {
    void operator()(LgLinkage l) const { linkage_delete(l); }
};
struct TreeStringDeleter {
    void operator()(char *s) const { linkage_free_constituent_tree_str(s); }
};
using DictionaryPtr = std::unique_ptr<std::remove_pointer_t<LgDictionary>, DictionaryDeleter>;
using OptionsPtr = std::unique_ptr<std::remove_pointer_t<LgOptions>, OptionsDeleter>;
using LgSentencePtr = std::unique_ptr<std::remove_pointer_t<LgSentence>, SentenceDeleter>;
using LinkagePtr = std::unique_ptr<std::remove_pointer_t<LgLinkage>, LinkageDeleter>;
using TreeStringPtr = std::unique_ptr<char, TreeStringDeleter>;

std::string formatSeconds(double s)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", s);
    return buf;
}

// ---------------------------------------------------------------------------
// The parser.

std::string describe(const Sentence &s)
{
    if (!s.id.empty())
        return "sentence '" + s.id + "'";
    std::string text;
    for (const auto &t : s.tokens) {
        if (!text.empty())
            text += ' ';
        text += t.text;
        if (text.size() > 40)
            break;
    }
    if (text.size() > 40)
        text = text.substr(0, 40) + "...";
    return "sentence \"" + text + "\"";
}

/// Control characters and bytes that are not valid UTF-8 become '_' one for
/// one, so byte offsets into the joined string still match the tokens.
void sanitizeUtf8(std::string &s)
{
    const auto *p = reinterpret_cast<const unsigned char *>(s.data());
    const std::size_t n = s.size();
    std::size_t i = 0;
    while (i < n) {
        const unsigned char c = p[i];
        std::size_t len = 0;
        if (c < 0x80) len = 1;
        else if ((c & 0xE0) == 0xC0 && c >= 0xC2) len = 2;
        else if ((c & 0xF0) == 0xE0) len = 3;
        else if ((c & 0xF8) == 0xF0 && c <= 0xF4) len = 4;
        bool ok = len > 0 && i + len <= n;
        for (std::size_t k = 1; ok && k < len; ++k)
            ok = (p[i + k] & 0xC0) == 0x80;
        if (!ok) {
            s[i] = '_';
            ++i;
            continue;
        }
        if (len == 1 && (c < 0x20 || c == 0x7F))
            s[i] = '_';
        i += len;
    }
}

/// What one Link Grammar run gives back, copied out of the library's objects.
struct LgRun {
    std::string text;                        ///< what Link Grammar was fed
    std::vector<std::pair<int, int>> ranges; ///< per token: its bytes in `text`
    std::vector<LgWord> words;
    std::vector<LgLink> links;
    std::string tree;                        ///< SINGLE_LINE constituent string ("" if none)
    int nullCount = 0;
    bool valid = true;                       ///< false: breaks a post-processing rule
    std::string violation;
};

/// Abbreviations whose final period Link Grammar split off ("U.S." -> "U.S" +
/// "."): it then tends to read the period as a full stop in mid-sentence.
std::vector<int> splitAbbreviations(const LgRun &run, const Alignment &align, const std::vector<Token> &tokens)
{
    std::vector<int> out;
    for (std::size_t t = 0; t < tokens.size(); ++t) {
        const std::string &form = tokens[t].text;
        const auto &ws = align.wordsOf[t];
        if (form.size() < 2 || form.back() != '.' || ws.size() < 2 || !punctuationTag(form).empty())
            continue;
        const LgWord &last = run.words[static_cast<std::size_t>(ws.back())];
        if (last.surface == ".")
            out.push_back(static_cast<int>(t));
    }
    return out;
}

class LinkGrammarParser final : public Parser {
public:
    LinkGrammarParser(ParserConfig config, DictionaryPtr dict, OptionsPtr options)
        : m_config(std::move(config)), m_dict(std::move(dict)), m_options(std::move(options))
    {
    }

    ParserInfo info() const override { return linkGrammarParserInfo(); }
    Result<Sentence> parse(const Sentence &input) override;

private:
    using Clock = std::chrono::steady_clock;

    /// Link Grammar's timer counts whole seconds; 0 in our config means no limit.
    void setTimer(double seconds)
    {
        const int secs = seconds <= 0 ? -1 : std::max(1, static_cast<int>(std::ceil(seconds)));
        parse_options_set_max_parse_time(m_options.get(), secs);
    }

    Result<LgRun> run(const std::vector<Token> &tokens, const std::vector<char> &dropPeriod, Clock::time_point started,
                      const std::string &what, LgMessages &messages);

    ParserConfig m_config;
    DictionaryPtr m_dict;
    OptionsPtr m_options;
};

/// Feeds the tokens (joined by single spaces, so Link Grammar sees our word
/// boundaries) and extracts the best linkage. `dropPeriod` marks tokens fed
/// without their final period. Time counts from `started`.
Result<LgRun> LinkGrammarParser::run(const std::vector<Token> &tokens, const std::vector<char> &dropPeriod,
                                     Clock::time_point started, const std::string &what, LgMessages &messages)
{
    LgRun r;
    for (std::size_t t = 0; t < tokens.size(); ++t) {
        if (!r.text.empty())
            r.text += ' ';
        const int start = static_cast<int>(r.text.size());
        const std::string &form = tokens[t].text;
        r.text += dropPeriod[t] ? form.substr(0, form.size() - 1) : form;
        r.ranges.emplace_back(start, static_cast<int>(r.text.size()));
    }
    sanitizeUtf8(r.text);

    const auto lgError = [&](const std::string &msg) {
        return Error{"link-grammar: " + msg + (messages.errors().empty() ? std::string() : ": " + messages.errors())};
    };
    LgOptions opts = m_options.get();
    LgSentencePtr sent(sentence_create(r.text.c_str(), m_dict.get()));
    if (!sent)
        return lgError("cannot create " + what);
    if (sentence_split(sent.get(), opts) < 0)
        return lgError("cannot tokenize " + what);

    // Complete linkages first (null count 0). If there are none, Link Grammar's
    // standard fallback: allow null links (words left out of the linkage), the
    // fewest first. Each null count is a parse of its own so the budget is
    // checked between them: a single call with a null-count range stops late
    // and took 4 GB on a 240-word input, one null count at a time 150 MB.
    const int length = sentence_length(sent.get());
    // Memory grows steeply with words x null links and the library ignores
    // max_memory: 242 words reached 4.5 GB at 5 null links (150 MB at 4).
    const int maxNull = std::min(length, std::max(1, kNullLinkWordBudget / std::max(1, length)));
    const double limit = m_config.timeoutSeconds;
    const auto timedOut = [&] {
        return Error{"link-grammar: no linkage within " + formatSeconds(limit) + " s for " + what};
    };
    double lastPass = 0.0;
    int nullCount = -1;
    for (int k = 0; k <= maxNull; ++k) {
        double left = 0.0;
        if (limit > 0) {
            left = limit - std::chrono::duration<double>(Clock::now() - started).count();
            // A pass with more null links is rarely quicker than the one before:
            // do not start one that cannot finish in time.
            if (left <= 0 || (k > 0 && left < lastPass))
                return timedOut();
        }
        parse_options_set_min_null_count(opts, k);
        parse_options_set_max_null_count(opts, k);
        parse_options_reset_resources(opts);
        setTimer(left);
        const auto passStart = Clock::now();
        if (sentence_parse(sent.get(), opts) < 0)
            return lgError("cannot parse " + what);
        lastPass = std::chrono::duration<double>(Clock::now() - passStart).count();
        if (parse_options_resources_exhausted(opts))
            return timedOut();
        // With null links, a linkage that breaks a post-processing rule is still
        // the best there is; a complete one like that is worth one more try.
        if (sentence_num_valid_linkages(sent.get()) > 0 || (k > 0 && sentence_num_linkages_post_processed(sent.get()) > 0)) {
            nullCount = k;
            break;
        }
    }
    if (nullCount < 0)
        return Error{"link-grammar: no linkage for " + what + ", not even with " + std::to_string(maxNull)
                     + (maxNull == 1 ? " null link" : " null links")};
    r.nullCount = nullCount;
    r.valid = sentence_num_valid_linkages(sent.get()) > 0;

    // Linkages are sorted valid-first, then by cost: 0 is the best one.
    LinkagePtr linkage(linkage_create(0, sent.get(), opts));
    if (!linkage)
        return lgError("cannot extract a linkage for " + what);
    LgLinkage lk = linkage.get();
    if (!r.valid) {
        const char *v = linkage_get_violation_name(lk);
        r.violation = v && *v ? v : "yes";
    }

    r.words.resize(linkage_get_num_words(lk));
    for (std::size_t i = 0; i < r.words.size(); ++i) {
        LgWord &w = r.words[i];
        const char *raw = linkage_get_word(lk, i);
        w.raw = raw ? raw : "";
        w.wall = (i == 0 && w.raw == "LEFT-WALL") || (i + 1 == r.words.size() && w.raw == "RIGHT-WALL");
        w.start = static_cast<int>(linkage_get_word_byte_start(lk, i));
        w.end = static_cast<int>(linkage_get_word_byte_end(lk, i));
        if (w.start < 0 || w.end < w.start)
            w.start = w.end = -1;
    }
    verifyOffsets(r.words, r.text);
    for (LgWord &w : r.words) {
        if (!w.wall && w.end > w.start)
            w.surface = r.text.substr(static_cast<std::size_t>(w.start), static_cast<std::size_t>(w.end - w.start));
        w.lower = lowerAscii(w.surface);
    }
    const int wordCount = static_cast<int>(r.words.size());
    for (std::size_t i = 0; i < linkage_get_num_links(lk); ++i) {
        LgLink l;
        l.left = static_cast<int>(linkage_get_link_lword(lk, i));
        l.right = static_cast<int>(linkage_get_link_rword(lk, i));
        if (l.left < 0 || l.right < 0 || l.left >= wordCount || l.right >= wordCount)
            continue;
        const char *lab = linkage_get_link_label(lk, i);
        const char *ll = linkage_get_link_llabel(lk, i);
        const char *rl = linkage_get_link_rlabel(lk, i);
        l.label = lab ? lab : "";
        l.llabel = ll ? ll : "";
        l.rlabel = rl ? rl : "";
        splitLabel(l.label, l.major, l.sub);
        LgWord &lw = r.words[static_cast<std::size_t>(l.left)];
        LgWord &rw = r.words[static_cast<std::size_t>(l.right)];
        ++lw.links;
        ++rw.links;
        lw.leftOf.push_back(l.major);
        rw.rightOf.push_back(l.major);
        r.links.push_back(std::move(l));
    }
    for (LgWord &w : r.words)
        if (!w.wall)
            decomposeWord(w);
    if (TreeStringPtr tree{linkage_print_constituent_tree(lk, SINGLE_LINE)})
        r.tree = tree.get();
    return r;
}

Result<Sentence> LinkGrammarParser::parse(const Sentence &input)
{
    const auto started = Clock::now();
    const int n = static_cast<int>(input.tokens.size());
    if (n == 0)
        return Error{"link-grammar: " + describe(input) + " has no tokens"};
    if (n > m_config.maxWords)
        return Error{"link-grammar: " + describe(input) + " has " + std::to_string(n) + " tokens; the limit is "
                     + std::to_string(m_config.maxWords) + " (ParserConfig::maxWords)"};

    const std::string what = describe(input) + " (" + std::to_string(n) + (n == 1 ? " word)" : " words)");
    LgMessages messages;
    std::vector<char> dropPeriod(static_cast<std::size_t>(n), 0);
    auto first = run(input.tokens, dropPeriod, started, what, messages);
    if (!first)
        return first.error();
    LgRun lg = std::move(first.value());
    Alignment align = alignWords(lg.words, lg.ranges);

    // Abbreviations whose period Link Grammar split off are fed once more
    // without it (in what is left of the budget); the second linkage is kept
    // unless it leaves more words unlinked.
    int reparsed = 0;
    const std::vector<int> abbreviations = splitAbbreviations(lg, align, input.tokens);
    if (!abbreviations.empty()) {
        for (int t : abbreviations)
            dropPeriod[static_cast<std::size_t>(t)] = 1;
        auto second = run(input.tokens, dropPeriod, started, what, messages);
        if (second && second->nullCount <= lg.nullCount) {
            lg = std::move(second.value());
            align = alignWords(lg.words, lg.ranges);
            reparsed = static_cast<int>(abbreviations.size());
        }
    }

    std::vector<TokenFacts> facts(static_cast<std::size_t>(n));
    for (int t = 0; t < n; ++t) {
        const int rep = align.rep[static_cast<std::size_t>(t)];
        TokenFacts &f = facts[static_cast<std::size_t>(t)];
        const std::string &form = input.tokens[static_cast<std::size_t>(t)].text;
        f.lower = lowerAscii(form);
        f.tag = tagFor(form, rep >= 0 ? &lg.words[static_cast<std::size_t>(rep)] : nullptr, t == 0);
        if (rep >= 0)
            f.subscript = lg.words[static_cast<std::size_t>(rep)].subscript;
        f.punct = isPunctuationTag(f.tag);
    }

    Sentence out = input;
    out.setMetadata("parser", "link-grammar");
    out.setMetadata("null_count", std::to_string(lg.nullCount));
    if (lg.nullCount > 0)
        out.setMetadata("partial", "yes");
    if (!lg.valid)
        out.setMetadata("lg.violation", lg.violation);
    if (align.split > 0)
        out.setMetadata("lg.split", std::to_string(align.split));
    if (align.merged > 0)
        out.setMetadata("lg.merged", std::to_string(align.merged));
    if (align.dropped > 0)
        out.setMetadata("lg.dropped", std::to_string(align.dropped));
    if (reparsed > 0)
        out.setMetadata("lg.abbreviations", std::to_string(reparsed));

    DependencyTree dep = buildDependencies(lg.words, lg.links, align, facts);
    if (!dep.validate().ok()) {
        dep = flatDependencies(facts);
        out.setMetadata("lg.dependency", "flat");
    }
    out.dependency = std::move(dep);

    ConstituencyTree tree;
    if (lg.tree.empty() || !convertConstituency(lg.tree, lg.words, align, input.tokens, facts, tree)) {
        tree = flatConstituency(input.tokens, facts);
        out.setMetadata("lg.constituency", "flat");
    }
    out.constituency = std::move(tree);
    return out;
}

} // namespace

ParserInfo linkGrammarParserInfo()
{
    ParserInfo info;
    info.name = "link-grammar";
    info.dependencies = true;
    info.constituencies = true;
    info.description = std::string("Link Grammar (") + linkgrammar_get_version()
        + ", English dictionary): rule-based, partial parses via null links; trees converted to UD/PTB style";
    return info;
}

Result<std::unique_ptr<Parser>> createLinkGrammarParser(const ParserConfig &config)
{
    if (config.language != "en")
        return Error{"link-grammar: only English ('en') is supported, not '" + config.language
                     + "' (the POS and relation mappings are English-specific)"};
    if (!(config.timeoutSeconds >= 0))
        return Error{"link-grammar: timeoutSeconds must be >= 0 (0 = no limit), got " + formatSeconds(config.timeoutSeconds)};
    if (config.maxWords < 1)
        return Error{"link-grammar: maxWords must be at least 1, got " + std::to_string(config.maxWords)};

    LgMessages messages;
    // Loading reads and compiles the whole English dictionary (4.0.dict, the
    // word lists, regexes, affixes): ~0.25 s and ~15 MB, hence once per
    // parser. If the program's LC_CTYPE is not UTF-8 (e.g. "C"), Link Grammar
    // switches it to C.UTF-8 here; it needs a UTF-8 locale to read words.
    DictionaryPtr dict(dictionary_create_lang("en"));
    if (!dict)
        return Error{"link-grammar: cannot load the English dictionary (is link-grammar-dictionaries-en installed?)"
                     + (messages.errors().empty() ? std::string() : ": " + messages.errors())};
    OptionsPtr options(parse_options_create());
    if (!options)
        return Error{"link-grammar: cannot create parse options"};
    LgOptions o = options.get();
    parse_options_set_verbosity(o, 0);
    parse_options_set_linkage_limit(o, kLinkageLimit);
    parse_options_set_repeatable_rand(o, true); // same input, same linkage
    parse_options_set_spell_guess(o, 0);        // never replace our words with guesses
    parse_options_set_islands_ok(o, false);
    parse_options_set_display_morphology(o, 1); // unknown words show their regex class: "Vinken[!<CAPITALIZED-WORDS>]"
    return std::unique_ptr<Parser>(new LinkGrammarParser(config, std::move(dict), std::move(options)));
}

} // namespace treelens
