#include "core/parsing/chunkingparser.h"

#include <algorithm>

namespace treelens {

namespace {

/// How good a cut after this token is: clause punctuation first, commas next.
int cutStrength(const std::string &t)
{
    if (t == ";" || t == ":" || t == "--" || t == "—" || t == "–")
        return 2;
    if (t == ",")
        return 1;
    return 0;
}

void copySubtree(const ConstituencyTree &from, int node, ConstituencyTree &to, int parent)
{
    const ConstituencyNode &n = from.node(node);
    const int copy = to.addNode(n.label, parent, n.terminal);
    for (int c : n.children)
        copySubtree(from, c, to, copy);
}

class ChunkingParser : public Parser {
public:
    ChunkingParser(std::unique_ptr<Parser> inner, int longerThan, int maxPiece)
        : m_inner(std::move(inner)), m_longerThan(longerThan), m_maxPiece(maxPiece)
    {
    }

    ParserInfo info() const override { return m_inner->info(); }

    Result<Sentence> parse(const Sentence &input) override
    {
        if (static_cast<int>(input.tokens.size()) <= m_longerThan)
            return m_inner->parse(input);
        const auto ranges = chunkRanges(input.tokens, m_maxPiece);
        Sentence out = input;
        DependencyTree dep;
        ConstituencyTree cons;
        const int top = cons.addNode("S", -1);
        bool haveDep = true, haveCons = true, partial = false;
        int root = 0;
        std::string parser;
        for (const auto &[start, end] : ranges) {
            Sentence piece;
            piece.id = input.id + "#" + std::to_string(start + 1);
            piece.tokens.assign(input.tokens.begin() + start, input.tokens.begin() + end);
            for (const auto &t : piece.tokens)
                piece.text += (piece.text.empty() ? "" : " ") + t.text;
            auto r = m_inner->parse(piece);
            if (!r)
                return Error{r.message() + " (in the piece of words " + std::to_string(start + 1) + "-" + std::to_string(end)
                             + " of a " + std::to_string(input.tokens.size()) + "-word sentence)", r.code()};
            if (parser.empty())
                parser = r->metadataValue("parser");
            partial = partial || r->metadataValue("partial") == "yes";
            for (std::size_t t = 0; t < r->tokens.size(); ++t) { // tags the backend predicted
                out.tokens[static_cast<std::size_t>(start) + t].upos = r->tokens[t].upos;
                out.tokens[static_cast<std::size_t>(start) + t].xpos = r->tokens[t].xpos;
            }
            if (r->dependency && haveDep) {
                for (std::size_t t = 0; t < r->dependency->heads.size(); ++t) {
                    const int h = r->dependency->heads[t];
                    std::string rel = r->dependency->deprels[t];
                    int head = h == 0 ? 0 : h + start;
                    if (h == 0) {
                        if (root == 0) {
                            root = start + static_cast<int>(t) + 1;
                        } else {
                            head = root;
                            rel = "parataxis";
                        }
                    }
                    dep.heads.push_back(head);
                    dep.deprels.push_back(rel);
                }
            } else {
                haveDep = false;
            }
            if (r->constituency && !r->constituency->empty() && haveCons)
                copySubtree(*r->constituency, r->constituency->contentRoot(), cons, top);
            else
                haveCons = false;
        }
        out.dependency.reset();
        out.constituency.reset();
        if (haveDep && dep.validate().ok())
            out.dependency = std::move(dep);
        if (haveCons) {
            cons.renumberWords();
            if (cons.wordCount() == static_cast<int>(input.tokens.size()))
                out.constituency = std::move(cons);
        }
        if (!out.dependency && !out.constituency)
            return Error{"parsing the " + std::to_string(ranges.size()) + " pieces of a long sentence gave no tree"};
        out.setMetadata("parser", parser);
        out.setMetadata("chunked", std::to_string(ranges.size()));
        if (partial)
            out.setMetadata("partial", "yes");
        return out;
    }

private:
    std::unique_ptr<Parser> m_inner;
    int m_longerThan;
    int m_maxPiece;
};

} // namespace

std::vector<std::pair<int, int>> chunkRanges(const std::vector<Token> &tokens, int maxPiece)
{
    std::vector<std::pair<int, int>> out;
    const int n = static_cast<int>(tokens.size());
    maxPiece = std::max(2, maxPiece);
    const int minPiece = std::max(1, maxPiece / 4);
    int start = 0;
    while (start < n) {
        if (n - start <= maxPiece) {
            out.emplace_back(start, n);
            break;
        }
        // The strongest cut in [start + minPiece, start + maxPiece], latest among equals.
        int best = -1, bestStrength = 0;
        for (int i = start + minPiece - 1; i < std::min(n - 1, start + maxPiece); ++i) {
            const int s = cutStrength(tokens[static_cast<std::size_t>(i)].text);
            if (s > 0 && s >= bestStrength) {
                best = i + 1;
                bestStrength = s;
            }
        }
        const int end = best > 0 ? best : start + maxPiece;
        out.emplace_back(start, end);
        start = end;
    }
    return out;
}

std::unique_ptr<Parser> makeChunkingParser(std::unique_ptr<Parser> inner, int longerThan, int maxPiece)
{
    return std::unique_ptr<Parser>(new ChunkingParser(std::move(inner), longerThan, maxPiece));
}

} // namespace treelens
