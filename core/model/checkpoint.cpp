#include "core/model/checkpoint.h"

#include <memory>

#include <zip.h>

#include "core/base/fileio.h"
#include "core/model/pickle.h"

namespace treelens {

namespace {

struct ZipCloser {
    void operator()(zip_t *z) const { zip_discard(z); }
};

Result<std::vector<std::uint8_t>> readEntry(zip_t *z, zip_int64_t index, const std::string &where)
{
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(z, static_cast<zip_uint64_t>(index), 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
        return makeError(where, "cannot read a zip entry's size");
    if (st.size > (std::uint64_t(1) << 34))
        return makeError(where, std::string("zip entry '") + (st.name ? st.name : "?") + "' is too large");
    zip_file_t *f = zip_fopen_index(z, static_cast<zip_uint64_t>(index), 0);
    if (!f)
        return makeError(where, std::string("cannot open zip entry: ") + zip_strerror(z));
    std::vector<std::uint8_t> out(static_cast<std::size_t>(st.size));
    zip_int64_t got = out.empty() ? 0 : zip_fread(f, out.data(), out.size());
    zip_fclose(f);
    if (got < 0 || static_cast<std::uint64_t>(got) != st.size)
        return makeError(where, std::string("zip entry '") + (st.name ? st.name : "?") + "' is truncated or corrupt");
    return out;
}

bool isTensorDict(const PickleValue &v)
{
    if (v.kind != PickleValue::Kind::Dict || v.dict.empty())
        return false;
    for (const auto &[k, x] : v.dict)
        if (k->kind == PickleValue::Kind::String && x->kind == PickleValue::Kind::Tensor)
            return true;
    return false;
}

} // namespace

Result<TensorMap> readTorchCheckpoint(const std::string &path, std::string *note)
{
    {
        auto head = readFile(path);
        if (!head)
            return head.error();
        if (head->size() >= 2 && static_cast<unsigned char>((*head)[0]) == 0x80 && head->compare(0, 2, "PK") != 0)
            return makeError(path, "legacy (pre-1.6) torch.save format is not supported; re-save it with torch >= 1.6 "
                                   "(torch.save(obj, f)) or as a plain state dict");
        if (head->size() < 4 || head->compare(0, 2, "PK") != 0)
            return makeError(path, "not a PyTorch zip checkpoint (no zip signature)");
    }
    int errorCode = 0;
    std::unique_ptr<zip_t, ZipCloser> z(zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &errorCode));
    if (!z) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, errorCode);
        std::string msg = zip_error_strerror(&ze);
        zip_error_fini(&ze);
        return makeError(path, "cannot open the zip archive: " + msg);
    }
    const zip_int64_t n = zip_get_num_entries(z.get(), 0);
    std::string prefix;
    zip_int64_t pkl = -1;
    for (zip_int64_t i = 0; i < n; ++i) {
        const char *name = zip_get_name(z.get(), static_cast<zip_uint64_t>(i), 0);
        if (!name)
            continue;
        const std::string s = name;
        const auto slash = s.find('/');
        if (slash != std::string::npos && s.substr(slash) == "/data.pkl") {
            prefix = s.substr(0, slash);
            pkl = i;
            break;
        }
    }
    if (pkl < 0)
        return makeError(path, "no <archive>/data.pkl in the zip (not a torch.save checkpoint)");
    const zip_int64_t bo = zip_name_locate(z.get(), (prefix + "/byteorder").c_str(), 0);
    if (bo >= 0) {
        auto order = readEntry(z.get(), bo, path);
        if (!order)
            return order.error();
        if (std::string(order->begin(), order->end()) != "little")
            return makeError(path, "big-endian checkpoints are not supported");
    }
    auto data = readEntry(z.get(), pkl, path);
    if (!data)
        return data.error();
    std::map<std::string, std::shared_ptr<const std::vector<std::uint8_t>>> cache;
    StorageResolver resolve = [&](const std::string &key) -> Result<std::shared_ptr<const std::vector<std::uint8_t>>> {
        if (auto it = cache.find(key); it != cache.end())
            return it->second;
        const zip_int64_t idx = zip_name_locate(z.get(), (prefix + "/data/" + key).c_str(), 0);
        if (idx < 0)
            return makeError(path, "storage '" + key + "' is missing from the archive");
        auto bytes = readEntry(z.get(), idx, path);
        if (!bytes)
            return bytes.error();
        auto shared = std::make_shared<const std::vector<std::uint8_t>>(std::move(*bytes));
        cache[key] = shared;
        return shared;
    };
    auto doc = unpickle(data->data(), data->size(), resolve, path);
    if (!doc)
        return doc.error();
    const PickleValue *root = doc->root;
    std::string found = "top-level dict";
    if (!isTensorDict(*root)) {
        root = nullptr;
        if (doc->root->kind == PickleValue::Kind::Dict) {
            for (const char *key : {"state_dict", "model_state_dict", "model"}) {
                for (const auto &[k, v] : doc->root->dict)
                    if (k->kind == PickleValue::Kind::String && k->s == key && isTensorDict(*v)) {
                        root = v;
                        found = std::string("'") + key + "' of the top-level dict";
                        break;
                    }
                if (root)
                    break;
            }
        }
        if (!root)
            return makeError(path, "no state dict found (neither the top-level object nor its 'state_dict', "
                                   "'model_state_dict' or 'model' maps names to tensors)");
    }
    TensorMap out;
    std::size_t skipped = 0;
    for (const auto &[k, v] : root->dict) {
        if (k->kind != PickleValue::Kind::String || v->kind != PickleValue::Kind::Tensor) {
            ++skipped;
            continue;
        }
        out[k->s] = v->tensor;
    }
    if (note) {
        *note = "state dict from the " + found + ": " + std::to_string(out.size()) + " tensors";
        if (skipped)
            *note += ", " + std::to_string(skipped) + " non-tensor entries skipped";
    }
    return out;
}

} // namespace treelens
