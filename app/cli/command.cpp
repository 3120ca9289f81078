#include "app/cli/command.h"

#include <algorithm>
#include <thread>
#include <chrono>
#include <filesystem>
#include <iostream>

#include <unistd.h>

#include "core/base/fileio.h"
#include "core/base/inputlimits.h"
#include "core/base/strings.h"
#include "core/eval/pairtable.h"
#include "core/runtime/computecontext.h"
#include "core/formats/plaintext.h"

namespace treelens::cli {

int fail(const std::string &message)
{
    // One line, and nothing from the input can drive the terminal (ESC[2J in a
    // HEAD field, a pickle global's name): control characters are escaped.
    std::cerr << "treelens-cli: error: " << printableMessage(message) << '\n';
    return 1;
}

void addInputOptions(CLI::App *cmd, InputSpec &spec, bool withFrom)
{
    cmd->add_option("text", spec.text, "Input text; '-' reads standard input")->type_name("TEXT");
    cmd->add_option("--input,-i", spec.file,
                    "Input file: .conllu/.mrg/.ptb/.json/.jsonl keep their tokenization, anything else is plain text "
                    "(one sentence per line unless --split)")
        ->type_name("FILE");
    cmd->add_flag("--split", spec.split, "Plain text is running text: split it into sentences");
    if (withFrom)
        cmd->add_option("--from", spec.from, "Input format (conllu, ptb, json, text); default: from the extension")
            ->type_name("FMT");
}

namespace {
Result<std::vector<Sentence>> nonEmpty(Result<std::vector<Sentence>> r, const std::string &source)
{
    if (r && r->empty())
        return Error{source + ":1: no sentences in the input"};
    return r;
}
} // namespace

std::string inputSourceName(const InputSpec &spec)
{
    if (!spec.file.empty())
        return spec.file == "-" ? std::string("<stdin>") : spec.file;
    return spec.text.empty() || spec.text == "-" ? "<stdin>" : "<argument>";
}

Result<std::vector<Sentence>> readInput(const InputSpec &spec)
{
    return nonEmpty(readInputAllowEmpty(spec), inputSourceName(spec));
}

ProgressLine::ProgressLine(std::string name) : m_name(std::move(name)), m_tty(isatty(STDERR_FILENO) != 0) {}

void ProgressLine::update(std::size_t done)
{
    if (m_tty) {
        const double now = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
        if (now - m_lastTime < 0.25)
            return;
        m_lastTime = now;
        std::cerr << '\r' << m_name << ": " << done << " sentences" << std::flush;
        m_shown = true;
        return;
    }
    if (done / 10000 > m_lastLogged / 10000) {
        m_lastLogged = done;
        std::cerr << m_name << ": " << done << " sentences\n";
    }
}

void ProgressLine::finish()
{
    if (m_tty && m_shown)
        std::cerr << '\r' << std::string(m_name.size() + 40, ' ') << '\r' << std::flush;
}

Result<InputChunks> InputChunks::open(const InputSpec &spec)
{
    InputChunks in;
    in.m_source = inputSourceName(spec);
    if (!spec.text.empty() && !spec.file.empty())
        return Error{"give either TEXT or --input, not both"};
    const bool fromStdin = spec.file == "-" || (spec.file.empty() && (spec.text.empty() || spec.text == "-"));
    if (!spec.file.empty() || fromStdin) {
        CorpusFormat fmt = spec.file.empty() || spec.file == "-" ? CorpusFormat::Text : formatFromPath(spec.file);
        if (!spec.from.empty()) {
            auto f = parseCorpusFormat(spec.from);
            if (!f)
                return f.error();
            fmt = *f;
        }
        CorpusReadOptions opt;
        opt.split = spec.split;
        opt.maxTokens = spec.maxTokens;
        auto stream = CorpusStream::open(fromStdin ? std::string("-") : spec.file, fmt, opt);
        if (!stream)
            return stream.error();
        in.m_stream = std::make_unique<CorpusStream>(std::move(*stream));
        return in;
    }
    auto whole = readInputAllowEmpty(spec);
    if (!whole)
        return whole.error();
    in.m_whole = std::move(*whole);
    return in;
}

Result<std::vector<Sentence>> InputChunks::next(std::size_t count)
{
    Result<std::vector<Sentence>> r = std::vector<Sentence>{};
    if (m_stream) {
        r = m_stream->next(count);
    } else if (!m_wholeGiven) {
        m_wholeGiven = true;
        r = std::move(m_whole);
    }
    if (r && m_first && r->empty())
        return Error{m_source + ":1: no sentences in the input"};
    m_first = false;
    return r;
}

Result<std::vector<Sentence>> readCorpusNonEmpty(const std::string &path, CorpusFormat format)
{
    return nonEmpty(readCorpusFile(path, format), path == "-" ? std::string("<stdin>") : path);
}

Result<std::vector<Sentence>> readInputAllowEmpty(const InputSpec &spec)
{
    if (!spec.text.empty() && !spec.file.empty())
        return Error{"give either TEXT or --input, not both"};
    CorpusReadOptions opt;
    opt.split = spec.split;
    opt.maxTokens = spec.maxTokens;
    if (!spec.file.empty()) {
        CorpusFormat fmt = formatFromPath(spec.file);
        if (!spec.from.empty()) {
            auto f = parseCorpusFormat(spec.from);
            if (!f)
                return f.error();
            fmt = *f;
        }
        return readCorpusFile(spec.file, fmt, opt);
    }
    std::string text = spec.text;
    std::string source = "<argument>";
    if (text.empty() || text == "-") {
        auto in = readFile("-");
        if (!in)
            return in.error();
        text = std::move(*in);
        source = "<stdin>";
    }
    if (!spec.from.empty()) {
        auto f = parseCorpusFormat(spec.from);
        if (!f)
            return f.error();
        return readCorpus(text, source, *f, opt);
    }
    return readCorpus(text, source, CorpusFormat::Text, opt);
}

void addParserOptions(CLI::App *cmd, ParserSpec &spec, const std::string &treeFileNote)
{
    std::string parsers;
    for (const auto &p : availableParsers())
        parsers += (parsers.empty() ? "" : ", ") + p.name;
    cmd->add_option("--parser,-p", spec.parser, "Parser backend (" + parsers + ")")->capture_default_str();
    cmd->add_option("--timeout", spec.timeout, "Per-sentence time limit in seconds (0 = none)")->capture_default_str();
    cmd->add_option("--max-words", spec.maxWords, "Refuse sentences with more words than this")->capture_default_str();
    cmd->add_option("--parser-command", spec.command,
                    "--parser external: shell command that reads one line of space-separated tokens on stdin and "
                    "writes one CoNLL-U sentence on stdout (e.g. a UDPipe, spaCy or Stanza wrapper)")
        ->type_name("CMD");
    cmd->add_option("--parser-model", spec.model, "--parser neural: dependency parser model (default: the shipped one)")
        ->type_name("M");
    cmd->add_option("--morph-model", spec.morphModel,
                    "--parser neural: LEMMA/FEATS tagger model (default: the shipped one when present; none = keep "
                    "the input's LEMMA and FEATS)")
        ->type_name("M");
    cmd->add_option("--tree-file", spec.treeFile,
                    "--parser file: parsed file (CoNLL-U, PTB, JSON) whose trees are used, matched by words"
                        + treeFileNote)
        ->type_name("F");
}

ParserConfig parserConfig(const ParserSpec &spec)
{
    ParserConfig config;
    config.backend = spec.parser;
    config.timeoutSeconds = spec.timeout;
    config.maxWords = spec.maxWords;
    config.command = spec.command;
    config.dependencyModel = spec.model;
    config.morphologyModel = spec.morphModel;
    config.treeFile = spec.treeFile;
    return config;
}

Result<std::vector<Sentence>> parseSentences(Parser &parser, const ParserSpec &spec, std::vector<Sentence> sentences,
                                             const std::string &source, std::vector<std::string> *failures)
{
    CorpusParseOptions options;
    options.maxWords = spec.maxWords;
    options.limitHint = "see --max-words";
    options.batched = spec.parser == "neural"; // batched by length: the neural parser's speed
    return parseCorpus(parser, std::move(sentences), source, options, failures);
}

namespace {
std::string &commandLineStorage()
{
    static std::string line = "treelens-cli";
    return line;
}
} // namespace

namespace {

std::vector<std::string> &argumentsStorage()
{
    static std::vector<std::string> args;
    return args;
}

/// "treelens-cli" then `args`, each shell-quoted when it needs it.
std::string quotedLine(const std::vector<std::string> &args)
{
    std::string line = "treelens-cli";
    for (const std::string &a : args) {
        const bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                             "0123456789-_./:=,+@%") == std::string::npos;
        if (plain) {
            line += ' ' + a;
            continue;
        }
        line += " '";
        for (char c : a)
            line += c == '\'' ? std::string("'\\''") : std::string(1, c);
        line += '\'';
    }
    return line;
}

} // namespace

void setCommandLine(int argc, char **argv)
{
    argumentsStorage().assign(argv + 1, argv + argc);
    commandLineStorage() = quotedLine(argumentsStorage());
}

int threadsArgument()
{
    const auto &args = argumentsStorage();
    int threads = 0;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string value;
        if (args[i] == "--threads" && i + 1 < args.size())
            value = args[i + 1];
        else if (args[i].rfind("--threads=", 0) == 0)
            value = args[i].substr(10);
        else
            continue;
        try {
            threads = std::max(0, std::stoi(value));
        } catch (const std::exception &) {
            threads = 0; // CLI11 refused it already
        }
    }
    return threads;
}

std::string shardOptionsLine()
{
    // The flags that do not change what the output holds; each with its value (or =value).
    static const std::vector<std::string> withValue = {"--shard", "-o", "--output", "--device", "--threads"};
    std::vector<std::string> kept;
    const auto &args = argumentsStorage();
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        if (a == "--skip-done" || a.rfind("--skip-done=", 0) == 0)
            continue;
        if (a.size() > 2 && a[0] == '-' && a[1] == 'o') // -oFILE, CLI11's attached short form
            continue;
        if (std::find(withValue.begin(), withValue.end(), a) != withValue.end()) {
            ++i;
            continue;
        }
        if (std::any_of(withValue.begin(), withValue.end(), [&](const std::string &f) { return a.rfind(f + "=", 0) == 0; }))
            continue;
        kept.push_back(a);
    }
    return quotedLine(kept);
}

void addShardOptions(CLI::App *cmd, ShardOptions &options, const std::string &unit)
{
    cmd->add_option("--shard", options.shard,
                    "Run shard I of N (I from 1) of the input: a contiguous part in whole " + unit +
                        ", written with the lines treelens-cli merge joins back into the whole run's output "
                        "(docs/cluster.md); needs the input in files and -o OUT")
        ->type_name("I/N");
    cmd->add_flag("--skip-done", options.skipDone,
                  "With --shard: do nothing when OUT already holds this shard's complete output (a resubmitted job array "
                  "redoes only what failed)");
}

Result<std::optional<ShardHeader>> shardHeaderFor(const ShardOptions &options, const std::string &command, const std::string &input,
                                                  const std::string &out)
{
    return shardHeaderFor(options, command, input.empty() ? std::vector<std::string>{} : std::vector<std::string>{input}, out);
}

Result<std::optional<ShardHeader>> shardHeaderFor(const ShardOptions &options, const std::string &command,
                                                  const std::vector<std::string> &inputs, const std::string &out)
{
    if (options.shard.empty()) {
        if (options.skipDone)
            return Error{"--skip-done needs --shard I/N"};
        return std::optional<ShardHeader>{};
    }
    auto spec = parseShardSpec(options.shard);
    if (!spec)
        return spec.error();
    if (inputs.empty() || std::find(inputs.begin(), inputs.end(), "-") != inputs.end())
        return Error{"--shard needs its input in a file or folder (--input FILE or --pairs PAIRS), not text or standard input"};
    if (out.empty() || out == "-")
        return Error{"--shard needs -o OUT (the shard's output file, for treelens-cli merge)"};
    // A folder input (WikiQA) is identified by all its files: the shard outputs must live elsewhere.
    std::error_code ec;
    for (const auto &in : inputs)
        if (std::filesystem::is_directory(in, ec) &&
            std::filesystem::equivalent(std::filesystem::absolute(out).parent_path(), std::filesystem::absolute(in), ec))
            return Error{"-o " + out + " is inside the input folder " + in + ": write the shard outputs elsewhere (the folder's files are its identity)"};
    auto id = inputIdentity(inputs);
    if (!id)
        return id.error();
    ShardHeader h;
    h.command = command;
    h.options = shardOptionsLine();
    h.threads = threadsArgument();
    h.cpus = static_cast<int>(std::thread::hardware_concurrency());
    h.shard = *spec;
    h.input = *id;
    return std::optional<ShardHeader>{h};
}

bool skipDoneShard(const ShardOptions &options, const ShardHeader &header, const std::string &out)
{
    if (!options.skipDone || !shardIsDone(out, header))
        return false;
    std::cerr << header.command << ": shard " << header.shard.str() << " of " << header.input.path << " is done (" << out
              << "); skipped\n";
    return true;
}

Status inputUnchanged(const std::vector<std::string> &paths, const InputIdentity &recorded, const std::string &needs,
                      const std::string &what)
{
    auto id = inputIdentity(paths);
    if (!id)
        return Error{"merge: " + needs + ": " + id.message(), id.code()};
    if (!sameContent(*id, recorded))
        return Error{"merge: " + what + " changed since the shards ran (crc32 " + id->crc32 + ", the shards': " + recorded.crc32 + ")"};
    return {};
}

Result<std::size_t> countInput(const InputSpec &spec)
{
    auto input = InputChunks::open(spec);
    if (!input)
        return input.error();
    std::size_t n = 0;
    for (;;) {
        auto chunk = input->next(4096);
        if (!chunk)
            return chunk.error();
        if (chunk->empty())
            return n;
        n += chunk->size();
    }
}

PairCorpus pairShard(const PairCorpus &corpus, ShardHeader &header, std::size_t block)
{
    const ShardRange range = shardRangeByGroups(pairBlockStarts(corpus.pairs, block), corpus.pairs.size(), header.shard);
    header.total = corpus.pairs.size();
    header.begin = range.begin;
    header.end = range.end;
    PairCorpus part{{}, corpus.task, corpus.labels, corpus.source};
    part.pairs.assign(corpus.pairs.begin() + static_cast<std::ptrdiff_t>(range.begin),
                      corpus.pairs.begin() + static_cast<std::ptrdiff_t>(range.end));
    return part;
}

Result<SentenceShard> sentenceShard(const ShardOptions &options, const std::string &command, const InputSpec &input,
                                    const std::string &out, std::size_t block)
{
    SentenceShard s;
    auto header = shardHeaderFor(options, command, input.file, out);
    if (!header)
        return header.error();
    if (!*header)
        return s;
    if (skipDoneShard(options, **header, out)) {
        s.done = true;
        return s;
    }
    auto total = countInput(input);
    if (!total)
        return total.error();
    s.range = shardRange(*total, (*header)->shard, block);
    (*header)->total = *total;
    (*header)->begin = s.range.begin;
    (*header)->end = s.range.end;
    s.header = std::move(*header);
    return s;
}

Result<std::size_t> forEachBlock(InputChunks &input, std::size_t block, std::size_t begin, std::size_t end, const std::string &name,
                                 const std::function<Status(std::vector<Sentence> &, std::size_t first)> &body)
{
    block = std::max<std::size_t>(1, block);
    std::size_t index = 0, handed = 0; // the next sentence's index in the input; sentences given to body
    std::vector<Sentence> pending;     // sentences from `first` on, not yet handed over
    std::size_t first = begin;
    ProgressLine progress(name);
    auto flush = [&]() -> Status {
        if (pending.empty())
            return {};
        const std::size_t n = pending.size();
        if (auto st = body(pending, first); !st)
            return st;
        handed += n;
        first += n;
        pending.clear();
        progress.update(handed);
        return {};
    };
    while (index < end) {
        auto chunk = input.next(block);
        if (!chunk)
            return chunk.error();
        if (chunk->empty())
            break;
        for (Sentence &s : *chunk) {
            if (index >= begin && index < end) {
                pending.push_back(std::move(s));
                // A block ends at the next multiple of `block` (or at `end`).
                if ((index + 1) % block == 0 || index + 1 == end)
                    if (auto st = flush(); !st)
                        return st.error();
            }
            ++index;
        }
    }
    if (auto st = flush(); !st)
        return st.error();
    progress.finish();
    return handed;
}

const std::string &commandLine() { return commandLineStorage(); }

std::string xmlEscaped(const std::string &s)
{
    std::string out;
    for (char c : s)
        out += c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '"' ? "&quot;" : std::string(1, c);
    return out;
}

int writeOutput(const std::string &out, const std::string &data)
{
    const Status st = writeFileAtomic(out.empty() ? std::string("-") : out, data);
    return st.ok() ? 0 : fail(st.message());
}

void addModelOptions(CLI::App *cmd, DeviceSpec &spec)
{
    cmd->add_option("--model,-m", spec.model, "Model file (.safetensors) or model directory; default: the shipped "
                                              "tree-transformer-en-small")
        ->type_name("M");
    cmd->add_option("--device", spec.device, "auto (CUDA when available), cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_option("--threads", spec.threads, "CPU threads for LibTorch (0 = its default)")->capture_default_str();
    cmd->add_option("--batch", spec.batch, "Sentences per forward pass")->capture_default_str();
    cmd->add_option("--precision", spec.precision, "Projections: fp32 (reference numerics), int8 (dynamic quantization, "
                                                   "CPU; the Tree Transformer), bf16 (fast with AVX512_BF16/AMX or on a GPU; "
                                                   "the Tree Transformer and pretrained Transformers) or auto (the fastest "
                                                   "measured here; says which on stderr)")
        ->check(CLI::IsMember({"fp32", "bf16", "int8", "auto"}))->capture_default_str();
}

void addAblateOption(CLI::App *cmd, std::vector<std::string> &specs)
{
    cmd->add_option("--ablate", specs, "Switch an attention head off: L.H (layer and head from 1; L.* every head of layer "
                                       "L); repeat for more. Zero ablation: the head's output zeroed before the layer's "
                                       "output projection")
        ->type_name("L.H")
        ->allow_extra_args(false); // one head a flag: a sentence after it stays the sentence
}

Result<std::vector<HeadAblation>> parseAblations(const std::vector<std::string> &specs)
{
    std::vector<HeadAblation> out;
    for (const std::string &raw : specs) {
        const auto dot = raw.find('.');
        int layer = 0, head = 0;
        const std::string l = raw.substr(0, dot), h = dot == std::string::npos ? std::string() : raw.substr(dot + 1);
        if (dot == std::string::npos || !parseInt(l, layer) || layer < 1 || (h != "*" && (!parseInt(h, head) || head < 1)))
            return makeError("--ablate", "'" + raw + "' is not L.H or L.* (layer and head numbered from 1)");
        HeadAblation a;
        a.layer = layer - 1;
        a.head = h == "*" ? -1 : head - 1;
        if (std::find(out.begin(), out.end(), a) == out.end())
            out.push_back(a);
    }
    return out;
}

Result<std::unique_ptr<Encoder>> openModel(const DeviceSpec &spec)
{
    std::string path = spec.model;
    if (path.empty()) {
        path = defaultModelPath();
        if (path.empty())
            return Error{"no --model given and the shipped default model (resources/models/"
                         "tree-transformer-en-small.safetensors) was not found"};
    }
    ComputeContext compute; // the process's threads, set here once; the encoder gets them too
    compute.threads = spec.threads;
    applyComputeContext(compute);
    DeviceConfig dc;
    dc.device = spec.device;
    dc.threads = spec.threads;
    dc.batchSize = spec.batch;
    dc.precision = spec.precision;
    auto enc = loadEncoder(path, dc);
    // Which arithmetic runs, when it is not the plain fp32 asked for (auto's choice, emulated bf16, ...).
    if (enc && !(*enc)->info().precisionNote.empty())
        std::cerr << "treelens-cli: precision " << (*enc)->info().precision << ": " << (*enc)->info().precisionNote << std::endl;
    return enc;
}

} // namespace treelens::cli
