// numbering: layers, heads and words as a person numbers them; see numbering.h.
#include "core/base/numbering.h"

#include "core/base/strings.h"

namespace treelens {

std::string probedLayerName(int probedLayer)
{
    return probedLayer == 0 ? std::string(kEmbeddingsLayerName) : std::to_string(probedLayer);
}

std::string wordSpanText(int start, int end)
{
    if (end - start == 1)
        return "word " + std::to_string(start + 1);
    return "words " + std::to_string(start + 1) + "\xE2\x80\x93" + std::to_string(end); // en dash
}

Result<int> parseLayerNumber(const std::string &text, int layers)
{
    const std::string item(trimView(text));
    int v = 0;
    if (!parseInt(item, v))
        return Error{"'" + item + "' is not a layer number"};
    const std::string range = "(1.." + std::to_string(layers) + ")";
    if (v < 1)
        return Error{"layer " + item + ": layers are numbered from 1 " + range};
    if (v > layers)
        return Error{"layer " + item + ": the model has " + std::to_string(layers) + " layer" + (layers == 1 ? "" : "s") +
                     " " + range};
    return v - 1;
}

} // namespace treelens
