#pragma once
/// \file constituencystyle.h
/// Private to the constituency view (constituencyview.cpp, constituencylayout.cpp,
/// constituencypaint.cpp, constituencyoverlays.cpp): the fonts, colours and sizes
/// its scene is drawn with, the keys of the data its items carry, and the text
/// helper every part uses. Not for other views.

#include <QColor>
#include <QFont>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QPointF>
#include <QString>

namespace treelens::constituency {

// Item data keys: the hover text, and the word index of a leaf box.
inline constexpr int kHoverKey = 0;
inline constexpr int kWordKey = 1;
inline constexpr int kTatNodeKey = 2; // a TAT phrase's node id

// TAT aggregation steps: the level being aggregated, and the phrases still waiting.
inline const QColor kCurrentStep(0xd9, 0x5f, 0x02);
inline const QColor kPendingFill(0xf1, 0xf1, 0xf1);
inline const QColor kPendingInk(0xa0, 0xa0, 0xa0);

// Scene units are points. Fonts use pixel sizes so that one "pixel" is one scene
// unit on every paint device: point-sized fonts would be scaled by the device
// DPI and no longer match the layout when exported to PDF/SVG.
inline QFont makeFont(int size, QFont::Weight weight = QFont::Normal)
{
    QFont f;
    f.setPixelSize(size);
    f.setWeight(weight);
    return f;
}
inline const QFont &phraseFont() { static const QFont f = makeFont(10, QFont::DemiBold); return f; }
inline const QFont &wordFont() { static const QFont f = makeFont(10); return f; }
inline const QFont &posFont() { static const QFont f = makeFont(8); return f; }
inline const QFont &titleFont() { static const QFont f = makeFont(11, QFont::DemiBold); return f; }
inline const QFont &legendFont() { static const QFont f = makeFont(9); return f; }
inline const QFont &smallFont() { static const QFont f = makeFont(8); return f; }

inline const QColor kInk(0x22, 0x22, 0x22);
inline const QColor kEdge(0x70, 0x70, 0x70);
inline const QColor kBorder(0x8a, 0x8a, 0x8a);
inline const QColor kPos(0x75, 0x75, 0x75);
inline const QColor kShared(0x1a, 0x98, 0x50);   // green: bracket also induced
inline const QColor kMissing(0xd7, 0x30, 0x27);  // red, dashed: parser only
inline const QColor kExtra(0xd7, 0x30, 0x27);    // red brackets under the words: induced only
inline const QColor kNotApplicable(0xe4, 0xe4, 0xe4); // one-word constituents: no cohesion

inline constexpr double kNodeHeight = 16.0;
inline constexpr double kDotSize = 11.0;
inline constexpr double kPosHeight = 12.0; // the tag line above a word
inline constexpr double kMargin = 14.0;

/// A text item added to `scene` with its top-left corner at `topLeft`.
inline QGraphicsSimpleTextItem *addText(QGraphicsScene *scene, const QString &text, const QFont &font, const QColor &color,
                                        QPointF topLeft)
{
    auto *item = new QGraphicsSimpleTextItem(text);
    item->setFont(font);
    item->setBrush(color);
    item->setPos(topLeft);
    scene->addItem(item);
    return item;
}

} // namespace treelens::constituency
