// Weights read by mapping the file (readSafetensors) against the copying reader
// (readSafetensorsBytes, the fuzzed one): the same bytes for every tensor, the same
// one-line errors for every truncation and corruption; parameters that share the
// mapping and outlive the TensorMap; BF16 and F16 widened bit for bit as
// TensorData::toFloat() and LibTorch's own conversions widen them; BF16 kept as BF16;
// and a Hugging Face folder stored in BF16 analysed exactly as its values stored as F32.
#include <torch/torch.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>

#include <sys/stat.h>

#include "core/base/fileio.h"
#include "core/base/mappedfile.h"
#include "core/encoders/common/torchtensors.h"
#include "core/encoders/encoder.h"
#include "core/formats/analysisjson.h"
#include "core/model/safetensors.h"
#include "bytefiles.h"
#include "testutil.h"

using namespace treelens;
using test::le64;
using test::slurp;
using test::spit;
namespace fs = std::filesystem;

namespace {

const char *kBert = "fixtures/hf-transformers-reference/bert-tiny-random";

std::string tempPath(const std::string &name) { return test::scratchPath("treelens-mapped-weights-tests", name); }




Result<SafetensorsFile> readCopied(const std::string &bytes, const std::string &where)
{
    return readSafetensorsBytes(reinterpret_cast<const std::uint8_t *>(bytes.data()), bytes.size(), where);
}

/// A tensor of 16-bit patterns (F16 or BF16) stored as they are.
TensorData bitPatterns(DType dtype, const std::vector<std::uint16_t> &patterns, std::vector<std::int64_t> shape)
{
    TensorData t;
    t.dtype = dtype;
    t.shape = std::move(shape);
    t.bytes.resize(patterns.size() * 2);
    std::memcpy(t.bytes.data(), patterns.data(), t.bytes.size());
    return t;
}

/// Every kind of tensor a file holds: the float dtypes with awkward values, an
/// integer one, a scalar and empty tensors.
TensorMap everyKind()
{
    TensorMap m;
    m["a.f32"] = TensorData::fromFloat({2, 3}, {1.0f, -2.5f, 0.0f, -0.0f, 3.0e-42f, 1.0e30f});
    m["b.f16"] = bitPatterns(DType::F16, {0x3c00, 0xc100, 0x0001, 0x7bff, 0x8000}, {5});
    m["c.bf16"] = bitPatterns(DType::BF16, {0x3f80, 0x4049, 0x0001}, {3, 1});
    TensorData i64;
    i64.dtype = DType::I64;
    i64.shape = {4};
    const std::int64_t ints[4] = {-1, 0, 1LL << 40, 7};
    i64.bytes.assign(reinterpret_cast<const std::uint8_t *>(ints), reinterpret_cast<const std::uint8_t *>(ints) + sizeof ints);
    m["d.i64"] = i64;
    m["e.scalar"] = TensorData::fromFloat({}, {42.0f});
    m["f.empty"] = TensorData::fromFloat({0, 4}, {});
    m["g.empty.bf16"] = bitPatterns(DType::BF16, {}, {0});
    return m;
}

bool sameBytes(const TensorData &a, const TensorData &b)
{
    return a.size() == b.size() && (a.size() == 0 || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

/// The byte patterns of two float tensors agree.
bool sameFloats(const torch::Tensor &x, const std::vector<float> &v)
{
    auto c = x.contiguous();
    return c.scalar_type() == torch::kFloat32 && static_cast<std::size_t>(c.numel()) == v.size() &&
           (v.empty() || std::memcmp(c.data_ptr<float>(), v.data(), v.size() * 4) == 0);
}

} // namespace

TEST(MappedWeights, EveryTensorHasTheBytesTheCopyingReaderGives)
{
    const std::string path = tempPath("every-kind.safetensors");
    ASSERT_TRUE(writeSafetensors(path, everyKind(), {{"k", "v"}}));
    auto mapped = readSafetensors(path);
    ASSERT_TRUE(mapped) << mapped.message();
    auto copied = readCopied(slurp(path), path);
    ASSERT_TRUE(copied) << copied.message();
    EXPECT_EQ(mapped->metadata, copied->metadata);
    ASSERT_EQ(mapped->tensors.size(), copied->tensors.size());
    std::shared_ptr<const MappedFile> file;
    for (const auto &[name, c] : copied->tensors) {
        const TensorData &m = mapped->tensors.at(name);
        EXPECT_EQ(m.dtype, c.dtype) << name;
        EXPECT_EQ(m.shape, c.shape) << name;
        EXPECT_TRUE(sameBytes(m, c)) << name;
        EXPECT_EQ(m.toFloat(), c.toFloat()) << name;
        // The mapped reader's tensors are views into one mapping of the file; the copying reader's own their bytes.
        ASSERT_NE(m.mapping(), nullptr) << name;
        EXPECT_TRUE(m.bytes.empty()) << name;
        EXPECT_TRUE(m.mapping()->contains(m.data(), m.size())) << name;
        EXPECT_EQ(c.mapping(), nullptr) << name;
        file = file ? file : m.mapping();
        EXPECT_EQ(m.mapping(), file) << name;
    }
    EXPECT_EQ(file->size(), fs::file_size(path));
    // A copy of a view shares the mapping and reads the same bytes after the file's TensorMap is gone.
    const TensorData kept = mapped->tensors.at("a.f32");
    const std::weak_ptr<const MappedFile> weak = file;
    file.reset();
    mapped = Error{"gone"};
    EXPECT_FALSE(weak.expired());
    EXPECT_TRUE(sameBytes(kept, copied->tensors.at("a.f32")));
    // The writer writes a view as it writes owned bytes.
    TensorMap again;
    again["a.f32"] = kept;
    auto bytes = safetensorsBytes(again, {});
    ASSERT_TRUE(bytes);
    auto back = readCopied(*bytes, "again");
    ASSERT_TRUE(back) << back.message();
    EXPECT_TRUE(sameBytes(back->tensors.at("a.f32"), kept));
}

TEST(MappedWeights, BadFilesAreRefusedWithTheCopyingReadersMessages)
{
    const std::string valid = *safetensorsBytes(everyKind(), {{"k", "v"}});
    std::vector<std::string> files;
    // Every truncation, and every byte of the file corrupted (the length field, the header, the data).
    for (std::size_t n = 0; n < valid.size(); ++n)
        files.push_back(valid.substr(0, n));
    for (std::size_t i = 0; i < valid.size(); ++i) {
        std::string bad = valid;
        bad[i] = static_cast<char>(bad[i] ^ (i % 2 ? 0x80 : 0x11));
        files.push_back(bad);
    }
    const std::string d8(8, '\0');
    for (const std::string &header : {std::string(R"({"a":{"dtype":"F99","shape":[2],"data_offsets":[0,8]}})"),
                                      std::string(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,16]}})"),
                                      std::string(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})"),
                                      std::string(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})")})
        files.push_back(le64(header.size()) + header + d8);
    files.push_back("the old man saw a red kite\n");
    files.push_back(std::string("PK\x03\x04", 4) + std::string(40, 'x'));
    const std::string path = tempPath("bad.safetensors");
    int refused = 0;
    for (std::size_t k = 0; k < files.size(); ++k) {
        spit(path, files[k]);
        auto mapped = readSafetensors(path);
        auto copied = readCopied(files[k], path);
        ASSERT_EQ(mapped.ok(), copied.ok()) << "file " << k << ": " << (mapped ? copied.message() : mapped.message());
        if (mapped) {
            for (const auto &[name, t] : copied->tensors)
                EXPECT_TRUE(sameBytes(mapped->tensors.at(name), t)) << "file " << k << " " << name;
            continue;
        }
        ++refused;
        EXPECT_EQ(mapped.message(), copied.message()) << "file " << k;
        EXPECT_EQ(mapped.message().find('\n'), std::string::npos) << mapped.message();
        EXPECT_EQ(mapped.message().rfind(path + ": ", 0), 0u) << mapped.message();
    }
    EXPECT_GT(refused, static_cast<int>(valid.size())); // every truncation at least
    // What cannot be read at all is said as reading the file says it.
    const std::string missing = tempPath("missing.safetensors");
    fs::remove(missing);
    const std::string dir = tempPath("a-folder.safetensors");
    fs::create_directories(dir);
    const std::string fifo = tempPath("fifo.safetensors");
    fs::remove(fifo);
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    for (const std::string &p : {missing, dir, fifo}) {
        auto r = readSafetensors(p);
        ASSERT_FALSE(r) << p;
        EXPECT_EQ(r.message(), readFile(p).message()) << p;
    }
    fs::remove(fifo);
}

TEST(MappedWeights, SharedParametersAliasTheMappingAndOutliveTheTensorMap)
{
    TensorMap m;
    m["w"] = TensorData::fromFloat({2, 3}, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f});
    m["b"] = TensorData::fromFloat({3}, {-1.0f, 0.5f, 0.25f});
    const std::string path = tempPath("shared.safetensors");
    ASSERT_TRUE(writeSafetensors(path, m, {}));
    const std::map<std::string, std::vector<std::int64_t>> shapes = {{"w", {2, 3}}, {"b", {3}}};
    const torch::Device cpu(torch::kCPU);
    for (const ParameterMemory memory : {ParameterMemory::SharedWithFile, ParameterMemory::Copied}) {
        std::weak_ptr<const MappedFile> weak;
        std::uintptr_t begin = 0, end = 0;
        TorchParameters p;
        {
            auto file = readSafetensors(path);
            ASSERT_TRUE(file) << file.message();
            weak = file->tensors.at("w").mapping();
            begin = reinterpret_cast<std::uintptr_t>(weak.lock()->data());
            end = begin + weak.lock()->size();
            auto made = parametersFromTensors(shapes, file->tensors, cpu, "t", "a test", true, memory);
            ASSERT_TRUE(made) << made.message();
            p = std::move(*made);
        }
        const bool shared = memory == ParameterMemory::SharedWithFile;
        for (const auto &[name, t] : p) {
            const auto at = reinterpret_cast<std::uintptr_t>(t.data_ptr());
            EXPECT_EQ(at >= begin && at < end, shared) << name;
            EXPECT_TRUE(sameFloats(t, m.at(name).toFloat())) << name;
        }
        // Shared parameters keep the mapping after the TensorMap is gone; copied ones need it no longer.
        EXPECT_EQ(!weak.expired(), shared);
        p.clear();
        EXPECT_TRUE(weak.expired());
    }
    // A tensor whose bytes are not 4-byte aligned in the file is copied (a U8 tensor of one byte first).
    const std::string header = R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"b":{"dtype":"F32","shape":[2],"data_offsets":[1,9]}})";
    std::string padded = header;
    while (padded.size() % 8)
        padded += ' ';
    const float values[2] = {1.5f, -3.0f};
    const std::string path2 = tempPath("misaligned.safetensors");
    spit(path2, le64(padded.size()) + padded + std::string(1, '\x07') + std::string(reinterpret_cast<const char *>(values), 8));
    auto file = readSafetensors(path2);
    ASSERT_TRUE(file) << file.message();
    auto p = parametersFromTensors({{"a", {1}}, {"b", {2}}}, file->tensors, cpu, "t", "a test", false, ParameterMemory::SharedWithFile);
    ASSERT_TRUE(p) << p.message();
    EXPECT_FALSE(file->tensors.at("b").mapping()->contains(p->at("b").data_ptr(), 8));
    EXPECT_TRUE(sameFloats(p->at("b"), {1.5f, -3.0f}));
    EXPECT_TRUE(sameFloats(p->at("a"), {7.0f}));
}

TEST(MappedWeights, HalfAndBfloatWidenBitForBitAsToFloatAndLibTorch)
{
    // All 65,536 patterns of each 16-bit float type: zeros, subnormals, normals, infinities, NaNs.
    std::vector<std::uint16_t> all(65536);
    for (std::size_t i = 0; i < all.size(); ++i)
        all[i] = static_cast<std::uint16_t>(i);
    TensorMap m;
    m["half"] = bitPatterns(DType::F16, all, {256, 256});
    m["bf16"] = bitPatterns(DType::BF16, all, {65536});
    const std::string path = tempPath("widen.safetensors");
    ASSERT_TRUE(writeSafetensors(path, m, {}));
    auto file = readSafetensors(path);
    ASSERT_TRUE(file) << file.message();
    for (const auto &[name, t] : file->tensors) {
        const std::vector<float> expected = m.at(name).toFloat();
        const torch::Tensor widened = floatTensorOf(t, torch::Device(torch::kCPU), ParameterMemory::SharedWithFile);
        ASSERT_TRUE(widened.defined()) << name;
        EXPECT_EQ(widened.sizes().vec(), t.shape) << name;
        EXPECT_TRUE(sameFloats(widened, expected)) << name << ": not toFloat()'s bits";
        EXPECT_FALSE(t.mapping()->contains(widened.data_ptr(), 4)) << name << " (a new tensor)";
        // After the widening gave the pages back, the view still reads the file's bytes.
        EXPECT_TRUE(sameBytes(t, m.at(name))) << name;
        // LibTorch's own conversion of the stored type (an independent implementation): the same
        // floats, NaN for NaN (its payload aside).
        const torch::Tensor theirs = storedTensor(t).to(torch::kFloat32).contiguous();
        const float *a = widened.data_ptr<float>(), *b = theirs.data_ptr<float>();
        int differ = 0;
        for (std::size_t i = 0; i < expected.size(); ++i)
            if (std::isnan(a[i]) ? !std::isnan(b[i]) : std::memcmp(a + i, b + i, 4) != 0)
                ++differ;
        EXPECT_EQ(differ, 0) << name;
    }
    // BF16 to F32 is the 16 bits moved up: exact for every pattern.
    const torch::Tensor bf = floatTensorOf(file->tensors.at("bf16"), torch::Device(torch::kCPU));
    for (std::size_t i = 0; i < all.size(); ++i) {
        std::uint32_t bits;
        std::memcpy(&bits, bf.data_ptr<float>() + i, 4);
        ASSERT_EQ(bits, static_cast<std::uint32_t>(all[i]) << 16) << i;
    }
}

TEST(MappedWeights, StoredTensorsKeepTheFileBitPatterns)
{
    TensorMap m;
    std::vector<std::uint16_t> patterns;
    for (int i = 0; i < 15; ++i)
        patterns.push_back(static_cast<std::uint16_t>(0x3f00 + 977 * i));
    m["bf16"] = bitPatterns(DType::BF16, patterns, {3, 5});
    m["half"] = bitPatterns(DType::F16, patterns, {15});
    m["single"] = TensorData::fromFloat({2}, {0.1f, -7.0f});
    const std::string path = tempPath("stored.safetensors");
    ASSERT_TRUE(writeSafetensors(path, m, {}));
    auto file = readSafetensors(path);
    ASSERT_TRUE(file) << file.message();
    const std::map<std::string, torch::ScalarType> types = {{"bf16", torch::kBFloat16}, {"half", torch::kFloat16}, {"single", torch::kFloat32}};
    for (const auto &[name, t] : file->tensors)
        for (const ParameterMemory memory : {ParameterMemory::Copied, ParameterMemory::SharedWithFile}) {
            const torch::Tensor s = storedTensor(t, memory);
            ASSERT_TRUE(s.defined()) << name;
            EXPECT_EQ(s.scalar_type(), types.at(name)) << name;
            EXPECT_EQ(s.sizes().vec(), t.shape) << name;
            ASSERT_EQ(static_cast<std::size_t>(s.numel() * s.element_size()), m.at(name).size()) << name;
            EXPECT_EQ(std::memcmp(s.data_ptr(), m.at(name).data(), m.at(name).size()), 0) << name << ": not the file's bits";
            EXPECT_EQ(t.mapping()->contains(s.data_ptr(), m.at(name).size()), memory == ParameterMemory::SharedWithFile) << name;
        }
}

namespace {

/// The bert reference folder copied to `name` with its weights as `store` gives them.
std::string bertFolderWith(const std::string &name, const std::function<TensorData(const TensorData &)> &store)
{
    const fs::path from = test::sharedPath(kBert), to = tempPath(name);
    fs::remove_all(to);
    fs::create_directories(to);
    for (const auto &e : fs::directory_iterator(from))
        if (e.path().filename() != "expected.json" && e.path().filename() != "model.safetensors")
            fs::copy_file(e.path(), to / e.path().filename());
    auto weights = readSafetensors((from / "model.safetensors").string());
    EXPECT_TRUE(weights) << weights.message();
    TensorMap stored;
    for (const auto &[n, t] : weights->tensors)
        stored[n] = store(t);
    EXPECT_TRUE(writeSafetensors((to / "model.safetensors").string(), stored, weights->metadata));
    return to.string();
}

/// Every sentence's analysis (attention included) as analyze --json writes it.
std::vector<std::string> analysesOf(const std::string &dir)
{
    auto enc = loadEncoder(dir);
    EXPECT_TRUE(enc) << enc.message();
    if (!enc)
        return {};
    std::vector<EncoderInput> batch(3);
    batch[0].words = {"The", "old", "man", "saw", "a", "red", "kite", "."};
    batch[1].words = {"Colorless", "green", "ideas", "sleep", "furiously"};
    batch[2].words = {"A", "tokenizer", "splits", "unbelievably", "long", "words", "into", "pieces", "."};
    auto r = (*enc)->analyze(batch);
    EXPECT_TRUE(r) << r.message();
    std::vector<std::string> out;
    if (r)
        for (const Analysis &a : *r)
            out.push_back(analysisToJson(a, true));
    return out;
}

/// Whether this process maps `path` now (/proc/self/maps names every mapped file).
bool isMapped(const std::string &path)
{
    std::ifstream maps("/proc/self/maps");
    const std::string canonical = fs::canonical(path).string();
    for (std::string line; std::getline(maps, line);)
        if (line.size() >= canonical.size() && line.compare(line.size() - canonical.size(), canonical.size(), canonical) == 0)
            return true;
    return false;
}

} // namespace

TEST(MappedWeights, AHalfPrecisionFolderAnalysesAsItsValuesStoredAsF32)
{
    TREELENS_REQUIRE_SHARED(kBert);
    const auto asF32 = [](DType d) {
        return [d](const TensorData &t) { return TensorData::fromFloat(t.shape, t.convertedTo(d).toFloat()); };
    };
    const std::vector<std::string> original = analysesOf(test::sharedPath(kBert));
    for (const DType d : {DType::BF16, DType::F16}) {
        const std::string name = dtypeName(d);
        const std::string narrow = bertFolderWith("bert-" + name, [d](const TensorData &t) { return t.convertedTo(d); });
        const std::string wide = bertFolderWith("bert-" + name + "-as-f32", asF32(d));
        const std::vector<std::string> a = analysesOf(narrow), b = analysesOf(wide);
        ASSERT_EQ(a.size(), 3u) << name;
        EXPECT_EQ(a, b) << name << ": stored narrow and stored as F32, the same values analyse differently";
        EXPECT_NE(a, original) << name << ": the rounding changed nothing (the test would prove nothing)";
    }
    // While an encoder lives, its F32 weights are the mapped file (no copy); BF16 weights were widened
    // into their own memory, and their file is unmapped once loaded.
    const std::string f32 = bertFolderWith("bert-F32", [](const TensorData &t) { return t; });
    const std::string bf16 = tempPath("bert-BF16");
    {
        auto wide = loadEncoder(f32);
        ASSERT_TRUE(wide) << wide.message();
        auto narrow = loadEncoder(bf16);
        ASSERT_TRUE(narrow) << narrow.message();
        EXPECT_TRUE(isMapped(f32 + "/model.safetensors"));
        EXPECT_FALSE(isMapped(bf16 + "/model.safetensors"));
    }
    EXPECT_FALSE(isMapped(f32 + "/model.safetensors"));
}
