// PyTorch checkpoint import (core/model/checkpoint.h) and the restricted
// unpickler under it (core/model/pickle.h). Imported tensors are compared bit
// for bit with LibTorch, an independent implementation: torch::pickle_load of
// the fixture's plain-dict files, and torch's own strided views for
// hand-made pickles. Malicious pickles must be refused naming the global,
// without anything having run (a marker file the payload would create).
#include <torch/torch.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <zip.h>

#include "core/model/checkpoint.h"
#include "core/model/pickle.h"
#include "bytefiles.h"
#include "testutil.h"
#include "torchsave.h"

using namespace treelens;
using test::slurp;
using test::spit;
using test::makeZip;
using test::Pickle;

namespace {

const std::string kFixture = "fixtures/tree-transformer-official";

using Bytes = std::vector<std::uint8_t>;
using Storages = std::map<std::string, Bytes>;

std::string tempPath(const std::string &name) { return test::scratchPath("treelens-checkpoint-tests", name); }



/// All entries of a zip archive, by name.
std::map<std::string, std::string> readZip(const std::string &path)
{
    std::map<std::string, std::string> out;
    int err = 0;
    zip_t *z = zip_open(path.c_str(), ZIP_RDONLY, &err);
    if (!z)
        return out;
    for (zip_int64_t i = 0; i < zip_get_num_entries(z, 0); ++i) {
        zip_stat_t st;
        zip_stat_index(z, static_cast<zip_uint64_t>(i), 0, &st);
        std::string data(st.size, '\0');
        zip_file_t *f = zip_fopen_index(z, static_cast<zip_uint64_t>(i), 0);
        if (!data.empty())
            zip_fread(f, data.data(), data.size());
        zip_fclose(f);
        out[st.name] = data;
    }
    zip_discard(z);
    return out;
}

/// Serves `storages` (shared, like the archive reader's cache).
StorageResolver resolverFor(const Storages &storages)
{
    auto shared = std::make_shared<std::map<std::string, std::shared_ptr<const Bytes>>>();
    for (const auto &[key, bytes] : storages)
        (*shared)[key] = std::make_shared<const Bytes>(bytes);
    return [shared](const std::string &key, std::uint64_t) -> Result<std::shared_ptr<const Bytes>> {
        auto it = shared->find(key);
        if (it == shared->end())
            return makeError("test.pkl", "storage '" + key + "' is missing");
        return it->second;
    };
}

Result<PickleDocument> unpickleBytes(const std::string &s, const Storages &storages = {})
{
    return unpickle(reinterpret_cast<const std::uint8_t *>(s.data()), s.size(), resolverFor(storages), "test.pkl");
}

std::optional<DType> dtypeOf(torch::ScalarType t)
{
    switch (t) {
    case torch::kFloat: return DType::F32;
    case torch::kHalf: return DType::F16;
    case torch::kBFloat16: return DType::BF16;
    case torch::kDouble: return DType::F64;
    case torch::kLong: return DType::I64;
    case torch::kInt: return DType::I32;
    case torch::kShort: return DType::I16;
    case torch::kChar: return DType::I8;
    case torch::kByte: return DType::U8;
    case torch::kBool: return DType::Bool;
    default: return std::nullopt;
    }
}

/// Same name set, dtype, shape and bytes as LibTorch's dict of tensors.
void expectSameTensors(const TensorMap &got, const c10::Dict<c10::IValue, c10::IValue> &want, const std::string &what)
{
    std::size_t tensors = 0;
    for (const auto &e : want) {
        if (!e.value().isTensor())
            continue;
        ++tensors;
        const std::string key = e.key().toStringRef();
        auto it = got.find(key);
        ASSERT_NE(it, got.end()) << what << " lacks " << key;
        const auto w = e.value().toTensor().contiguous();
        const TensorData &t = it->second;
        EXPECT_EQ(std::optional<DType>(t.dtype), dtypeOf(w.scalar_type())) << what << " " << key;
        EXPECT_EQ(t.shape, std::vector<std::int64_t>(w.sizes().begin(), w.sizes().end())) << what << " " << key;
        ASSERT_EQ(t.size(), static_cast<std::size_t>(w.numel()) * w.element_size()) << what << " " << key;
        EXPECT_EQ(std::memcmp(t.data(), w.data_ptr(), t.size()), 0) << what << " " << key << " differs";
    }
    EXPECT_EQ(got.size(), tensors) << what;
}

c10::Dict<c10::IValue, c10::IValue> torchLoad(const std::string &path)
{
    const std::string bytes = slurp(path);
    return torch::pickle_load(std::vector<char>(bytes.begin(), bytes.end())).toGenericDict();
}

bool contains(const std::string &haystack, const std::string &needle) { return haystack.find(needle) != std::string::npos; }

} // namespace

// ---------------------------------------------------------------- fixture files

TEST(CheckpointImport, FixtureFilesMatchLibTorchBitForBit)
{
    TREELENS_REQUIRE_SHARED(kFixture + "/state_dict_plain.pt");
    // Two independent references: the bare plain dict and the plain {'step', 'state_dict'}.
    const auto ref = torchLoad(test::sharedPath(kFixture + "/state_dict_plain.pt"));
    const auto ref2 = torchLoad(test::sharedPath(kFixture + "/model_plain.pth")).at("state_dict").toGenericDict();
    ASSERT_GT(ref.size(), 20u);
    const std::map<std::string, std::string> expectedNote = {
        {"model.pth", "state dict from 'state_dict' of {'step': 0, 'state_dict': OrderedDict(" + std::to_string(ref.size()) +
                          " tensors)}: " + std::to_string(ref.size()) + " tensors"},
        {"state_dict.pt", "state dict from the top-level OrderedDict: " + std::to_string(ref.size()) + " tensors"},
        {"model_plain.pth", "state dict from 'state_dict' of {'step': 0, 'state_dict': dict(" + std::to_string(ref.size()) +
                                " tensors)}: " + std::to_string(ref.size()) + " tensors"},
        {"state_dict_plain.pt", "state dict from the top-level dict: " + std::to_string(ref.size()) + " tensors"},
    };
    for (const auto &[name, wantNote] : expectedNote) {
        std::string note;
        auto m = readTorchCheckpoint(test::sharedPath(kFixture + "/" + name), &note);
        ASSERT_TRUE(m.ok()) << name << ": " << m.message();
        expectSameTensors(*m, ref, name);
        expectSameTensors(*m, ref2, name + " (vs model_plain.pth)");
        EXPECT_EQ(note, wantNote);
        EXPECT_EQ(m->at("word_embed.0.lut.weight").shape, (std::vector<std::int64_t>{50, 32}));
    }
}

TEST(CheckpointImport, FixtureOutputTensorsKeepTheirIntegerDTypes)
{
    TREELENS_REQUIRE_SHARED(kFixture + "/tensors.pt");
    const auto ref = torchLoad(test::sharedPath(kFixture + "/tensors.pt"));
    std::string note;
    auto m = readTorchCheckpoint(test::sharedPath(kFixture + "/tensors.pt"), &note);
    ASSERT_TRUE(m.ok()) << m.message();
    expectSameTensors(*m, ref, "tensors.pt");
    EXPECT_EQ(m->at("input_ids").dtype, DType::I64);
    EXPECT_EQ(m->at("input_mask").dtype, DType::I32);
    EXPECT_EQ(m->at("break_prob").shape, (std::vector<std::int64_t>{2, 4, 8, 8}));
    EXPECT_EQ(m->at("attn_raw").shape, (std::vector<std::int64_t>{2, 4, 4, 8, 8}));
    EXPECT_EQ(note, "state dict from the top-level dict: " + std::to_string(m->size()) + " tensors");
    // tensors/<name>.pt hold one bare tensor, not a dict: a clear error.
    auto single = readTorchCheckpoint(test::sharedPath(kFixture + "/tensors/input_ids.pt"));
    ASSERT_FALSE(single.ok());
    EXPECT_TRUE(contains(single.message(), "no state dict found in tensor I64[")) << single.message();
}

// ---------------------------------------------------------------- tensor views

TEST(Unpickle, StridedViewsAndOffsetsMatchTorch)
{
    std::vector<float> values(64);
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = static_cast<float>(i) * 1.5f - 7.0f;
    Storages storages{{"s", Bytes(reinterpret_cast<const std::uint8_t *>(values.data()),
                                  reinterpret_cast<const std::uint8_t *>(values.data() + values.size()))}};
    struct View {
        std::int64_t offset;
        std::vector<std::int64_t> size, stride;
    };
    const std::vector<View> views = {
        {0, {8, 8}, {8, 1}},          // contiguous
        {0, {8, 8}, {1, 8}},          // transposed
        {5, {3, 4}, {4, 1}},          // offset slice
        {3, {2, 3}, {10, 2}},         // every other element of rows
        {1, {4, 3}, {0, 1}},          // expanded (stride 0) rows
        {0, {2, 3, 4}, {1, 8, 2}},    // permuted 3-D
        {7, {1, 5, 1}, {99, 3, 42}},  // size-1 dims with odd strides
        {10, {}, {}},                 // scalar
        {0, {0, 5}, {5, 1}},          // empty
        {63, {1}, {1}},               // last element
        {0, {4, 2, 2, 2}, {16, 1, 8, 2}},
    };
    for (const auto &v : views) {
        Pickle p;
        p.tensor("FloatStorage", "s", 64, v.offset, v.size, v.stride).stop();
        auto doc = unpickleBytes(p.b, storages);
        ASSERT_TRUE(doc.ok()) << doc.message();
        ASSERT_EQ(doc->root->kind, PickleValue::Kind::Tensor);
        const TensorData &t = doc->root->tensor;
        auto want = torch::from_blob(values.data() + v.offset, v.size, v.stride, torch::kFloat).contiguous();
        ASSERT_EQ(t.shape, v.size);
        ASSERT_EQ(t.size(), static_cast<std::size_t>(want.numel()) * 4);
        // (memcmp of an empty view's null pointer is undefined: UBSan says so)
        EXPECT_TRUE(t.size() == 0 || std::memcmp(t.data(), want.data_ptr(), t.size()) == 0)
            << "offset " << v.offset << " size " << want.sizes() << " stride " << c10::IntArrayRef(v.stride);
    }
}

TEST(Unpickle, EveryStorageTypeKeepsItsDType)
{
    const std::vector<std::pair<std::string, DType>> types = {
        {"FloatStorage", DType::F32}, {"HalfStorage", DType::F16},  {"BFloat16Storage", DType::BF16},
        {"DoubleStorage", DType::F64}, {"LongStorage", DType::I64}, {"IntStorage", DType::I32},
        {"ShortStorage", DType::I16},  {"CharStorage", DType::I8},  {"ByteStorage", DType::U8},
        {"BoolStorage", DType::Bool}};
    for (const auto &[type, dtype] : types) {
        const std::size_t es = dtypeSize(dtype);
        Bytes bytes(6 * es);
        for (std::size_t i = 0; i < bytes.size(); ++i)
            bytes[i] = dtype == DType::Bool ? static_cast<std::uint8_t>(i % 2) : static_cast<std::uint8_t>(i * 7 + 1);
        Storages storages{{"k", bytes}};
        Pickle p;
        // Transposed 2x3 view: element (i, j) is storage element j*2 + i.
        p.tensor(type, "k", 6, 0, {2, 3}, {1, 2}).stop();
        auto doc = unpickleBytes(p.b, storages);
        ASSERT_TRUE(doc.ok()) << type << ": " << doc.message();
        const TensorData &t = doc->root->tensor;
        EXPECT_EQ(t.dtype, dtype) << type;
        ASSERT_EQ(t.size(), 6 * es);
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 3; ++j)
                EXPECT_EQ(std::memcmp(t.data() + (i * 3 + j) * es, bytes.data() + (j * 2 + i) * es, es), 0) << type;
    }
}

TEST(Unpickle, ParametersOrderedDictStateAndSharedTensors)
{
    Storages storages{{"0", Bytes(16, 3)}};
    Pickle p;
    // OrderedDict() with two entries, a Parameter, a Parameter with state, a
    // memoised tensor used twice (tied weights), then BUILD with _metadata.
    p.global("collections", "OrderedDict").op(')').op('R').mark();
    p.str("a").tensor("FloatStorage", "0", 4, 0, {2, 2}, {2, 1}).op('q').raw(std::string("\x07", 1));
    p.str("b").global("torch._utils", "_rebuild_parameter").mark().tensor("FloatStorage", "0", 4, 1, {3}, {1});
    p.op('\x88').global("collections", "OrderedDict").op(')').op('R').tuple().op('R');
    p.str("c").global("torch._utils", "_rebuild_parameter_with_state").mark().tensor("FloatStorage", "0", 4, 0, {1}, {1});
    p.op('\x88').global("collections", "OrderedDict").op(')').op('R').op('}').tuple().op('R');
    p.str("tied").op('h').raw(std::string("\x07", 1));
    p.op('u').op('}').str("_metadata").op('}').op('s').op('b').stop();
    auto doc = unpickleBytes(p.b, storages);
    ASSERT_TRUE(doc.ok()) << doc.message();
    const PickleValue &d = *doc->root;
    ASSERT_EQ(d.kind, PickleValue::Kind::Dict);
    EXPECT_EQ(d.s, "OrderedDict");
    ASSERT_EQ(d.dict.size(), 4u);
    EXPECT_EQ(d.dict[1].second->tensor.shape, (std::vector<std::int64_t>{3}));
    EXPECT_EQ(d.dict[2].second->kind, PickleValue::Kind::Tensor);
    EXPECT_EQ(d.dict[3].second, d.dict[0].second); // the same value, through the memo

    // Through a zip: both tied names come out with the same bytes.
    const std::string path = tempPath("tied.pt");
    makeZip(path, {{"tied/data.pkl", p.b}, {"tied/data/0", std::string(16, '\3')}, {"tied/version", "3\n"}});
    std::string note;
    auto m = readTorchCheckpoint(path, &note);
    ASSERT_TRUE(m.ok()) << m.message();
    ASSERT_EQ(m->size(), 4u);
    const TensorData &tied = m->at("tied"), &a = m->at("a");
    EXPECT_EQ(std::vector<std::uint8_t>(tied.data(), tied.data() + tied.size()), std::vector<std::uint8_t>(a.data(), a.data() + a.size()));
    EXPECT_EQ(m->at("tied").shape, (std::vector<std::int64_t>{2, 2}));
    EXPECT_EQ(note, "state dict from the top-level OrderedDict: 4 tensors");
}

// ---------------------------------------------------------------- state dict lookup

TEST(CheckpointImport, FindsTheStateDictAndReportsIgnoredEntries)
{
    const std::string storage(64, '\1');
    auto zipOf = [&](const std::string &name, const Pickle &p) {
        const std::string path = tempPath(name);
        makeZip(path, {{"archive/data.pkl", p.b}, {"archive/data/0", storage}, {"archive/byteorder", "little"}});
        return path;
    };
    // A state dict with non-tensor entries.
    Pickle a;
    a.op('}').mark().str("w").tensor("FloatStorage", "0", 16, 0, {4}, {1}).str("step").integer(5);
    a.str("name").str("x").op('u').stop();
    std::string note;
    auto ra = readTorchCheckpoint(zipOf("mixed.pt", a), &note);
    ASSERT_TRUE(ra.ok()) << ra.message();
    EXPECT_EQ(ra->size(), 1u);
    EXPECT_EQ(note, "state dict from the top-level dict: 1 tensors; 2 non-tensor entries ignored ('step', 'name')");
    // A training checkpoint with a stray top-level tensor: 'model' wins.
    Pickle b;
    b.op('}').mark().str("epoch").integer(3).str("best").tensor("FloatStorage", "0", 16, 0, {}, {});
    b.str("model").op('}').mark().str("l.weight").tensor("FloatStorage", "0", 16, 2, {2, 2}, {1, 2});
    b.str("l.bias").tensor("FloatStorage", "0", 16, 0, {2}, {1}).op('u').op('u').stop();
    auto rb = readTorchCheckpoint(zipOf("training.pt", b), &note);
    ASSERT_TRUE(rb.ok()) << rb.message();
    EXPECT_EQ(rb->size(), 2u);
    EXPECT_TRUE(rb->count("l.weight"));
    EXPECT_EQ(note, "state dict from 'model' of {'epoch': 3, 'best': tensor F32[], 'model': dict(2 tensors)}: 2 tensors");
    // No tensors anywhere.
    Pickle c;
    c.op('}').mark().str("step").integer(1).str("args").op(']').op('u').stop();
    auto rc = readTorchCheckpoint(zipOf("notensors.pt", c));
    ASSERT_FALSE(rc.ok());
    EXPECT_TRUE(contains(rc.message(), "no state dict found in {'step': 1, 'args': list(0)}")) << rc.message();
}

// ---------------------------------------------------------------- malicious pickles

TEST(Unpickle, RefusesCodeExecutionGlobalsNamingThem)
{
    const std::string marker = tempPath("pwned-bare");
    std::filesystem::remove(marker);
    const std::string cmd = "touch " + marker;
    const std::vector<std::pair<std::string, std::string>> globals = {
        {"os", "system"},           {"posix", "system"},         {"nt", "system"},
        {"builtins", "eval"},       {"builtins", "exec"},        {"__builtin__", "eval"},
        {"builtins", "getattr"},    {"builtins", "__import__"},  {"subprocess", "Popen"},
        {"subprocess", "check_output"}, {"torch", "load"},       {"torch.storage", "_load_from_bytes"},
        {"numpy.core.multiarray", "_reconstruct"}, {"torch.serialization", "_get_layout"},
        {"collections", "OrderedDict.__init__"},   {"torch", "FloatStorage\nos"}};
    for (const auto &[mod, name] : globals) {
        const std::string full = mod + "." + name;
        // GLOBAL (protocol 2) and STACK_GLOBAL (protocol 4), both followed by a call.
        Pickle g;
        g.global(mod, name).str(cmd).op('\x85').op('R').stop();
        Pickle sg;
        sg.b = std::string("\x80\x04", 2);
        sg.str(mod).str(name).op('\x93').str(cmd).op('\x85').op('R').stop();
        for (const Pickle *p : {&g, &sg}) {
            auto r = unpickleBytes(p->b);
            ASSERT_FALSE(r.ok()) << full;
            if (name.find('\n') != std::string::npos)
                continue; // a GLOBAL line cannot hold a newline: the parse differs, still refused
            EXPECT_TRUE(contains(r.message(), "refusing pickle global '" + full + "' (not a tensor or container)"))
                << r.message();
            EXPECT_EQ(r.message().rfind("test.pkl: ", 0), 0u) << r.message();
        }
    }
    // Deep inside an otherwise valid state dict, after tensors were built.
    Storages storages{{"0", Bytes(64, 0)}};
    Pickle deep;
    deep.op('}').mark().str("w").tensor("FloatStorage", "0", 16, 0, {4}, {1});
    deep.str("x").global("os", "system").str(cmd).op('\x85').op('R').op('u').stop();
    auto r = unpickleBytes(deep.b, storages);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.message(), "'os.system'")) << r.message();
    // Allowed globals are not callable for anything else.
    Pickle call;
    call.global("torch", "FloatStorage").op(')').op('R').stop();
    EXPECT_TRUE(contains(unpickleBytes(call.b).message(), "refusing to call pickle global 'torch.FloatStorage'"));
    Pickle pid;
    pid.mark().str("storage").global("collections", "OrderedDict").str("0").str("cpu").integer(4).tuple().op('Q').stop();
    EXPECT_TRUE(contains(unpickleBytes(pid.b, storages).message(), "non-storage type 'collections.OrderedDict'"));
    Pickle newobj; // NEWOBJ / INST / OBJ are not interpreted at all
    newobj.global("collections", "OrderedDict").op(')').op('\x81').stop();
    EXPECT_TRUE(contains(unpickleBytes(newobj.b).message(), "unsupported pickle opcode 0x81"));
    Pickle inst;
    inst.mark().raw("ios\nsystem\n").stop();
    EXPECT_TRUE(contains(unpickleBytes(inst.b).message(), "unsupported pickle opcode 0x69"));
    EXPECT_FALSE(std::filesystem::exists(marker));
}

TEST(CheckpointImport, RefusesMaliciousArchivesNamingTheGlobal)
{
    const std::string marker = tempPath("pwned-zip");
    std::filesystem::remove(marker);
    const std::string cmd = "touch " + marker;
    for (const auto &[mod, name] : std::vector<std::pair<std::string, std::string>>{
             {"os", "system"}, {"posix", "system"}, {"builtins", "eval"}, {"subprocess", "Popen"}}) {
        Pickle p;
        p.op('}').mark().str("w").tensor("FloatStorage", "0", 4, 0, {4}, {1});
        p.str("evil").global(mod, name).str(cmd).op('\x85').op('R').op('u').stop();
        const std::string path = tempPath("model.pth");
        makeZip(path, {{"model/data.pkl", p.b}, {"model/data/0", std::string(16, '\0')}, {"model/version", "3\n"}});
        auto r = readTorchCheckpoint(path);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.message().rfind(path + ": refusing pickle global '" + mod + "." + name + "' (not a tensor or container)", 0), 0u)
            << r.message();
    }
    EXPECT_FALSE(std::filesystem::exists(marker));
}

// ---------------------------------------------------------------- malformed input

TEST(Unpickle, MalformedPicklesGiveErrorsNotCrashes)
{
    Storages storages{{"0", Bytes(64, 0)}};
    auto fails = [&](const std::string &bytes, const std::string &needle) {
        auto r = unpickleBytes(bytes, storages);
        ASSERT_FALSE(r.ok()) << needle;
        EXPECT_TRUE(contains(r.message(), needle)) << r.message();
        EXPECT_EQ(r.message().rfind("test.pkl: ", 0), 0u);
    };
    auto t = [](std::int64_t numel, std::int64_t offset, std::vector<std::int64_t> size, std::vector<std::int64_t> stride) {
        Pickle p;
        p.tensor("FloatStorage", "0", numel, offset, size, stride).stop();
        return p.b;
    };
    fails(t(16, 13, {4}, {1}), "tensor reaches element 16 of storage '0' with 16 elements");
    fails(t(16, 0, {4, 5}, {4, 1}), "tensor reaches element");
    fails(t(16, 17, {0}, {1}), "tensor offset 17 is outside storage '0'");
    fails(t(16, -1, {1}, {1}), "tensor offset -1");
    fails(t(16, 0, {2}, {-1}), "negative tensor size or stride");
    fails(t(16, 0, {-2}, {1}), "negative tensor size or stride");
    fails(t(16, 0, {2, 2}, {1}), "different lengths");
    fails(t(16, 0, std::vector<std::int64_t>(17, 1), std::vector<std::int64_t>(17, 1)), "dimensions");
    fails(t(16, 0, {INT64_MAX, 2}, {1, 1}), "too large");
    fails(t(16, 0, {3, 2}, {INT64_MAX / 2, 1}), "too large");
    fails(t(16, 0, {1 << 20, 1 << 20}, {0, 0}), "far larger than its storage");
    fails(t(17, 0, {4}, {1}), "storage '0' has 64 bytes, fewer than 17 elements of F32");
    fails(t(std::int64_t(1) << 61, 0, {4}, {1}), "declares 2305843009213693952 elements");
    fails(t(-1, 0, {4}, {1}), "declares -1 elements");
    {
        Pickle p;
        p.tensor("FloatStorage", "missing", 4, 0, {4}, {1}).stop();
        fails(p.b, "storage 'missing' is missing");
    }
    // Many expanded views of one small storage: the total is bounded too.
    {
        Pickle p;
        p.op(']');
        for (int i = 0; i < 100; ++i)
            p.tensor("FloatStorage", "0", 16, 0, {1 << 18}, {0}).op('a');
        fails(p.stop().b, "far more memory than their storages");
    }
    {
        Pickle p;
        p.op(']');
        for (int i = 0; i < 60; ++i)
            p.tensor("FloatStorage", "0", 16, 0, {1 << 18}, {0}).op('a');
        EXPECT_TRUE(unpickleBytes(p.stop().b, storages).ok()); // 60 MiB: within the budget
    }
    fails("", "truncated pickle");
    fails(std::string("\x80\x02", 2), "truncated pickle (no STOP opcode)");
    fails(std::string("\x80\x02}q", 4), "truncated BINPUT");
    fails(std::string("\x80\x02s.", 4), "stack underflow");
    fails(std::string("\x80\x02(.", 4), "at STOP");
    fails(std::string("\x80\x02((q\x00h\x00t.", 10), "PUT without a value");
    fails(std::string("\x80\x02h\x05.", 5), "GET of unknown memo entry 5");
    fails(std::string("\x80\x02Nr\xff\xff\xff\x7f.", 9), "memo index too large");
    fails(std::string("\x80\x02X\xff\xff\xff\x7f", 7), "truncated or oversized string");
    fails(std::string("\x80\x02\x8a\x09\x01\x02\x03\x04\x05\x06\x07\x08\x09.", 14), "integer too large");
    fails(std::string("\x80\x07N.", 4), "unsupported pickle protocol 7");
    fails(std::string("\x80\x02\xff.", 4), "unsupported pickle opcode 0xff");
    fails(std::string("\x80\x02NN.", 5), "stack holds 2 values at STOP");
    fails(std::string("\x80\x02N}b.", 6), "BUILD is only accepted on a dict");
    fails(std::string("\x80\x02}u.", 5), "no MARK");
    fails(std::string("\x80\x02]N\x85" "b.", 7), "BUILD is only accepted on a dict"); // no list.__setstate__
    fails(std::string("\x80\x02", 2) + std::string((1 << 18) + 1, ']') + ".", "pickle stack too deep");
    {
        std::string many = std::string("\x80\x02]", 3);
        for (int i = 0; i < (1 << 20); ++i)
            many += "]a";
        fails(many + ".", "more than 1048576 values");
    }
    // A list containing itself is fine (values live in an arena).
    EXPECT_TRUE(unpickleBytes(std::string("\x80\x02]q\x00h\x00" "a.", 9)).ok());
}

TEST(Unpickle, EveryPrefixAndManyMutationsOfTheFixturePickleAreHandled)
{
    TREELENS_REQUIRE_SHARED(kFixture + "/model.pth");
    const auto entries = readZip(test::sharedPath(kFixture + "/model.pth"));
    ASSERT_TRUE(entries.count("model/data.pkl"));
    const std::string pkl = entries.at("model/data.pkl");
    Storages storages;
    for (const auto &[name, data] : entries)
        if (name.rfind("model/data/", 0) == 0)
            storages[name.substr(11)] = Bytes(data.begin(), data.end());
    ASSERT_TRUE(unpickleBytes(pkl, storages).ok());
    // Every third prefix and the last 300 (the tail closes all containers).
    for (std::size_t n = 0; n < pkl.size(); n += n + 300 < pkl.size() ? 3 : 1)
        ASSERT_FALSE(unpickleBytes(pkl.substr(0, n), storages).ok()) << "prefix " << n;
    // Single-byte mutations: any outcome but a crash (ASan builds check memory).
    std::size_t accepted = 0;
    for (std::size_t i = 0; i < pkl.size(); i += 17)
        for (unsigned char v : std::vector<unsigned char>{0x00, 0x01, 0x7f, 0x80, 0xff,
                                                          static_cast<unsigned char>(pkl[i] ^ 0x10)}) {
            std::string m = pkl;
            m[i] = static_cast<char>(v);
            accepted += unpickleBytes(m, storages).ok() ? 1 : 0;
        }
    EXPECT_GT(accepted, 0u); // e.g. changed digits of values
}

TEST(CheckpointImport, BadArchivesGiveOneLineErrorsNamingTheFile)
{
    auto fails = [](const std::string &path, const std::string &needle) {
        auto r = readTorchCheckpoint(path);
        ASSERT_FALSE(r.ok()) << path;
        EXPECT_EQ(r.message().rfind(path + ": ", 0), 0u) << r.message();
        EXPECT_TRUE(contains(r.message(), needle)) << r.message();
        EXPECT_EQ(r.message().find('\n'), std::string::npos) << r.message();
    };
    const std::string p = tempPath("bad.pth");
    fails(tempPath("does-not-exist.pth"), "No such file");
    fails(std::filesystem::temp_directory_path().string(), "not a regular file");
    spit(p, "");
    fails(p, "not a PyTorch zip checkpoint");
    spit(p, "hello world");
    fails(p, "not a PyTorch zip checkpoint");
    spit(p, std::string("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19q\x00.", 17));
    fails(p, "legacy (pre-1.6) torch.save format not supported; re-save it with torch >= 1.6");
    spit(p, std::string("\x80\x02}q\x00.", 6));
    fails(p, "a bare pickle, not a PyTorch zip checkpoint");
    spit(p, "PK\x03\x04 but not really a zip");
    fails(p, "cannot open the zip archive");

    Pickle ok;
    ok.op('}').mark().str("w").tensor("FloatStorage", "0", 4, 0, {4}, {1}).op('u').stop();
    makeZip(p, {{"a/version", "3\n"}, {"a/data/0", std::string(16, '\0')}});
    fails(p, "no <archive>/data.pkl");
    makeZip(p, {{"a/data.pkl", ok.b}, {"a/byteorder", "big"}, {"a/data/0", std::string(16, '\0')}});
    fails(p, "byteorder 'big': only little-endian checkpoints are supported");
    makeZip(p, {{"a/data.pkl", ok.b}});
    fails(p, "storage '0' is missing from the archive");
    makeZip(p, {{"a/data.pkl", ok.b}, {"a/data/0", std::string(12, '\0')}});
    fails(p, "storage '0' has 12 bytes, fewer than 4 elements of F32");
    makeZip(p, {{"a/data.pkl", ok.b.substr(0, ok.b.size() - 3)}, {"a/data/0", std::string(16, '\0')}});
    fails(p, "truncated");
    makeZip(p, {{"a/data.pkl", ok.b}, {"a/data/0", std::string(16, '\0')}, {"a/byteorder", "little\n"}});
    EXPECT_TRUE(readTorchCheckpoint(p).ok());
    // A second archive (or any entry outside the one folder) is refused, not ignored.
    makeZip(p, {{"a/data.pkl", ok.b}, {"a/data/0", std::string(16, '\0')}, {"b/data.pkl", ok.b}, {"b/data/0", std::string(16, '\0')}});
    fails(p, "'b/data.pkl' outside the archive folder 'a'");
    makeZip(p, {{"a/data.pkl", ok.b}, {"a/data/0", std::string(16, '\0')}, {"stray.txt", "x"}});
    fails(p, "'stray.txt' outside the archive folder 'a'");
    // A storage entry larger than the pickle declares (here 64 MiB of zeros
    // deflated to ~64 KB for a 16-byte storage, a ratio under the deflate cap)
    // is refused before it is inflated.
    makeZip(p, {{"a/data.pkl", ok.b}, {"a/data/0", std::string(std::size_t(64) << 20, '\0')}}, true);
    ASSERT_LT(std::filesystem::file_size(p), std::uintmax_t(1) << 20);
    fails(p, "storage '0' is 67108864 bytes in the archive but the checkpoint declares 16 (refused before inflating)");

    // The fixture cut anywhere: an error naming the file, never a crash.
    TREELENS_REQUIRE_SHARED(kFixture + "/model.pth");
    fails(test::sharedPath(kFixture + "/state_dict_container.pt"), "a TorchScript module (torch.jit.save)");
    const std::string whole = slurp(test::sharedPath(kFixture + "/model.pth"));
    for (int k = 1; k < 32; ++k) {
        spit(p, whole.substr(0, whole.size() * static_cast<std::size_t>(k) / 32));
        auto r = readTorchCheckpoint(p);
        ASSERT_FALSE(r.ok()) << k;
        EXPECT_EQ(r.message().rfind(p + ": ", 0), 0u) << r.message();
    }
    // A flipped byte in a stored storage fails the CRC check.
    const auto entries = readZip(test::sharedPath(kFixture + "/model.pth"));
    const std::string storage0 = entries.at("model/data/0");
    const auto at = whole.find(storage0);
    ASSERT_NE(at, std::string::npos);
    std::string flipped = whole;
    flipped[at + storage0.size() / 2] = static_cast<char>(flipped[at + storage0.size() / 2] ^ 0x55);
    spit(p, flipped);
    fails(p, "");
}
