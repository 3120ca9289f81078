// Model files: safetensors container validation, TreeLens model files, the
// restricted unpickler and PyTorch checkpoint import. Imported tensors are
// checked bit for bit against LibTorch's own pickle reader (an independent
// implementation) on the plain-dict fixture files.
#include <torch/torch.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <zip.h>

#include "core/base/fileio.h"
#include "core/encoders/encoder.h"
#include "core/encoders/common/vocabulary.h"
#include "core/model/checkpoint.h"
#include "core/model/modelfile.h"
#include "core/model/pickle.h"
#include "core/model/safetensors.h"
#include "bytefiles.h"
#include "testutil.h"

using namespace treelens;
using test::le64;
using test::slurp;
using test::spit;

namespace {

const std::string kFixture = "fixtures/tree-transformer-official";

std::string tempPath(const std::string &name) { return test::scratchPath("treelens-modelfile-tests", name); }




Result<SafetensorsFile> readBytes(const std::string &b)
{
    return readSafetensorsBytes(reinterpret_cast<const std::uint8_t *>(b.data()), b.size(), "t.safetensors");
}

std::string file(const std::string &header, const std::string &data)
{
    return le64(header.size()) + header + data;
}

} // namespace

// ---------------------------------------------------------------- safetensors

TEST(Safetensors, HandBuiltFileReadsAndWritesByteForByte)
{
    const float v[2] = {1.0f, -2.5f};
    std::string data(reinterpret_cast<const char *>(v), 8);
    // The writer: sorted keys, header padded with spaces to a multiple of 8.
    const std::string header = R"({"__metadata__":{"k":"v"},"a":{"data_offsets":[0,8],"dtype":"F32","shape":[2]}})";
    std::string padded = header;
    while (padded.size() % 8)
        padded += ' ';
    const std::string expected = file(padded, data);
    TensorMap m;
    m["a"] = TensorData::fromFloat({2}, {1.0f, -2.5f});
    auto bytes = safetensorsBytes(m, {{"k", "v"}});
    ASSERT_TRUE(bytes.ok());
    EXPECT_EQ(*bytes, expected);
    auto back = readBytes(expected);
    ASSERT_TRUE(back.ok()) << back.message();
    EXPECT_EQ(back->metadata.at("k"), "v");
    EXPECT_EQ(back->tensors.at("a").toFloat(), (std::vector<float>{1.0f, -2.5f}));
}

TEST(Safetensors, HalfAndBfloatConversionsAreExact)
{
    // Hand-computed IEEE bit patterns.
    EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
    EXPECT_EQ(floatToHalf(-2.5f), 0xc100);
    EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
    EXPECT_EQ(floatToHalf(65520.0f), 0x7c00);             // rounds to Inf
    EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001); // smallest subnormal
    EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000); // halfway to 0: ties to even
    EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -25)), 0x0002); // 1.5 steps: ties to even (2)
    EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00); // halfway: even
    EXPECT_EQ(floatToHalf(1.0f + std::ldexp(3.0f, -11)), 0x3c02);
    EXPECT_EQ(floatToHalf(INFINITY), 0x7c00);
    EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
    EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
    EXPECT_EQ(halfToFloat(0x3555), 0.333251953125f);
    EXPECT_EQ(floatToBf16(1.0f), 0x3f80);
    EXPECT_EQ(floatToBf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80); // tie to even
    EXPECT_EQ(bf16ToFloat(0x4049), 3.140625f);
    for (float x : {0.1f, -3.75f, 1234.5f, 1e-6f}) {
        EXPECT_NEAR(halfToFloat(floatToHalf(x)), x, std::fabs(x) * 1e-3 + 1e-7);
        EXPECT_NEAR(bf16ToFloat(floatToBf16(x)), x, std::fabs(x) * 4e-3);
    }
    TensorMap m;
    m["w"] = TensorData::fromFloat({2, 2}, {0.5f, -1.0f, 2.0f, 3.0f}).convertedTo(DType::F16);
    m["b"] = TensorData::fromFloat({1}, {1.5f}).convertedTo(DType::BF16);
    const std::string path = tempPath("half.safetensors");
    ASSERT_TRUE(writeSafetensors(path, m, {}).ok());
    auto back = readSafetensors(path);
    ASSERT_TRUE(back.ok()) << back.message();
    EXPECT_EQ(back->tensors.at("w").dtype, DType::F16);
    EXPECT_EQ(back->tensors.at("w").toFloat(), (std::vector<float>{0.5f, -1.0f, 2.0f, 3.0f}));
    EXPECT_EQ(back->tensors.at("b").toFloat(), (std::vector<float>{1.5f}));
}

TEST(Safetensors, RejectsEveryKindOfBadFile)
{
    const std::string d8(8, '\0');
    struct Case {
        std::string bytes, expect;
    };
    const std::vector<Case> cases = {
        {"abc", "too short"},
        // A text file or a PyTorch checkpoint given as a model: said, not read as a header length.
        {"the old man saw a red kite\n", "not a safetensors file: it starts with text"},
        {std::string("PK\x03\x04", 4) + std::string(40, 'x'), "a zip archive (a PyTorch checkpoint?"},
        {le64(1000) + "{}", "header claims 1000 bytes"},
        {le64(200ull * 1024 * 1024) + "{}", "exceeds the 100 MB limit"},
        {file("{not json", ""), "not valid JSON"},
        {file("[1,2]", ""), "not a JSON object"},
        {file(R"({"a":{"dtype":"F99","shape":[2],"data_offsets":[0,8]}})", d8), "unknown dtype 'F99'"},
        {file(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", d8), "needs 12"},
        {file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,16]}})", d8), "truncated"},
        {file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", d8), "end before"},
        {file(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", d8), "non-negative"},
        {file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[2,6]}})", d8), "overlaps"},
        {file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", d8), "belong to no tensor"},
        {file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", d8), "trailing bytes"},
        {file(R"({"__metadata__":{"k":1}})", ""), "not a string"},
        {file(R"({"a":{"dtype":"F32","shape":[2]}})", d8), "needs dtype, shape and data_offsets"},
        // Found by fuzzing: an empty name read but could not be written back.
        {file(R"({"":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", d8), "empty name"},
        {file(std::string(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})") + '\0', d8), "NUL byte"},
    };
    for (const auto &c : cases) {
        auto r = readBytes(c.bytes);
        ASSERT_FALSE(r.ok()) << c.expect;
        EXPECT_NE(r.message().find(c.expect), std::string::npos) << r.message();
        EXPECT_EQ(r.message().rfind("t.safetensors", 0), 0u) << r.message();
    }
}

// ---------------------------------------------------------------- model files

TEST(ModelFile, SingleFileAndDirectoryFormsAndTheirErrors)
{
    ModelFile m;
    m.configJson = R"({"family":"tree-transformer"})";
    m.vocab = {"[PAD]", "[UNK]", "a"};
    m.tensors["w"] = TensorData::fromFloat({1, 2}, {0.25f, 4.0f});
    const std::string path = tempPath("m.safetensors");
    ASSERT_TRUE(saveModelFile(path, m, DType::F16).ok());
    auto back = loadModelFile(path);
    ASSERT_TRUE(back.ok()) << back.message();
    EXPECT_EQ(back->vocab, m.vocab);
    EXPECT_EQ(back->tensors.at("w").dtype, DType::F16);
    EXPECT_EQ(back->tensors.at("w").toFloat(), (std::vector<float>{0.25f, 4.0f}));

    // Directory form.
    const std::string dir = tempPath("modeldir");
    std::filesystem::create_directories(dir);
    ASSERT_TRUE(writeSafetensors(dir + "/model.safetensors", m.tensors, {}).ok());
    spit(dir + "/config.json", m.configJson);
    spit(dir + "/vocab.txt", "[PAD]\n[UNK]\na\n");
    auto fromDir = loadModelFile(dir);
    ASSERT_TRUE(fromDir.ok()) << fromDir.message();
    EXPECT_EQ(fromDir->vocab.size(), 3u);
    std::filesystem::remove(dir + "/vocab.txt");
    auto noVocab = loadModelFile(dir);
    ASSERT_FALSE(noVocab.ok());
    EXPECT_NE(noVocab.message().find("vocab.txt is missing"), std::string::npos);

    // NaN weights are refused, naming the tensor.
    ModelFile bad = m;
    bad.tensors["w"] = TensorData::fromFloat({1, 2}, {NAN, 1.0f});
    const std::string nanPath = tempPath("nan.safetensors");
    ASSERT_TRUE(writeSafetensors(nanPath, bad.tensors, {{"treelens.config", m.configJson}, {"treelens.vocab", "a\nb\n"}}).ok());
    auto nan = loadModelFile(nanPath);
    ASSERT_FALSE(nan.ok());
    EXPECT_NE(nan.message().find("'w' contains NaN"), std::string::npos) << nan.message();
    // Empty vocabulary, missing config, unknown family.
    ASSERT_TRUE(writeSafetensors(nanPath, m.tensors, {{"treelens.config", m.configJson}, {"treelens.vocab", ""}}).ok());
    EXPECT_NE(loadModelFile(nanPath).message().find("vocabulary is empty"), std::string::npos);
    ASSERT_TRUE(writeSafetensors(nanPath, m.tensors, {}).ok());
    EXPECT_NE(loadModelFile(nanPath).message().find("no treelens.config"), std::string::npos);
    ASSERT_TRUE(writeSafetensors(nanPath, m.tensors, {{"treelens.config", R"({"family":"gpt"})"}, {"treelens.vocab", "a\n"}}).ok());
    auto unknown = loadEncoder(nanPath);
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.message().find("unknown model family 'gpt'"), std::string::npos);
    // A truncated file.
    const std::string whole = slurp(path);
    spit(nanPath, whole.substr(0, whole.size() - 3));
    EXPECT_NE(loadModelFile(nanPath).message().find("truncated"), std::string::npos);
}

// ---------------------------------------------------------------- unpickler

namespace {
Result<PickleDocument> unpickleString(const std::string &s)
{
    StorageResolver none = [](const std::string &key, std::uint64_t) -> Result<std::shared_ptr<const std::vector<std::uint8_t>>> {
        return makeError("test", "no storage " + key);
    };
    return unpickle(reinterpret_cast<const std::uint8_t *>(s.data()), s.size(), none, "evil.pkl");
}
} // namespace

TEST(Unpickler, RejectsCodeExecutionGlobalsWithoutRunningThem)
{
    const std::string marker = tempPath("pwned");
    std::filesystem::remove(marker);
    const std::string cmd = "touch " + marker;
    auto str = [](const std::string &s) {
        const std::uint32_t n = static_cast<std::uint32_t>(s.size());
        return std::string("X") + std::string(reinterpret_cast<const char *>(&n), 4) + s;
    };
    const std::vector<std::pair<std::string, std::string>> evil = {
        {"os.system", "\x80\x02" "cos\nsystem\n" + str(cmd) + "\x85R."},
        {"posix.system", "\x80\x02" "cposix\nsystem\n" + str(cmd) + "\x85R."},
        {"builtins.eval", "\x80\x02" "cbuiltins\neval\n" + str("__import__('os').system('" + cmd + "')") + "\x85R."},
        {"subprocess.Popen", "\x80\x02" "csubprocess\nPopen\n" + str(cmd) + "\x85R."},
        {"os.system", std::string("\x80\x04\x8c\x02os\x8c\x06system\x93", 15) + str(cmd) + "\x85R."},
    };
    for (const auto &[global, bytes] : evil) {
        auto r = unpickleString(bytes);
        ASSERT_FALSE(r.ok()) << global;
        EXPECT_NE(r.message().find("'" + global + "'"), std::string::npos) << r.message();
        EXPECT_EQ(r.message().rfind("evil.pkl", 0), 0u);
    }
    EXPECT_FALSE(std::filesystem::exists(marker));
    // Plain containers are fine.
    auto ok = unpickleString(std::string("\x80\x02}q\x00(X\x01\x00\x00\x00" "aK\x05u.", 17));
    ASSERT_TRUE(ok.ok()) << ok.message();
    EXPECT_EQ(ok->root->dict.size(), 1u);
    EXPECT_EQ(ok->root->dict[0].second->i, 5);
    // Malformed: truncated, stack underflow, unknown opcode.
    EXPECT_FALSE(unpickleString("\x80\x02}q").ok());
    EXPECT_FALSE(unpickleString("\x80\x02s.").ok());
    EXPECT_NE(unpickleString("\x80\x02\xff.").message().find("unsupported pickle opcode 0xff"), std::string::npos);
    // A list containing itself does not leak or loop.
    EXPECT_TRUE(unpickleString(std::string("\x80\x02]q\x00h\x00" "a.", 9)).ok());
}

// ---------------------------------------------------------------- checkpoints

TEST(Checkpoint, FixtureCheckpointsMatchLibTorchsOwnReaderBitForBit)
{
    TREELENS_REQUIRE_SHARED(kFixture + "/state_dict_plain.pt");
    const std::string plain = slurp(test::sharedPath(kFixture + "/state_dict_plain.pt"));
    auto ref = torch::pickle_load(std::vector<char>(plain.begin(), plain.end())).toGenericDict();
    for (const char *name : {"model.pth", "state_dict.pt", "model_plain.pth", "state_dict_plain.pt"}) {
        std::string note;
        auto m = readTorchCheckpoint(test::sharedPath(kFixture + "/" + name), &note);
        ASSERT_TRUE(m.ok()) << name << ": " << m.message();
        EXPECT_EQ(m->size(), ref.size()) << name;
        for (const auto &e : ref) {
            const auto key = e.key().toStringRef();
            ASSERT_TRUE(m->count(key)) << name << " lacks " << key;
            const auto &t = m->at(key);
            auto want = e.value().toTensor().contiguous();
            ASSERT_EQ(t.shape, std::vector<std::int64_t>(want.sizes().begin(), want.sizes().end())) << key;
            ASSERT_EQ(t.size(), static_cast<std::size_t>(want.numel() * want.element_size()));
            EXPECT_EQ(std::memcmp(t.data(), want.data_ptr(), t.size()), 0) << name << " " << key;
        }
        if (std::string(name) == "model.pth") {
            EXPECT_NE(note.find("'state_dict'"), std::string::npos) << note;
        }
    }
    // tensors.pt holds int64 and float tensors in a plain dict.
    const std::string tbytes = slurp(test::sharedPath(kFixture + "/tensors.pt"));
    auto tref = torch::pickle_load(std::vector<char>(tbytes.begin(), tbytes.end())).toGenericDict();
    auto tm = readTorchCheckpoint(test::sharedPath(kFixture + "/tensors.pt"));
    ASSERT_TRUE(tm.ok()) << tm.message();
    for (const auto &e : tref) {
        if (!e.value().isTensor())
            continue;
        const auto key = e.key().toStringRef();
        ASSERT_TRUE(tm->count(key)) << key;
        auto want = e.value().toTensor().contiguous();
        EXPECT_EQ(std::memcmp(tm->at(key).data(), want.data_ptr(), tm->at(key).size()), 0) << key;
    }
}

TEST(Checkpoint, ConvertedModelReproducesTheFixtureOutputs)
{
    TREELENS_REQUIRE_SHARED(kFixture + "/model.pth");
    auto tensors = readTorchCheckpoint(test::sharedPath(kFixture + "/model.pth"));
    ASSERT_TRUE(tensors.ok()) << tensors.message();
    auto vocab = Vocabulary::fromDictionaryJson(slurp(test::sharedPath(kFixture + "/dictionary.json")), "dictionary.json");
    ASSERT_TRUE(vocab.ok());
    ModelFile mf;
    mf.configJson = R"({"family":"tree-transformer","model":{"layers":4,"d_model":32,"heads":4,"d_ff":64,"vocab_size":50}})";
    mf.vocab = vocab->tokens();
    mf.tensors = std::move(*tensors);
    const std::string path = tempPath("fixture.safetensors");
    ASSERT_TRUE(saveModelFile(path, mf).ok());
    auto enc = loadEncoder(path, DeviceConfig{"cpu", 0, 8});
    ASSERT_TRUE(enc.ok()) << enc.message();
    const auto summary = nlohmann::json::parse(slurp(test::sharedPath(kFixture + "/summary.json")));
    const std::string tb = slurp(test::sharedPath(kFixture + "/tensors.pt"));
    auto expected = torch::pickle_load(std::vector<char>(tb.begin(), tb.end())).toGenericDict();
    const auto breakProb = expected.at("break_prob").toTensor(); // [2,4,8,8]
    const auto groupProb = expected.at("group_prob").toTensor();
    const auto attn = expected.at("attn").toTensor();            // [2,4,4,8,8]
    for (std::size_t s = 0; s < 2; ++s) {
        const auto &sent = summary["sentences"][s];
        auto res = (*enc)->analyze({EncoderInput{sent["words"].get<std::vector<std::string>>(), {}, {}, {}, {}, {}}});
        ASSERT_TRUE(res.ok()) << res.message();
        const auto &a = res->front();
        const int n = static_cast<int>(a.tokens.size());
        for (int l = 0; l < 4; ++l) {
            for (int k = 0; k + 1 < n; ++k)
                EXPECT_NEAR(a.linkProbs[l][k], breakProb[s][l][k][k + 1].item<float>(), 1e-5);
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j) {
                    EXPECT_NEAR(a.constituentPrior[l].at(i, j), groupProb[s][l][i][j].item<float>(), 1e-5);
                    EXPECT_NEAR(a.attention[l][2].at(i, j), attn[s][l][2][i][j].item<float>(), 1e-5);
                }
        }
        std::vector<std::pair<int, int>> want;
        for (const auto &b : sent["brackets"])
            want.push_back({b[0], b[1]});
        std::sort(want.begin(), want.end());
        EXPECT_EQ(a.inducedBrackets, want);
    }
    // bf16 projections stay close to fp32 (the tolerance is what docs/performance.md states).
    DeviceConfig bf;
    bf.device = "cpu";
    bf.precision = "bf16";
    auto encBf = loadEncoder(path, bf);
    ASSERT_TRUE(encBf.ok()) << encBf.message();
    {
        const auto words = summary["sentences"][0]["words"].get<std::vector<std::string>>();
        auto a32 = (*enc)->analyze({EncoderInput{words, {}, {}, {}, {}, {}}});
        auto a16 = (*encBf)->analyze({EncoderInput{words, {}, {}, {}, {}, {}}});
        ASSERT_TRUE(a32.ok() && a16.ok());
        double worst = 0;
        for (std::size_t l = 0; l < a32->front().linkProbs.size(); ++l)
            for (std::size_t k = 0; k < a32->front().linkProbs[l].size(); ++k)
                worst = std::max(worst, static_cast<double>(std::fabs(a32->front().linkProbs[l][k] - a16->front().linkProbs[l][k])));
        EXPECT_LT(worst, 0.05);
        EXPECT_GT(worst, 0.0); // it really ran in bf16
    }
    // Longer than the position table (256 tokens with [CLS]): a clear error, no crash.
    auto tooLong = (*enc)->analyze({EncoderInput{std::vector<std::string>(300, "the"), {}, {}, {}, {}, {}}});
    ASSERT_FALSE(tooLong.ok());
    EXPECT_NE(tooLong.message().find("at most 255"), std::string::npos) << tooLong.message();
    EXPECT_FALSE((*enc)->analyze({EncoderInput{{}, {}, {}, {}, {}, {}}}).ok());
    // Wrong shapes: a truncated embedding is refused naming the tensor.
    ModelFile broken = mf;
    broken.tensors = std::move(*readTorchCheckpoint(test::sharedPath(kFixture + "/model.pth")));
    broken.tensors["layers.1.feed_forward.w_1.weight"] = TensorData::fromFloat({3, 4}, std::vector<float>(12, 0.0f));
    const std::string brokenPath = tempPath("broken.safetensors");
    ASSERT_TRUE(saveModelFile(brokenPath, broken).ok());
    auto bad = loadEncoder(brokenPath);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.message().find("'layers.1.feed_forward.w_1.weight' has shape [3, 4], expected [64, 32]"), std::string::npos)
        << bad.message();
}

TEST(Checkpoint, BadArchivesGiveClearErrors)
{
    TREELENS_REQUIRE_SHARED(kFixture + "/model.pth");
    const std::string whole = slurp(test::sharedPath(kFixture + "/model.pth"));
    const std::string cut = tempPath("cut.pth");
    spit(cut, whole.substr(0, whole.size() / 2));
    auto r = readTorchCheckpoint(cut);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.message().rfind(cut, 0), 0u) << r.message();

    // Build archives by hand with libzip: a malicious data.pkl, a missing storage.
    auto makeZip = [&](const std::string &path, const std::vector<std::pair<std::string, std::string>> &entries) {
        std::filesystem::remove(path);
        int err = 0;
        zip_t *z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
        ASSERT_NE(z, nullptr);
        for (const auto &[name, data] : entries) {
            char *copy = static_cast<char *>(malloc(data.size() + 1));
            std::memcpy(copy, data.data(), data.size());
            zip_source_t *src = zip_source_buffer(z, copy, data.size(), 1);
            ASSERT_GE(zip_file_add(z, name.c_str(), src, ZIP_FL_OVERWRITE), 0);
        }
        ASSERT_EQ(zip_close(z), 0);
    };
    const std::string marker = tempPath("pwned-zip");
    std::filesystem::remove(marker);
    const std::string cmd = "touch " + marker;
    std::string evil = "\x80\x02" "cos\nsystem\nX";
    const std::uint32_t len = static_cast<std::uint32_t>(cmd.size());
    evil += std::string(reinterpret_cast<const char *>(&len), 4) + cmd + "\x85R.";
    const std::string evilZip = tempPath("evil.pth");
    makeZip(evilZip, {{"archive/data.pkl", evil}, {"archive/version", "3\n"}});
    auto e = readTorchCheckpoint(evilZip);
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.message().find("'os.system'"), std::string::npos) << e.message();
    EXPECT_FALSE(std::filesystem::exists(marker));

    // data.pkl of the fixture with its storages removed.
    int zerr = 0;
    zip_t *fz = zip_open(test::sharedPath(kFixture + "/model.pth").c_str(), ZIP_RDONLY, &zerr);
    ASSERT_NE(fz, nullptr);
    zip_stat_t st;
    ASSERT_EQ(zip_stat(fz, "model/data.pkl", 0, &st), 0);
    std::string pkl(st.size, '\0');
    zip_file_t *f = zip_fopen(fz, "model/data.pkl", 0);
    ASSERT_EQ(zip_fread(f, pkl.data(), pkl.size()), static_cast<zip_int64_t>(pkl.size()));
    zip_fclose(f);
    zip_discard(fz);
    const std::string noStorage = tempPath("nostorage.pth");
    makeZip(noStorage, {{"model/data.pkl", pkl}});
    auto ns = readTorchCheckpoint(noStorage);
    ASSERT_FALSE(ns.ok());
    EXPECT_NE(ns.message().find("storage '0' is missing"), std::string::npos) << ns.message();
    // A storage too small for its tensor.
    makeZip(noStorage, {{"model/data.pkl", pkl}, {"model/data/0", std::string(16, '\0')}});
    auto small = readTorchCheckpoint(noStorage);
    ASSERT_FALSE(small.ok());
    EXPECT_NE(small.message().find("storage '0'"), std::string::npos) << small.message();
    // A truncated data.pkl.
    makeZip(noStorage, {{"model/data.pkl", pkl.substr(0, pkl.size() / 3)}});
    EXPECT_FALSE(readTorchCheckpoint(noStorage).ok());
    // Not a zip at all.
    spit(noStorage, "hello");
    EXPECT_NE(readTorchCheckpoint(noStorage).message().find("not a PyTorch zip checkpoint"), std::string::npos);
}
