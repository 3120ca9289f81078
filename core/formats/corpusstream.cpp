#include "core/formats/corpusstream.h"

#include <cerrno>
#include <cstring>

#include "core/base/inputlimits.h"
#include "core/base/strings.h"
#include "core/formats/conllu.h"
#include "core/formats/plaintext.h"
#include "core/formats/treelensjson.h"

namespace treelens {

CorpusStream::CorpusStream(CorpusStream &&o) noexcept { *this = std::move(o); }

CorpusStream &CorpusStream::operator=(CorpusStream &&o) noexcept
{
    if (this != &o) {
        if (m_file && m_ownsFile)
            std::fclose(m_file);
        m_source = std::move(o.m_source);
        m_format = o.m_format;
        m_options = o.m_options;
        m_file = o.m_file;
        m_ownsFile = o.m_ownsFile;
        m_whole = o.m_whole;
        m_done = o.m_done;
        m_pending = std::move(o.m_pending);
        m_pendingLines = o.m_pendingLines;
        m_line = o.m_line;
        m_index = o.m_index;
        m_bytes = o.m_bytes;
        o.m_file = nullptr;
    }
    return *this;
}

CorpusStream::~CorpusStream()
{
    if (m_file && m_ownsFile)
        std::fclose(m_file);
}

Result<CorpusStream> CorpusStream::open(const std::string &path, CorpusFormat format, const CorpusReadOptions &options)
{
    CorpusStream s;
    s.m_format = format;
    s.m_options = options;
    if (path == "-") {
        s.m_source = "<stdin>";
        s.m_file = stdin;
    } else {
        s.m_source = path;
        if (auto size = checkRegularFile(path, inputLimits().maxTextFileBytes); !size)
            return size.error();
        s.m_file = std::fopen(path.c_str(), "rb");
        if (!s.m_file)
            return makeError(path, std::strerror(errno));
        s.m_ownsFile = true;
    }
    s.m_whole = format == CorpusFormat::Ptb;
    if (format == CorpusFormat::Json) {
        // A JSON array is one document; JSON Lines are read line by line. The
        // lines read to tell them apart are parsed with the first piece.
        std::string line;
        for (;;) {
            auto more = s.readLine(line);
            if (!more)
                return more.error();
            if (!*more)
                break;
            s.m_pending += line;
            s.m_pending += '\n';
            ++s.m_pendingLines;
            auto t = trimView(line);
            if (s.m_pendingLines == 1 && t.size() >= 3 && t.substr(0, 3) == "\xEF\xBB\xBF")
                t = trimView(t.substr(3));
            if (!t.empty()) {
                s.m_whole = t.front() == '[';
                break;
            }
        }
    }
    return s;
}

Result<bool> CorpusStream::readLine(std::string &line)
{
    line.clear();
    int c;
    bool any = false;
    while ((c = std::getc(m_file)) != EOF) {
        any = true;
        if (++m_bytes > inputLimits().maxTextFileBytes)
            return makeError(m_source, "input larger than the limit (refused)");
        if (c == '\n')
            return true;
        line += static_cast<char>(c);
    }
    if (std::ferror(m_file))
        return makeError(m_source, "read error");
    return any;
}

Result<std::vector<Sentence>> CorpusStream::next(std::size_t count)
{
    // A piece of blank lines holds no sentence: read on until one does or the input ends.
    for (;;) {
        auto r = nextPiece(count);
        if (!r || !r->empty() || m_done)
            return r;
    }
}

Result<std::vector<Sentence>> CorpusStream::nextPiece(std::size_t count)
{
    if (m_done)
        return std::vector<Sentence>{};
    const int firstLine = m_line + 1;
    std::string text = std::move(m_pending);
    int lines = m_pendingLines;
    m_pending.clear();
    m_pendingLines = 0;
    // What ends a unit: a sentence ends at a blank line in CoNLL-U, a line is a
    // sentence in plain text and JSON Lines.
    auto endsUnit = [&](std::string_view l) {
        const bool blank = trimView(l).empty();
        return m_format == CorpusFormat::Conllu ? blank : !blank;
    };
    // The JSON probe's lines end with the first JSON Lines sentence.
    std::size_t units = !text.empty() && m_format == CorpusFormat::Json && !m_whole ? 1 : 0;
    std::string line;
    for (;;) {
        if (!m_whole && units >= count && !(m_format == CorpusFormat::Text && m_options.split))
            break;
        auto more = readLine(line);
        if (!more)
            return more.error();
        if (!*more) {
            m_done = true;
            break;
        }
        ++lines;
        text += line;
        text += '\n';
        if (m_format == CorpusFormat::Text && m_options.split) {
            // Running text: about `count` sentences' worth of lines, cut at a blank line.
            if (++units >= count * 8 && trimView(line).empty())
                break;
        } else if (endsUnit(line)) {
            ++units;
        }
    }
    m_line += lines;
    // A byte-order mark is skipped at the start of the file only: a later piece
    // starting with U+FEFF gets a blank line first (harmless in every
    // streamed format), so the readers keep it as a whole-file read does.
    int bodyFirstLine = firstLine;
    if (firstLine > 1 && text.size() >= 3 && text.compare(0, 3, "\xEF\xBB\xBF") == 0) {
        text.insert(text.begin(), '\n');
        --bodyFirstLine;
    }
    const std::string_view body = text;
    Result<std::vector<Sentence>> r = std::vector<Sentence>{};
    switch (m_format) {
    case CorpusFormat::Conllu: {
        ConlluReadOptions o;
        o.firstLine = bodyFirstLine;
        o.firstIndex = static_cast<int>(m_index);
        r = readConllu(body, m_source, o);
        break;
    }
    case CorpusFormat::Text: {
        PlainTextOptions o;
        o.split = m_options.split;
        o.maxTokens = m_options.maxTokens;
        o.firstLine = bodyFirstLine;
        o.firstIndex = static_cast<int>(m_index);
        r = readPlainText(body, m_source, o);
        break;
    }
    case CorpusFormat::Json:
        r = m_whole ? readTreeLensJson(body, m_source)
                    : readTreeLensJson(body, m_source, bodyFirstLine, static_cast<int>(m_index));
        break;
    case CorpusFormat::Ptb:
        r = readCorpus(std::string(body), m_source, CorpusFormat::Ptb, m_options);
        break;
    }
    if (!r)
        return r.error();
    m_index += r->size();
    return std::move(*r);
}

} // namespace treelens
