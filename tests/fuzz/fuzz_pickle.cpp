// Fuzzes the restricted unpickler with a storage resolver that serves small
// byte buffers for any key: no crash, no hang, bounded memory.
#include <memory>
#include <string>
#include <vector>

#include "core/model/pickle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    treelens::StorageResolver resolve =
        [](const std::string &key) -> treelens::Result<std::shared_ptr<const std::vector<std::uint8_t>>> {
        if (key.size() > 3)
            return treelens::makeError("fuzz", "no storage " + key);
        return std::make_shared<const std::vector<std::uint8_t>>(64 * (key.size() + 1), std::uint8_t(7));
    };
    auto r = treelens::unpickle(data, size, resolve, "fuzz.pkl");
    (void)r;
    return 0;
}
