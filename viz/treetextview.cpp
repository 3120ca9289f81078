#include "viz/treetextview.h"

#include <QFontDatabase>

#include "core/formats/ptb.h"

namespace treelens {

QString formatTreesAsText(const Sentence &s, const Analysis *a)
{
    QString out;
    if (s.dependency) {
        out += QStringLiteral("Dependency tree\n");
        int width = 4;
        for (const auto &t : s.tokens)
            width = std::max(width, static_cast<int>(QString::fromStdString(t.text).size()));
        out += QStringLiteral("%1  %2  %3  %4  %5\n")
                   .arg(QStringLiteral("id"), 3)
                   .arg(QStringLiteral("word"), -width)
                   .arg(QStringLiteral("tag"), -5)
                   .arg(QStringLiteral("head"), 4)
                   .arg(QStringLiteral("relation"));
        for (std::size_t i = 0; i < s.tokens.size(); ++i) {
            const auto &t = s.tokens[i];
            const int h = s.dependency->heads[i];
            const QString headWord = h > 0 ? QString::fromStdString(s.tokens[static_cast<std::size_t>(h - 1)].text) : QStringLiteral("ROOT");
            out += QStringLiteral("%1  %2  %3  %4  %5 (%6)\n")
                       .arg(static_cast<int>(i + 1), 3)
                       .arg(QString::fromStdString(t.text), -width)
                       .arg(QString::fromStdString(t.xpos.empty() ? t.upos : t.xpos), -5)
                       .arg(h, 4)
                       .arg(QString::fromStdString(s.dependency->deprels[i]), headWord);
        }
    }
    if (s.constituency && !s.constituency->empty()) {
        out += QStringLiteral("\nConstituency tree\n");
        out += QString::fromStdString(writePtbTree(*s.constituency, PtbStyle::Treebank));
        out += QLatin1Char('\n');
    }
    if (s.metadataValue("partial") == "yes")
        out += QStringLiteral("\n(partial parse: the parser found no complete analysis)\n");
    if (a) {
        out += QStringLiteral("\nInduced by the encoder (%1, %2 layers)\n").arg(QString::fromStdString(a->family)).arg(a->layers);
        if (a->inducedTree)
            out += QString::fromStdString(writePtbTree(*a->inducedTree, PtbStyle::Treebank)) + QLatin1Char('\n');
        if (!a->linkProbs.empty()) {
            out += QStringLiteral("\nLink probabilities (layer × link from the previous token; high = same constituent)\n");
            QString header = QStringLiteral("layer ");
            for (std::size_t k = 0; k + 1 < a->tokens.size(); ++k)
                header += QStringLiteral(" %1").arg(QString::fromStdString(a->tokens[k + 1]).left(6), 6);
            out += header + QLatin1Char('\n');
            for (std::size_t l = a->linkProbs.size(); l-- > 0;) {
                QString row = QStringLiteral("%1 ").arg(static_cast<int>(l) + 1, 5); // layers from 1
                for (float p : a->linkProbs[l])
                    row += QStringLiteral(" %1").arg(static_cast<double>(p), 6, 'f', 2);
                out += row + QLatin1Char('\n');
            }
        }
    }
    return out;
}

TreeTextView::TreeTextView(QWidget *parent) : QPlainTextEdit(parent)
{
    setReadOnly(true);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setLineWrapMode(QPlainTextEdit::NoWrap);
}

void TreeTextView::setSentence(const Sentence &sentence, const Analysis *analysis)
{
    setPlainText(formatTreesAsText(sentence, analysis));
}

void TreeTextView::showMessage(const QString &message) { setPlainText(message); }

} // namespace treelens
