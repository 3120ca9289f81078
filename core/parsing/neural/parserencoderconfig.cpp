// parserencoderconfig: the parsers' shared encoder settings (see parserencoderconfig.h).
#include "core/parsing/neural/parserencoderconfig.h"

#include <nlohmann/json.hpp>

namespace treelens {

Status ParserEncoderConfig::validateEncoder(const std::string &what) const
{
    auto bad = [&](const std::string &m) { return Status(makeError(what, m)); };
    if (wordDim < 1 || wordDim > 2048) return bad("word_dim must be 1..2048");
    if (charDim < 1 || charDim > 512) return bad("char_dim must be 1..512");
    if (charFilters < 1 || charFilters > 2048) return bad("char_filters must be 1..2048");
    if (charKernel < 1 || charKernel > 9 || charKernel % 2 == 0) return bad("char_kernel must be odd, 1..9");
    if (maxWordChars < 4 || maxWordChars > 128) return bad("max_word_chars must be 4..128");
    if (lstmLayers < 1 || lstmLayers > 8) return bad("lstm_layers must be 1..8");
    if (lstmHidden < 8 || lstmHidden > 2048) return bad("lstm_hidden must be 8..2048");
    if (!(dropout >= 0 && dropout < 1) || !(wordDropout >= 0 && wordDropout < 1)) return bad("dropouts must be in [0, 1)");
    return {};
}

std::string ParserEncoderConfig::encoderJson(const std::string &objectJson) const
{
    auto j = nlohmann::json::parse(objectJson);
    j["word_dim"] = wordDim;
    j["char_dim"] = charDim;
    j["char_filters"] = charFilters;
    j["char_kernel"] = charKernel;
    j["max_word_chars"] = maxWordChars;
    j["lstm_layers"] = lstmLayers;
    j["lstm_hidden"] = lstmHidden;
    j["dropout"] = dropout;
    j["word_dropout"] = wordDropout;
    return j.dump();
}

void ParserEncoderConfig::readEncoder(const std::string &objectJson)
{
    const auto j = nlohmann::json::parse(objectJson);
    wordDim = j.value("word_dim", wordDim);
    charDim = j.value("char_dim", charDim);
    charFilters = j.value("char_filters", charFilters);
    charKernel = j.value("char_kernel", charKernel);
    maxWordChars = j.value("max_word_chars", maxWordChars);
    lstmLayers = j.value("lstm_layers", lstmLayers);
    lstmHidden = j.value("lstm_hidden", lstmHidden);
    dropout = j.value("dropout", dropout);
    wordDropout = j.value("word_dropout", wordDropout);
}

} // namespace treelens
