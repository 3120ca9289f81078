// Fuzzes the restricted unpickler (core/model/pickle.h) with a fake storage
// resolver that serves small byte buffers for short keys ("0", "1", ...; the
// size depends on the key) and refuses longer ones. No crash, no hang, bounded
// memory; every tensor it returns must be consistent (bytes = numel x dtype size).
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/model/pickle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using Bytes = std::vector<std::uint8_t>;
    std::map<std::string, std::shared_ptr<const Bytes>> cache; // like the archive reader: one buffer per key
    treelens::StorageResolver resolve = [&cache](const std::string &key, std::uint64_t) -> treelens::Result<std::shared_ptr<const Bytes>> {
        if (key.empty() || key.size() > 2)
            return treelens::makeError("fuzz.pkl", "no storage " + key);
        auto &slot = cache[key];
        if (!slot) {
            std::size_t n = 0;
            for (unsigned char c : key)
                n = n * 31 + c;
            Bytes b(8 * (n % 64) + 8 * key.size()); // 8..520 bytes, a multiple of every element size
            for (std::size_t i = 0; i < b.size(); ++i)
                b[i] = static_cast<std::uint8_t>(i * 37 + n);
            slot = std::make_shared<const Bytes>(std::move(b));
        }
        return slot;
    };
    auto r = treelens::unpickle(data, size, resolve, "fuzz.pkl");
    if (!r.ok()) {
        if (r.message().rfind("fuzz.pkl: ", 0) != 0)
            std::abort(); // every error names the file
        return 0;
    }
    if (!r->root)
        std::abort();
    for (const auto &v : r->arena) {
        if (v->kind == treelens::PickleValue::Kind::Mark && v.get() == r->root)
            std::abort();
        if (v->kind != treelens::PickleValue::Kind::Tensor)
            continue;
        const auto &t = v->tensor;
        if (t.size() != t.numel() * treelens::dtypeSize(t.dtype))
            std::abort();
    }
    return 0;
}
