#include "core/formats/plaintext.h"

#include "core/base/strings.h"
#include "core/base/utf8.h"
#include "core/base/inputlimits.h"
#include "core/text/tokenizer.h"

namespace treelens {

Result<std::vector<Sentence>> readPlainText(std::string_view input, const std::string &source, const PlainTextOptions &options)
{
    auto checked = checkedText(input, source, options.firstLine);
    if (!checked)
        return checked.error();
    const std::string_view text = *checked;
    const Tokenizer tokenizer;
    std::vector<Sentence> out;
    // Line numbers are counted incrementally: sentences come in text order.
    std::size_t countedTo = 0;
    int countedLine = options.firstLine;
    auto lineAt = [&](std::size_t offset) {
        for (; countedTo < offset && countedTo < text.size(); ++countedTo)
            countedLine += text[countedTo] == '\n';
        return countedLine;
    };
    auto check = [&](const Sentence &s) -> Status {
        if (options.maxTokens > 0 && static_cast<int>(s.tokens.size()) > options.maxTokens)
            return makeError(source + ":" + std::to_string(s.line),
                             "sentence has " + std::to_string(s.tokens.size()) + " tokens (limit " + std::to_string(options.maxTokens) + ")");
        return {};
    };
    if (options.split) {
        for (const auto &[b, e] : tokenizer.splitSentences(text)) {
            Sentence s;
            const std::string_view raw = text.substr(static_cast<std::size_t>(b), static_cast<std::size_t>(e - b));
            const std::string_view trimmed = trimView(raw);
            if (trimmed.empty())
                continue;
            s.text = std::string(trimmed);
            s.tokens = tokenizer.tokenize(s.text);
            markSpaceAfter(s.tokens, s.text);
            if (s.tokens.empty())
                continue;
            s.id = "s" + std::to_string(options.firstIndex + out.size() + 1);
            s.line = lineAt(static_cast<std::size_t>(b) + static_cast<std::size_t>(trimmed.data() - raw.data()));
            const Status st = check(s);
            if (!st.ok())
                return st.error();
            out.push_back(std::move(s));
        }
        return out;
    }
    std::size_t pos = 0;
    while (pos < text.size()) {
        auto nl = text.find('\n', pos);
        if (nl == std::string_view::npos)
            nl = text.size();
        const std::string_view line = trimView(text.substr(pos, nl - pos));
        const std::size_t lineStart = pos;
        pos = nl + 1;
        if (line.empty())
            continue;
        Sentence s;
        s.text = std::string(line);
        s.tokens = tokenizer.tokenize(s.text);
        markSpaceAfter(s.tokens, s.text);
        if (s.tokens.empty())
            continue;
        s.id = "s" + std::to_string(options.firstIndex + out.size() + 1);
        s.line = lineAt(lineStart);
        const Status st = check(s);
        if (!st.ok())
            return st.error();
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace treelens
