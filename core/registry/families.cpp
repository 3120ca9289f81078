// The one list of encoder families (see family.h).
#include "core/encoders/family.h"

#include <nlohmann/json.hpp>

#include "core/encoders/deptransformer/deptransformer.h"
#include "core/encoders/ggsa/ggsa.h"
#include "core/encoders/pretrained/pretrained.h"
#include "core/encoders/recursive/recursive.h"
#include "core/encoders/tat/tat.h"
#include "core/encoders/treetransformer/import.h"
#include "core/model/modelfile.h"

namespace treelens {

const std::vector<EncoderFamily> &encoderFamilies()
{
    static const std::vector<EncoderFamily> families = {treeTransformerFamily(), ggsaFamily(), depTransformerFamily(), tatFamily(), recursiveFamily(),
                                                        pretrainedTransformerFamily()};
    return families;
}

const EncoderFamily *findEncoderFamily(const std::string &name)
{
    for (const auto &f : encoderFamilies())
        if (f.name == name)
            return &f;
    return nullptr;
}

const EncoderFamily *folderFamily(const std::string &dir)
{
    for (const auto &f : encoderFamilies())
        if (f.claimsFolder && f.claimsFolder(dir))
            return &f;
    return nullptr;
}

Result<std::string> modelFamilyOf(const ModelFile &file)
{
    try {
        const auto j = nlohmann::json::parse(file.configJson);
        if (!j.is_object())
            return makeError(file.sourcePath, "treelens.config is not a JSON object");
        const auto it = j.find("family");
        if (it == j.end() || !it->is_string())
            return std::string();
        return it->get<std::string>();
    } catch (const std::exception &e) {
        return makeError(file.sourcePath, std::string("treelens.config is not valid JSON: ") + e.what());
    }
}

} // namespace treelens
