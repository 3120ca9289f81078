// Placeholder whitespace tokenizer: replaced by the real UD/PTB tokenizer.
#include "core/text/tokenizer.h"

namespace treelens {

std::vector<Token> Tokenizer::tokenize(std::string_view text) const
{
    std::vector<Token> out;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && text[i] == ' ')
            ++i;
        const std::size_t b = i;
        while (i < text.size() && text[i] != ' ')
            ++i;
        if (i > b) {
            Token t;
            t.text = std::string(text.substr(b, i - b));
            t.charStart = static_cast<int>(b);
            t.charEnd = static_cast<int>(i);
            out.push_back(t);
        }
    }
    return out;
}

std::vector<std::pair<int, int>> Tokenizer::splitSentences(std::string_view text) const
{
    return {{0, static_cast<int>(text.size())}};
}

std::vector<Sentence> Tokenizer::splitAndTokenize(std::string_view text) const
{
    std::vector<Sentence> out;
    Sentence s;
    s.id = "s1";
    s.text = std::string(text);
    s.tokens = tokenize(text);
    out.push_back(s);
    return out;
}

} // namespace treelens
