// The corpus query's marks on the tree views (see patternmarks.h).
#include "viz/patternmarks.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <QBrush>
#include <QFont>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QPainterPath>
#include <QPen>

namespace treelens {

QColor patternMarkColor(int index)
{
    // Okabe–Ito without its yellow (too pale for an outline on white) and black.
    static const QColor colours[] = {QColor(0xd5, 0x5e, 0x00), QColor(0x00, 0x72, 0xb2), QColor(0x00, 0x9e, 0x73),
                                     QColor(0xcc, 0x79, 0xa7), QColor(0xe6, 0x9f, 0x00), QColor(0x56, 0xb4, 0xe9)};
    const int n = static_cast<int>(sizeof(colours) / sizeof(colours[0]));
    return colours[((index % n) + n) % n];
}

std::vector<PatternMarkGroup> groupPatternMarks(const PatternMarks &marks)
{
    // One group per thing outlined; its names in the pattern's order (the colour index is that order).
    std::map<std::tuple<int, int, QString, bool>, std::map<int, QString>> byThing;
    for (const PatternMarks::Mark &m : marks.marks)
        byThing[{m.first, m.last, m.label, m.phrase}].emplace(m.colour, m.name);
    std::vector<PatternMarkGroup> groups;
    for (const auto &[key, names] : byThing) {
        PatternMarkGroup g;
        std::tie(g.first, g.last, g.label, g.phrase) = key;
        for (const auto &[colour, name] : names)
            if (!g.names.contains(name))
                g.names << name;
        g.colour = names.begin()->first;
        groups.push_back(std::move(g));
    }
    std::stable_sort(groups.begin(), groups.end(), [](const PatternMarkGroup &a, const PatternMarkGroup &b) {
        return a.first != b.first ? a.first < b.first : a.last - a.first < b.last - b.first;
    });
    for (PatternMarkGroup &g : groups)
        for (const PatternMarkGroup &o : groups)
            if (&o != &g && o.first >= g.first && o.last <= g.last && (o.first != g.first || o.last != g.last))
                ++g.inner;
    return groups;
}

QGraphicsItem *addPatternMark(QGraphicsScene *scene, const QRectF &rect, const PatternMarkGroup &group, double z)
{
    const QColor colour = patternMarkColor(group.colour);
    QPainterPath outline;
    outline.addRoundedRect(rect, 4.0, 4.0);
    auto *box = new QGraphicsPathItem(outline);
    box->setPen(QPen(colour, 1.6));
    QColor tint = colour;
    tint.setAlpha(38);
    box->setBrush(tint);
    box->setZValue(z);
    box->setAcceptedMouseButtons(Qt::NoButton); // clicks and hovers go to the word or node under it
    const QString names = group.names.join(QStringLiteral(", "));
    box->setData(0, QStringLiteral("pattern-mark"));
    box->setData(1, names);
    box->setData(2, group.first);
    box->setData(3, group.last);
    box->setToolTip(group.phrase && !group.label.isEmpty()
                        ? QStringLiteral("%1: bound by the corpus query (%2)").arg(names, group.label)
                        : QStringLiteral("%1: bound by the corpus query").arg(names));

    // The names on a chip at the outline's top-left corner, in the outline's colour; sized by the
    // text item itself (its box includes the descent, so an underscore of "_root_" stays on the chip).
    QFont font;
    font.setPixelSize(8);
    font.setWeight(QFont::DemiBold);
    auto *text = new QGraphicsSimpleTextItem(names);
    text->setFont(font);
    text->setBrush(textOnColor(colour));
    text->setAcceptedMouseButtons(Qt::NoButton);
    const QRectF t = text->boundingRect();
    const QRectF chipRect(rect.left(), rect.top() - t.height() - 1.0, t.width() + 6.0, t.height() + 2.5);
    QPainterPath chipPath;
    chipPath.addRoundedRect(chipRect, 2.5, 2.5);
    // Its own item above everything drawn: a neighbouring node or arc never hides the names.
    auto *chip = new QGraphicsPathItem(chipPath);
    chip->setZValue(20.0);
    chip->setData(0, QStringLiteral("pattern-mark-names"));
    chip->setData(1, names);
    chip->setPen(Qt::NoPen);
    chip->setBrush(colour);
    chip->setAcceptedMouseButtons(Qt::NoButton);
    text->setParentItem(chip);
    text->setPos(chipRect.left() + 3.0, chipRect.top() + 0.5);
    scene->addItem(box);
    scene->addItem(chip);
    return box;
}

QString patternMarksNote(const PatternMarks &marks)
{
    QStringList names;
    std::map<int, QString> ordered;
    for (const PatternMarks::Mark &m : marks.marks)
        ordered.emplace(m.colour, m.name);
    for (const auto &[colour, name] : ordered)
        names << name;
    return QStringLiteral("Corpus query: %1 occurrence(s) in this sentence; outlined: what the pattern's nodes %2 are bound to")
        .arg(marks.occurrences)
        .arg(names.join(QStringLiteral(", ")));
}

} // namespace treelens
