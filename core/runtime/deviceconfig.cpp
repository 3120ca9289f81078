// Where and how inference runs (see deviceconfig.h).
#include "core/runtime/deviceconfig.h"

#include <cctype>
#include <cstddef>

namespace treelens {

Status DeviceConfig::validate() const
{
    bool ok = device == "auto" || device == "cpu" || device == "cuda";
    if (!ok && device.rfind("cuda:", 0) == 0 && device.size() > 5 && device.size() < 9) {
        ok = true;
        for (std::size_t i = 5; i < device.size(); ++i)
            ok = ok && std::isdigit(static_cast<unsigned char>(device[i]));
    }
    if (!ok)
        return makeError("--device", "'" + device + "' is not one of auto, cpu, cuda, cuda:N");
    if (precision != "fp32" && precision != "bf16" && precision != "int8" && precision != "auto")
        return makeError("--precision", "'" + precision + "' is not fp32, bf16, int8 or auto");
    if (threads < 0 || threads > 1024)
        return makeError("--threads", "must be 0 (default) to 1024");
    if (batchSize < 1 || batchSize > 65536)
        return makeError("--batch", "must be 1 to 65536");
    return {};
}

} // namespace treelens
