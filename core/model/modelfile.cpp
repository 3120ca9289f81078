#include "core/model/modelfile.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "core/base/fileio.h"
#include "core/base/jsonstrict.h"
#include "core/base/strings.h"
#include "core/model/safetensors.h"

namespace treelens {

namespace {

/// No NaN or Inf among the values of a float tensor, read in place (a checkpoint's
/// weights are not copied to be checked): an all-ones exponent is Inf or NaN.
bool allFinite(const TensorData &t)
{
    const std::size_t n = t.numel(), es = dtypeSize(t.dtype);
    if (t.size() < n * es)
        return true; // as toFloat(): no values (the readers never give such a tensor)
    const std::uint8_t *p = t.data();
    for (std::size_t i = 0; i < n; ++i, p += es) {
        if (t.dtype == DType::F32) {
            float v;
            std::memcpy(&v, p, 4);
            if (!std::isfinite(v))
                return false;
        } else if (t.dtype == DType::F16 || t.dtype == DType::BF16) {
            std::uint16_t h;
            std::memcpy(&h, p, 2);
            const std::uint16_t exponent = t.dtype == DType::F16 ? 0x7c00 : 0x7f80;
            if ((h & exponent) == exponent)
                return false;
        }
    }
    return true;
}

} // namespace

Status validateModelFile(const ModelFile &file, const std::string &where)
{
    // Strict: no key twice, no integer that get<int>() would truncate.
    auto parsed = parseJsonStrict(file.configJson, where + ": treelens.config");
    if (!parsed)
        return parsed.error();
    const nlohmann::json config = std::move(*parsed);
    if (auto st = checkJsonIntegers(config, where + ": treelens.config"); !st)
        return st;
    if (!config.is_object() || !config.contains("family") || !config["family"].is_string())
        return makeError(where, "treelens.config must be a JSON object with a string \"family\"");
    if (file.vocab.empty())
        return makeError(where, "the vocabulary is empty");
    std::set<std::string> seen;
    for (std::size_t i = 0; i < file.vocab.size(); ++i)
        if (!seen.insert(file.vocab[i]).second)
            return makeError(where, "vocabulary entry " + std::to_string(i) + " '" + file.vocab[i] + "' is a duplicate");
    if (file.tensors.empty())
        return makeError(where, "the file holds no tensors");
    for (const auto &[name, t] : file.tensors) {
        if (t.dtype != DType::F32 && t.dtype != DType::F16 && t.dtype != DType::BF16)
            return makeError(where, "tensor '" + name + "' has dtype " + dtypeName(t.dtype) + "; weights must be F32, F16 or BF16");
        const bool finite = allFinite(t);
        // The values were only looked at: a mapped file's pages go back (the family reads them again when it copies).
        t.releasePages();
        if (!finite)
            return makeError(where, "tensor '" + name + "' contains NaN or Inf values (refused)");
    }
    return {};
}

Result<ModelFile> loadModelFile(const std::string &path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    ModelFile file;
    file.sourcePath = path;
    if (fs::is_directory(path, ec)) {
        const std::string cfg = (fs::path(path) / "config.json").string();
        const std::string st = (fs::path(path) / "model.safetensors").string();
        const std::string voc = (fs::path(path) / "vocab.txt").string();
        for (const auto &p : {cfg, st, voc})
            if (!fs::exists(p, ec))
                return makeError(path, "a model directory needs config.json, model.safetensors and vocab.txt; " +
                                           fs::path(p).filename().string() + " is missing");
        auto c = readFile(cfg);
        if (!c)
            return c.error();
        auto v = readFile(voc);
        if (!v)
            return v.error();
        auto s = readSafetensors(st);
        if (!s)
            return s.error();
        file.configJson = *c;
        file.vocab = splitListLines(*v);
        file.tensors = std::move(s->tensors);
    } else {
        auto s = readSafetensors(path);
        if (!s)
            return s.error();
        const auto c = s->metadata.find("treelens.config");
        if (c == s->metadata.end())
            return makeError(path, "no treelens.config in the safetensors metadata (not a TreeLens model; import "
                                   "PyTorch checkpoints with treelens-cli import-checkpoint)");
        const auto v = s->metadata.find("treelens.vocab");
        if (v == s->metadata.end())
            return makeError(path, "no treelens.vocab in the safetensors metadata");
        file.configJson = c->second;
        file.vocab = splitListLines(v->second);
        file.tensors = std::move(s->tensors);
    }
    if (auto st = validateModelFile(file, path); !st)
        return st.error();
    return file;
}

Result<std::string> readModelConfigJson(const std::string &path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_directory(path, ec))
        return readFile((fs::path(path) / "config.json").string());
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return makeError(path, "cannot open the file");
    unsigned char len[8] = {};
    in.read(reinterpret_cast<char *>(len), 8);
    const auto got = static_cast<std::size_t>(in.gcount());
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i)
        n = (n << 8) | len[i];
    // The header alone (no tensors): readSafetensorsBytes checks it as for a whole file.
    std::string bytes(reinterpret_cast<const char *>(len), got);
    if (got == 8 && n <= kSafetensorsMaxHeader) {
        std::string header(static_cast<std::size_t>(n), '\0');
        in.read(header.data(), static_cast<std::streamsize>(n));
        header.resize(static_cast<std::size_t>(in.gcount()));
        bytes += header;
    }
    if (bytes.size() < 8 || n > bytes.size() - 8)
        return readSafetensorsBytes(reinterpret_cast<const std::uint8_t *>(bytes.data()), bytes.size(), path).error();
    auto metadata = readSafetensorsHeaderMetadata(reinterpret_cast<const std::uint8_t *>(bytes.data()), bytes.size(), path);
    if (!metadata)
        return metadata.error();
    const auto c = metadata->find("treelens.config");
    if (c == metadata->end())
        return makeError(path, "no treelens.config in the safetensors metadata (not a TreeLens model)");
    return c->second;
}

Result<std::string> readModelFamily(const std::string &path)
{
    auto config = readModelConfigJson(path);
    if (!config)
        return config.error();
    try {
        const auto j = nlohmann::json::parse(*config);
        const auto it = j.is_object() ? j.find("family") : j.end();
        return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
    } catch (const std::exception &e) {
        return makeError(path, std::string("treelens.config is not valid JSON: ") + e.what());
    }
}

Status saveModelFile(const std::string &path, const ModelFile &file, DType storage)
{
    if (auto st = validateModelFile(file, path); !st)
        return st;
    TensorMap stored;
    for (const auto &[name, t] : file.tensors)
        stored[name] = t.convertedTo(storage);
    std::string vocab;
    for (const auto &w : file.vocab) {
        if (w.find('\n') != std::string::npos)
            return makeError(path, "vocabulary entry contains a newline");
        vocab += w;
        vocab += '\n';
    }
    return writeSafetensors(path, stored, {{"treelens.config", file.configJson}, {"treelens.vocab", vocab}, {"format", "pt"}});
}

Status expectShape(const TensorMap &tensors, const std::string &name, const std::vector<std::int64_t> &shape,
                   const std::string &where)
{
    const auto it = tensors.find(name);
    auto text = [](const std::vector<std::int64_t> &s) {
        std::string t = "[";
        for (std::size_t i = 0; i < s.size(); ++i)
            t += (i ? ", " : "") + std::to_string(s[i]);
        return t + "]";
    };
    if (it == tensors.end())
        return makeError(where, "tensor '" + name + "' is missing (expected shape " + text(shape) + ")");
    if (it->second.shape != shape)
        return makeError(where, "tensor '" + name + "' has shape " + text(it->second.shape) + ", expected " + text(shape));
    return {};
}

} // namespace treelens
