#include "core/formats/labelledtext.h"

#include "core/base/utf8.h"

namespace treelens {

namespace {

std::string latin1ToUtf8(std::string_view s)
{
    std::string out;
    out.reserve(s.size() + 8);
    for (unsigned char c : s)
        appendUtf8(out, static_cast<char32_t>(c));
    return out;
}

std::string stemOf(const std::string &source)
{
    std::string stem = source.substr(source.find_last_of('/') == std::string::npos ? 0 : source.find_last_of('/') + 1);
    if (const auto dot = stem.find_last_of('.'); dot != std::string::npos && dot > 0)
        stem.resize(dot);
    return stem;
}

} // namespace

Result<LabelledText> readLabelledText(std::string_view text, const std::string &source)
{
    LabelledText out;
    const std::string stem = stemOf(source);
    std::size_t pos = 0;
    int lineNo = 0;
    while (pos < text.size()) {
        const std::size_t end = std::min(text.find('\n', pos), text.size());
        std::string_view raw = text.substr(pos, end - pos);
        pos = end + 1;
        ++lineNo;
        if (lineNo == 1 && raw.substr(0, 3) == "\xEF\xBB\xBF")
            raw.remove_prefix(3);
        if (!raw.empty() && raw.back() == '\r')
            raw.remove_suffix(1);
        std::string line;
        if (findInvalidUtf8(raw) >= 0) {
            line = latin1ToUtf8(raw);
            ++out.latin1Lines;
        } else {
            line = std::string(raw);
        }
        // Words split on spaces and tabs; a no-break space stays inside a word.
        std::vector<std::string> fields;
        std::size_t i = 0;
        while (i < line.size()) {
            while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
                ++i;
            std::size_t j = i;
            while (j < line.size() && line[j] != ' ' && line[j] != '\t')
                ++j;
            if (j > i)
                fields.push_back(line.substr(i, j - i));
            i = j;
        }
        if (fields.empty())
            continue;
        const std::string where = source + ":" + std::to_string(lineNo);
        if (fields.size() < 2)
            return makeError(where, "a label and at least one word expected ('LABEL:fine word word ...')");
        LabelledSentence s;
        s.label = fields.front();
        s.coarseLabel = s.label.substr(0, s.label.find(':'));
        if (s.coarseLabel.empty())
            return makeError(where, "the label '" + s.label + "' has no class before ':'");
        s.sentence.id = stem + "-" + std::to_string(lineNo);
        for (std::size_t k = 1; k < fields.size(); ++k) {
            Token t;
            t.text = fields[k];
            s.sentence.tokens.push_back(std::move(t));
        }
        std::string joined;
        for (std::size_t k = 1; k < fields.size(); ++k)
            joined += (k > 1 ? " " : "") + fields[k];
        s.sentence.text = std::move(joined);
        out.sentences.push_back(std::move(s));
    }
    return out;
}

} // namespace treelens
