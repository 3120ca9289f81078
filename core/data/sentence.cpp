#include "core/data/sentence.h"

namespace treelens {

std::vector<std::string> Sentence::words() const
{
    std::vector<std::string> out;
    out.reserve(tokens.size());
    for (const auto &t : tokens)
        out.push_back(t.text);
    return out;
}

std::string Sentence::metadataValue(const std::string &key) const
{
    for (const auto &[k, v] : metadata)
        if (k == key)
            return v;
    return {};
}

void Sentence::setMetadata(const std::string &key, const std::string &value)
{
    for (auto &[k, v] : metadata)
        if (k == key) {
            v = value;
            return;
        }
    metadata.emplace_back(key, value);
}

} // namespace treelens
