#include "core/model/checkpoint.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <memory>
#include <new>
#include <set>
#include <vector>
#include <stdexcept>

#include <sys/stat.h>
#include <zip.h>

#include "core/model/pickle.h"

namespace treelens {

namespace {

// data.pkl of a state dict is ~150 bytes per tensor; storages may be large.
constexpr std::uint64_t kMaxPickleBytes = std::uint64_t(1) << 28;
constexpr std::uint64_t kMaxEntryBytes = std::uint64_t(1) << 34;
// Deflate cannot compress better than ~1032:1; a larger claimed ratio is a lie.
constexpr std::uint64_t kMaxDeflateRatio = 1100;

struct ZipCloser {
    void operator()(zip_t *z) const { zip_discard(z); }
};

using Bytes = std::vector<std::uint8_t>;

Result<Bytes> readEntry(zip_t *z, zip_int64_t index, std::uint64_t fileSize, std::uint64_t limit, const std::string &where)
{
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(z, static_cast<zip_uint64_t>(index), 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE) ||
        !(st.valid & ZIP_STAT_COMP_SIZE) || !(st.valid & ZIP_STAT_COMP_METHOD))
        return makeError(where, "cannot read a zip entry's size");
    const std::string name = (st.valid & ZIP_STAT_NAME) && st.name ? st.name : "?";
    // Sizes come from the file: check them before allocating anything.
    if (st.size > limit)
        return makeError(where, "zip entry '" + name + "' is too large (" + std::to_string(st.size) + " bytes)");
    if (st.comp_size > fileSize ||
        (st.comp_method == ZIP_CM_STORE && st.size != st.comp_size) ||
        (st.comp_method != ZIP_CM_STORE && st.size / kMaxDeflateRatio > st.comp_size))
        return makeError(where, "zip entry '" + name + "' has inconsistent sizes (corrupt archive)");
    zip_file_t *f = zip_fopen_index(z, static_cast<zip_uint64_t>(index), 0);
    if (!f)
        return makeError(where, "cannot open zip entry '" + name + "': " + zip_strerror(z));
    Bytes out(static_cast<std::size_t>(st.size));
    const zip_int64_t got = out.empty() ? 0 : zip_fread(f, out.data(), out.size());
    // One more byte must not be there, and the CRC is checked at the end of the entry.
    std::uint8_t extra = 0;
    const zip_int64_t more = zip_fread(f, &extra, 1);
    zip_fclose(f);
    if (got < 0 || static_cast<std::uint64_t>(got) != st.size || more != 0)
        return makeError(where, "zip entry '" + name + "' is truncated or corrupt");
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

std::size_t countTensors(const PickleValue &v)
{
    std::size_t n = 0;
    for (const auto &kv : v.dict)
        n += kv.second->kind == PickleValue::Kind::Tensor ? 1 : 0;
    return n;
}

std::string quotedName(const std::string &s)
{
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

std::string quoted(const std::string &s)
{
    return "'" + (s.size() > 40 ? s.substr(0, 37) + "..." : s) + "'";
}

/// One-level description of a value for notes and errors ("OrderedDict(94 tensors)").
std::string describe(const PickleValue &v)
{
    using K = PickleValue::Kind;
    switch (v.kind) {
    case K::None: return "None";
    case K::Bool: return v.b ? "True" : "False";
    case K::Int: return std::to_string(v.i);
    case K::Float: {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", v.f);
        return buf;
    }
    case K::String: return quoted(v.s);
    case K::Bytes: return "bytes(" + std::to_string(v.s.size()) + ")";
    case K::Tuple: return "tuple(" + std::to_string(v.items.size()) + ")";
    case K::List: return "list(" + std::to_string(v.items.size()) + ")";
    case K::Dict: {
        const std::string type = v.s == "OrderedDict" ? "OrderedDict" : "dict";
        const std::size_t t = countTensors(v);
        return type + "(" + std::to_string(v.dict.size()) + (t == v.dict.size() && t > 0 ? " tensors" : " entries") + ")";
    }
    case K::Global: return v.s;
    case K::Storage: return "storage";
    case K::Tensor: {
        std::string s = std::string("tensor ") + dtypeName(v.tensor.dtype) + "[";
        for (std::size_t d = 0; d < v.tensor.shape.size(); ++d)
            s += (d ? ", " : "") + std::to_string(v.tensor.shape[d]);
        return s + "]";
    }
    case K::Mark: break;
    }
    return "?";
}

/// "{'step': 0, 'state_dict': OrderedDict(94 tensors)}", at most 6 entries.
std::string describeDict(const PickleValue &v)
{
    std::string s = "{";
    for (std::size_t i = 0; i < v.dict.size(); ++i) {
        if (i == 6) {
            s += ", ... (" + std::to_string(v.dict.size()) + " entries)";
            break;
        }
        s += (i ? ", " : "") + describe(*v.dict[i].first) + ": " + describe(*v.dict[i].second);
    }
    return s + "}";
}

using ZipArchive = std::unique_ptr<zip_t, ZipCloser>;

/// The file's size, once its first bytes say it is a zip (not a legacy
/// torch.save stream, a bare pickle or something else).
Result<std::uint64_t> zipCheckpointSize(const std::string &path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return makeError(path, std::strerror(errno));
    if (!S_ISREG(st.st_mode))
        return makeError(path, "not a regular file");
    const auto fileSize = static_cast<std::uint64_t>(st.st_size);
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f)
        return makeError(path, std::strerror(errno));
    unsigned char head[14] = {};
    const std::size_t n = std::fread(head, 1, sizeof head, f);
    std::fclose(f);
    // torch.save before 1.6 wrote a sequence of pickles, the first one the
    // magic number 0x1950a86a20f9469cfc6c as a LONG1.
    static const unsigned char kLegacy[14] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c,
                                              0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
    if (n == sizeof head && std::memcmp(head, kLegacy, sizeof head) == 0)
        return makeError(path, "legacy (pre-1.6) torch.save format not supported; re-save it with torch >= 1.6 "
                               "(torch.save(torch.load(f), f))");
    if (n >= 2 && head[0] == 0x80)
        return makeError(path, "a bare pickle, not a PyTorch zip checkpoint; save it with torch.save (torch >= 1.6)");
    if (n < 4 || head[0] != 'P' || head[1] != 'K')
        return makeError(path, "not a PyTorch zip checkpoint (no zip signature)");
    return fileSize;
}

Result<ZipArchive> openZip(const std::string &path)
{
    int errorCode = 0;
    ZipArchive z(zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &errorCode));
    if (!z) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, errorCode);
        std::string msg = zip_error_strerror(&ze);
        zip_error_fini(&ze);
        return makeError(path, "cannot open the zip archive: " + msg);
    }
    return z;
}

/// Where torch.save put the pickle: its archive folder and the data.pkl entry.
struct ArchiveFolder {
    std::string prefix;
    zip_int64_t pkl = -1;
};

/// The one archive folder holding data.pkl; a second folder or a stray file, and
/// a TorchScript module (constants.pkl), are refused.
Result<ArchiveFolder> archiveFolder(zip_t *z, const std::string &path)
{
    // Entry names once: the archive folder is the one holding data.pkl.
    std::vector<std::string> names;
    const zip_int64_t n = zip_get_num_entries(z, 0);
    for (zip_int64_t i = 0; i < n; ++i) {
        const char *name = zip_get_name(z, static_cast<zip_uint64_t>(i), 0);
        names.emplace_back(name ? name : "");
    }
    auto topFolder = [](const std::string &s) { return s.substr(0, s.find('/')); };
    ArchiveFolder folder;
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::string &s = names[i];
        const auto slash = s.find('/');
        if (slash != std::string::npos && s.compare(slash, std::string::npos, "/data.pkl") == 0) {
            folder.prefix = topFolder(s);
            folder.pkl = static_cast<zip_int64_t>(i);
            break;
        }
    }
    if (folder.pkl < 0)
        return makeError(path, "no <archive>/data.pkl in the zip (not a torch.save checkpoint)");
    // torch.save writes one archive folder; a second one would be ignored silently.
    for (const std::string &s : names)
        if (!s.empty() && topFolder(s) != folder.prefix)
            return makeError(path, "the zip holds '" + quotedName(s) + "' outside the archive folder '" +
                                   quotedName(folder.prefix) +
                                   "' (a second archive or a stray file; torch.save writes one folder): refused");
    if (zip_name_locate(z, (folder.prefix + "/constants.pkl").c_str(), 0) >= 0)
        return makeError(path, "a TorchScript module (torch.jit.save), not a torch.save checkpoint; "
                               "save its state_dict() with torch.save");
    return folder;
}

/// The archive's byteorder entry, when there is one, must say "little".
Status checkByteOrder(zip_t *z, const std::string &prefix, std::uint64_t fileSize, const std::string &path)
{
    const zip_int64_t bo = zip_name_locate(z, (prefix + "/byteorder").c_str(), 0);
    if (bo < 0)
        return {};
    auto order = readEntry(z, bo, fileSize, 64, path);
    if (!order)
        return order.error();
    std::string o(order->begin(), order->end());
    while (!o.empty() && (o.back() == '\n' || o.back() == '\r' || o.back() == ' '))
        o.pop_back();
    if (o != "little")
        return makeError(path, "byteorder '" + o.substr(0, 16) +
                               "': only little-endian checkpoints are supported (re-save on a little-endian machine)");
    return {};
}

/// The unpickler's storages: <prefix>/data/<key> entries, each read once (kept
/// in `cache`) and refused before inflating when larger than the pickle declares.
StorageResolver archiveStorages(zip_t *z, const std::string &prefix, std::uint64_t fileSize, const std::string &path,
                                std::map<std::string, std::shared_ptr<const Bytes>> &cache)
{
    return [z, prefix, fileSize, path, &cache](const std::string &key,
                                              std::uint64_t declared) -> Result<std::shared_ptr<const Bytes>> {
        if (auto it = cache.find(key); it != cache.end())
            return it->second;
        const zip_int64_t idx = zip_name_locate(z, (prefix + "/data/" + key).c_str(), 0);
        if (idx < 0 || key.empty() || key.find('/') != std::string::npos)
            return makeError(path, "storage '" + key + "' is missing from the archive");
        // The absolute cap is what the pickle declares for this storage: a
        // highly compressible entry larger than that is refused before it is
        // inflated (not after costing its inflated size in memory).
        zip_stat_t st;
        zip_stat_init(&st);
        if (zip_stat_index(z, static_cast<zip_uint64_t>(idx), 0, &st) == 0 && (st.valid & ZIP_STAT_SIZE) &&
            st.size > declared)
            return makeError(path, "storage '" + key + "' is " + std::to_string(st.size) + " bytes in the archive but the "
                                   "checkpoint declares " + std::to_string(declared) + " (refused before inflating)");
        auto bytes = readEntry(z, idx, fileSize, std::min(kMaxEntryBytes, declared), path);
        if (!bytes)
            return bytes.error();
        auto shared = std::make_shared<const Bytes>(std::move(*bytes));
        cache[key] = shared;
        return shared;
    };
}

/// The state dict in an unpickled checkpoint and where it was found (for the note).
struct StateDict {
    PickleValue *dict = nullptr;
    std::string found;
};

/// A training checkpoint ({'epoch', 'model': ..., 'best': tensor(...)}) may hold
/// a stray tensor at the top: the named entries win over the top-level dict.
Result<StateDict> findStateDict(PickleValue *top, const std::string &path)
{
    StateDict sd;
    if (top->kind == PickleValue::Kind::Dict) {
        for (const char *key : {"state_dict", "model_state_dict", "model"}) {
            for (const auto &[k, v] : top->dict)
                if (k->kind == PickleValue::Kind::String && k->s == key && isTensorDict(*v)) {
                    sd.dict = v;
                    sd.found = std::string("'") + key + "' of " + describeDict(*top);
                    break;
                }
            if (sd.dict)
                break;
        }
    }
    if (!sd.dict && isTensorDict(*top)) {
        sd.dict = top;
        sd.found = std::string("the top-level ") + (top->s == "OrderedDict" ? "OrderedDict" : "dict");
    }
    if (!sd.dict) {
        const std::string desc = top->kind == PickleValue::Kind::Dict ? describeDict(*top) : describe(*top);
        return makeError(path, "no state dict found in " + desc.substr(0, 200) +
                               " (neither it nor its 'state_dict', 'model_state_dict' or 'model' maps names to tensors)");
    }
    return sd;
}

/// The state dict's tensors by name; its other entries are described in `skipped`.
TensorMap takeTensors(PickleValue &dict, std::vector<std::string> &skipped)
{
    TensorMap out;
    // Tensors referenced twice (through the memo) are moved once, then copied.
    std::map<const PickleValue *, std::string> taken;
    for (const auto &[k, v] : dict.dict) {
        if (k->kind != PickleValue::Kind::String || v->kind != PickleValue::Kind::Tensor) {
            skipped.push_back(describe(*k));
            continue;
        }
        if (auto it = taken.find(v); it != taken.end()) {
            TensorData copy = out.at(it->second);
            out[k->s] = std::move(copy);
        } else {
            out[k->s] = std::move(v->tensor);
            taken.emplace(v, k->s);
        }
    }
    return out;
}

std::string stateDictNote(const std::string &found, std::size_t tensors, const std::vector<std::string> &skipped)
{
    std::string note = "state dict from " + found + ": " + std::to_string(tensors) + " tensors";
    if (!skipped.empty()) {
        note += "; " + std::to_string(skipped.size()) + " non-tensor entries ignored (";
        for (std::size_t i = 0; i < skipped.size() && i < 5; ++i)
            note += (i ? ", " : "") + skipped[i];
        note += skipped.size() > 5 ? ", ...)" : ")";
    }
    return note;
}

Result<TensorMap> readCheckpoint(const std::string &path, std::string *note)
{
    auto fileSize = zipCheckpointSize(path);
    if (!fileSize)
        return fileSize.error();
    auto z = openZip(path);
    if (!z)
        return z.error();
    auto folder = archiveFolder(z->get(), path);
    if (!folder)
        return folder.error();
    if (auto s = checkByteOrder(z->get(), folder->prefix, *fileSize, path); !s)
        return s.error();
    auto data = readEntry(z->get(), folder->pkl, *fileSize, kMaxPickleBytes, path);
    if (!data)
        return data.error();
    std::map<std::string, std::shared_ptr<const Bytes>> cache;
    auto doc = unpickle(data->data(), data->size(), archiveStorages(z->get(), folder->prefix, *fileSize, path, cache), path);
    if (!doc)
        return doc.error();
    cache.clear(); // tensors are materialised: the storages are no longer needed

    auto sd = findStateDict(doc->root, path);
    if (!sd)
        return sd.error();
    std::vector<std::string> skipped;
    TensorMap out = takeTensors(*sd->dict, skipped);
    if (note)
        *note = stateDictNote(sd->found, out.size(), skipped);
    return out;
}

} // namespace

Result<TensorMap> readTorchCheckpoint(const std::string &path, std::string *note)
{
    // Allocation failures (a consistent but huge file) become errors.
    try {
        return readCheckpoint(path, note);
    } catch (const std::bad_alloc &) {
        return makeError(path, "out of memory while reading the checkpoint");
    } catch (const std::length_error &) {
        return makeError(path, "out of memory while reading the checkpoint");
    }
}

} // namespace treelens
