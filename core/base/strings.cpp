#include "core/base/strings.h"

#include <cctype>
#include <charconv>

namespace treelens {

std::vector<std::string_view> splitView(std::string_view s, char sep)
{
    std::vector<std::string_view> out;
    std::size_t start = 0;
    while (true) {
        const auto pos = s.find(sep, start);
        if (pos == std::string_view::npos) {
            out.push_back(s.substr(start));
            return out;
        }
        out.push_back(s.substr(start, pos - start));
        start = pos + 1;
    }
}

std::string_view trimView(std::string_view s)
{
    const char *ws = " \t\r\n\f\v";
    const auto b = s.find_first_not_of(ws);
    if (b == std::string_view::npos)
        return {};
    const auto e = s.find_last_not_of(ws);
    return s.substr(b, e - b + 1);
}

std::string join(const std::vector<std::string> &parts, std::string_view sep)
{
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i)
            out += sep;
        out += parts[i];
    }
    return out;
}

bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string toLowerAscii(std::string_view s)
{
    std::string out(s);
    for (auto &c : out)
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
    return out;
}

bool parseInt(std::string_view s, int &out)
{
    if (s.empty())
        return false;
    const char *b = s.data();
    const char *e = s.data() + s.size();
    const auto r = std::from_chars(b, e, out);
    return r.ec == std::errc() && r.ptr == e;
}

std::vector<std::string> splitListLines(const std::string &text)
{
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string::npos)
            nl = text.size();
        std::string line = text.substr(pos, nl - pos);
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        out.push_back(std::move(line));
        pos = nl + 1;
    }
    while (!out.empty() && out.back().empty())
        out.pop_back();
    return out;
}

std::string numberedFileStem(std::size_t number, const std::string &id, int digits)
{
    std::string stem = std::to_string(number);
    if (static_cast<int>(stem.size()) < digits)
        stem.insert(0, static_cast<std::size_t>(digits) - stem.size(), '0');
    if (!id.empty()) {
        stem += '-';
        for (char c : id.substr(0, 120))
            stem += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' ? c : '_';
    }
    return stem;
}

} // namespace treelens
