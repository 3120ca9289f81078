#include "core/runtime/cpufeatures.h"

#include <dlfcn.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace treelens {

std::string CpuFeatures::flagList() const
{
    std::string out;
    auto add = [&](bool on, const char *name) {
        if (on)
            out += (out.empty() ? "" : " ") + std::string(name);
    };
    add(avx2, "avx2");
    add(fma, "fma");
    add(avx512f, "avx512f");
    add(avx512bw, "avx512bw");
    add(avx512Vnni, "avx512_vnni");
    add(avxVnni, "avx_vnni");
    add(avx512Bf16, "avx512_bf16");
    add(amxBf16, "amx_bf16");
    add(amxInt8, "amx_int8");
    if (!overridden.empty())
        out += " [" + overridden + "]";
    return out;
}

CpuFeatures parseCpuInfo(const std::string &text)
{
    CpuFeatures f;
    std::istringstream in(text);
    std::string line;
    bool flagsSeen = false;
    while (std::getline(in, line)) {
        const auto colon = line.find(':');
        if (colon == std::string::npos)
            continue;
        std::string key = line.substr(0, colon);
        while (!key.empty() && (key.back() == ' ' || key.back() == '\t'))
            key.pop_back();
        std::string value = line.substr(colon + 1);
        if (!value.empty() && value.front() == ' ')
            value.erase(0, 1);
        if (key == "processor")
            ++f.logicalCpus;
        else if (key == "model name" && f.model.empty())
            f.model = value;
        else if (key == "flags" && !flagsSeen) {
            // The first processor's flags stand for all (a mixed-ISA machine lists the common set first).
            flagsSeen = true;
            std::set<std::string> flags;
            std::istringstream fs(value);
            for (std::string w; fs >> w;)
                flags.insert(w);
            auto has = [&](const char *n) { return flags.count(n) > 0; };
            f.avx2 = has("avx2");
            f.fma = has("fma");
            f.avx512f = has("avx512f");
            f.avx512bw = has("avx512bw");
            f.avx512Vnni = has("avx512_vnni");
            f.avxVnni = has("avx_vnni");
            f.avx512Bf16 = has("avx512_bf16");
            f.amxBf16 = has("amx_bf16");
            f.amxInt8 = has("amx_int8");
        }
    }
    return f;
}

void applyCpuFeatureOverride(CpuFeatures &f, const char *bf16)
{
    if (!bf16)
        return;
    const std::string v = bf16;
    if (v == "native") {
        f.avx512Bf16 = true;
        f.overridden = "TREELENS_CPU_BF16=native";
    } else if (v == "none") {
        f.avx512Bf16 = f.amxBf16 = false;
        f.overridden = "TREELENS_CPU_BF16=none";
    }
}

const CpuFeatures &cpuFeatures()
{
    static const CpuFeatures features = [] {
        std::ifstream in("/proc/cpuinfo");
        std::stringstream ss;
        ss << in.rdbuf();
        CpuFeatures f = parseCpuInfo(ss.str());
        applyCpuFeatureOverride(f, std::getenv("TREELENS_CPU_BF16"));
        return f;
    }();
    return features;
}

namespace {

std::string openBlasString(const char *symbol)
{
    using Fn = char *(*)();
    if (auto fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, symbol)))
        if (const char *s = fn())
            return s;
    return {};
}

} // namespace

std::string openBlasCoreName() { return openBlasString("openblas_get_corename"); }
std::string openBlasConfig() { return openBlasString("openblas_get_config"); }

} // namespace treelens
