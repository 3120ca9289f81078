#include "core/encoders/encoder.h"

#include <cctype>
#include <exception>
#include <filesystem>
#include <new>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/encoders/family.h"
#include "core/model/modelfile.h"

#ifndef TREELENS_SOURCE_DIR_STR
#define TREELENS_SOURCE_DIR_STR ""
#endif
#ifndef TREELENS_INSTALL_DATADIR
#define TREELENS_INSTALL_DATADIR "/usr/share/treelens"
#endif

namespace treelens {

std::string fp32OnlyNote(const std::string &requested)
{
    if (requested == "fp32" || requested.empty())
        return {};
    return "--precision " + requested + " not applied: this model family runs in fp32 (bf16, int8 and auto apply to "
                                        "the Tree Transformer; bf16 and auto to pretrained Transformers)";
}

std::vector<std::string> availableEncoderFamilies()
{
    std::vector<std::string> out;
    for (const auto &f : encoderFamilies())
        if (f.create)
            out.push_back(f.name);
    return out;
}

Result<std::vector<Attribution>> Encoder::explain(const std::vector<EncoderInput> &, const ExplainOptions &options,
                                                  const RunControl *)
{
    const EncoderInfo &i = info();
    const std::string name = i.name.empty() ? "this " + i.family + " model" : i.name;
    if (!i.outputs.prediction)
        return Error{name + " makes no prediction to explain (" + std::string(methodName(options.method)) +
                     " attributes a classifier's or a pair scorer's output)"};
    return Error{name + ": " + methodName(options.method) + " attributions are not available for the " + i.family +
                 " family yet (attention rollout is: --method rollout)"};
}

const char *methodName(ExplainOptions::Method method)
{
    switch (method) {
    case ExplainOptions::Method::IntegratedGradients: return "ig";
    case ExplainOptions::Method::GradientInput: return "grad-input";
    case ExplainOptions::Method::Rollout: return "rollout";
    }
    return "";
}

std::string singleSentenceRefusal(const EncoderInfo &info)
{
    if (!info.pairInput)
        return {};
    const std::string name = info.name.empty() ? "this " + info.family + " model" : info.name;
    return name + " is a sentence-pair model (" + info.task + "): it reads two sentences together; give it pairs "
                  "(treelens-cli analyze --pairs PAIRS, score-pairs, eval-pairs, or the pair workbench)";
}

void keepDeclaredOutputs(Analysis &a, const EncoderOutputs &o)
{
    if (!o.attention) {
        a.attention.clear();
        a.pieceAttention.clear();
    }
    if (!o.attentionRaw)
        a.attentionRaw.clear();
    if (!o.constituentPrior)
        a.constituentPrior.clear();
    if (!o.linkProbs)
        a.linkProbs.clear();
    if (!o.inducedTree) {
        a.inducedBrackets.clear();
        a.inducedTree.reset();
        a.induction.reset();
        a.withoutPunctuation.reset();
    }
    if (!o.gates)
        a.gates.clear();
    if (!o.nodeAttention)
        a.nodeAttention.clear();
    if (!o.prediction)
        a.prediction.reset();
    if (!o.crossAttention)
        a.crossAttention.clear();
}

namespace {

/// The boundary of core for every loaded encoder: whatever a family's computation throws
/// (LibTorch's c10::Error, std::bad_alloc) comes back as an Error, never as an exception.
class GuardedEncoder : public Encoder {
public:
    explicit GuardedEncoder(std::unique_ptr<Encoder> inner) : m_inner(std::move(inner)) {}
    const EncoderInfo &info() const override { return m_inner->info(); }
    Result<std::vector<Analysis>> analyze(const std::vector<EncoderInput> &batch, const AnalyzeOptions &options,
                                          const RunControl *control) override
    {
        return guarded<std::vector<Analysis>>("analyze", batch.size(), [&] { return m_inner->analyze(batch, options, control); });
    }
    Result<std::vector<std::vector<float>>> embed(const std::vector<EncoderInput> &batch, const EmbedOptions &options,
                                                  const RunControl *control) override
    {
        return guarded<std::vector<std::vector<float>>>("embed", batch.size(), [&] { return m_inner->embed(batch, options, control); });
    }
    Result<std::vector<std::vector<Matrix>>> layerStates(const std::vector<EncoderInput> &batch, const RunControl *control) override
    {
        return guarded<std::vector<std::vector<Matrix>>>("layer states", batch.size(),
                                                         [&] { return m_inner->layerStates(batch, control); });
    }
    Result<std::vector<Attribution>> explain(const std::vector<EncoderInput> &batch, const ExplainOptions &options,
                                             const RunControl *control) override
    {
        return guarded<std::vector<Attribution>>("explain", batch.size(), [&] { return m_inner->explain(batch, options, control); });
    }

private:
    template <class T, class Fn>
    Result<T> guarded(const char *what, std::size_t inputs, Fn fn)
    {
        try {
            return fn();
        } catch (const std::bad_alloc &) {
            return internalModelError(m_inner->info(), what, batchInputsText(0, inputs), "out of memory");
        } catch (const std::exception &e) {
            return internalModelError(m_inner->info(), what, batchInputsText(0, inputs), exceptionText(e.what()));
        }
    }

    std::unique_ptr<Encoder> m_inner;
};

Result<std::unique_ptr<Encoder>> guardedEncoder(Result<std::unique_ptr<Encoder>> encoder)
{
    if (!encoder)
        return encoder;
    return std::unique_ptr<Encoder>(new GuardedEncoder(std::move(*encoder)));
}

} // namespace

std::string batchInputsText(std::size_t start, std::size_t end, const std::vector<std::size_t> *order)
{
    auto number = [&](std::size_t k) { return std::to_string((order && k < order->size() ? (*order)[k] : k) + 1); };
    if (end <= start + 1)
        return "sentence " + number(start);
    if (!order)
        return "sentences " + number(start) + "-" + number(end - 1);
    std::string list;
    for (std::size_t k = start; k < end && k < start + 6; ++k)
        list += (list.empty() ? "" : ", ") + number(k);
    return "sentences " + list + (end - start > 6 ? ", ..." : "") + " (one batch)";
}

std::string exceptionText(const char *what)
{
    std::string text = what ? what : "";
    // LibTorch appends a backtrace ("Exception raised from ... frame #0 ..."): the first line says it.
    if (const auto nl = text.find('\n'); nl != std::string::npos)
        text.resize(nl);
    if (text.size() > 300)
        text = text.substr(0, 297) + "...";
    return text.empty() ? std::string("an exception without a message") : text;
}

Error internalModelError(const EncoderInfo &info, const char *what, const std::string &inputs, const std::string &message)
{
    const std::string model = info.name.empty() ? info.family : info.name;
    return Error{model + ", " + what + ", " + inputs + ": the computation failed (" + message + ")", ErrorCode::Internal};
}

Result<std::unique_ptr<Encoder>> loadEncoder(const std::string &path, const DeviceConfig &device)
{
    if (auto s = device.validate(); !s)
        return s.error();
    // A folder of another library's layout (a Hugging Face model) is opened by the family that reads it.
    for (const EncoderFamily &f : encoderFamilies())
        if (f.readFolder && f.create)
            if (auto folder = f.readFolder(path)) {
                if (!*folder)
                    return folder->error();
                return guardedEncoder(f.create(**folder, device));
            }
    auto file = loadModelFile(path);
    if (!file)
        return file.error();
    auto family = modelFamilyOf(*file);
    if (!family)
        return makeError(path, family.error());
    if (const EncoderFamily *f = findEncoderFamily(*family); f && f->create)
        return guardedEncoder(f->create(*file, device));
    std::string known;
    for (const auto &f : availableEncoderFamilies())
        known += (known.empty() ? "" : ", ") + f;
    // The shipped parsers are model files too, and sit beside the encoders.
    if (*family == "dependency-parser" || *family == "constituency-parser")
        return makeError(path, "a " + family->substr(0, family->find('-')) + " parser model, not an encoder: TreeLens parses "
                               "with it (treelens-cli parse --parser neural; in the app, the Parser choice of the controls), and --model "
                               "takes an encoder (" + known + ")");
    if (findEncoderFamily(*family))
        return makeError(path, "the " + *family + " family can be imported and verified against its fixture, but this "
                                                  "build cannot run it yet (this build runs: " + known + ")");
    return makeError(path, "unknown model family '" + *family + "' (this build loads: " + known + ")");
}

std::string defaultModelPath() { return findShippedModel("tree-transformer-en-small.safetensors"); }

std::string findShippedModel(const std::string &name)
{
    namespace fs = std::filesystem;
    std::vector<fs::path> candidates;
    if (const char *env = std::getenv("TREELENS_MODEL_DIR"))
        candidates.push_back(fs::path(env) / name);
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path dir = exe.parent_path();
        candidates.push_back(dir / "../share/treelens/models" / name);
        candidates.push_back(dir / "models" / name);
    }
    candidates.push_back(fs::path(TREELENS_INSTALL_DATADIR) / "models" / name);
    if (*TREELENS_SOURCE_DIR_STR)
        candidates.push_back(fs::path(TREELENS_SOURCE_DIR_STR) / "resources/models" / name);
    for (const auto &c : candidates)
        if (fs::is_regular_file(c, ec))
            return fs::weakly_canonical(c, ec).string();
    return {};
}

} // namespace treelens
