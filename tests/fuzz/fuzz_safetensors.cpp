// Fuzzes the safetensors reader and the model-file checks: no crash, and what
// it accepts must serialise back to bytes that read to the same tensors.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/model/modelfile.h"
#include "core/model/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    auto r = treelens::readSafetensorsBytes(data, size, "fuzz.safetensors");
    if (!r)
        return 0;
    auto bytes = treelens::safetensorsBytes(r->tensors, r->metadata);
    if (!bytes)
        std::abort();
    auto again = treelens::readSafetensorsBytes(reinterpret_cast<const uint8_t *>(bytes->data()), bytes->size(), "again");
    if (!again || again->tensors.size() != r->tensors.size() || again->metadata != r->metadata)
        std::abort();
    for (const auto &[name, t] : r->tensors) {
        const auto &u = again->tensors.at(name);
        if (u.size() != t.size() || !std::equal(u.data(), u.data() + u.size(), t.data()) || u.shape != t.shape || u.dtype != t.dtype)
            std::abort();
    }
    treelens::ModelFile mf;
    mf.configJson = r->metadata.count("treelens.config") ? r->metadata.at("treelens.config") : "{}";
    mf.tensors = r->tensors;
    mf.vocab = {"a", "b"};
    (void)treelens::validateModelFile(mf, "fuzz");
    return 0;
}
