#pragma once
/// \file pairworkbenchparts.h
/// Private to the pair workbench (pairworkbench.cpp, pairworkbenchlists.cpp,
/// pairworkbenchmetrics.cpp, pairworkbenchpair.cpp): the JobRunner groups its work
/// runs in and the read-only cells its tables are filled with. Not for other windows.

#include <cmath>

#include <QString>
#include <QTableWidgetItem>
#include <QVariant>

namespace treelens::pairworkbench {

/// Reading, parsing and scoring the corpus.
inline const QString kGroup = QStringLiteral("pairs");
/// The pair view's analysis of the selected pair.
inline const QString kViewGroup = QStringLiteral("pairs-view");
/// The analysis of the pair the question's phrases are compared with.
inline const QString kCompareGroup = QStringLiteral("pairs-view-compare");

/// A read-only text cell.
inline QTableWidgetItem *item(const QString &text)
{
    auto *i = new QTableWidgetItem(text);
    i->setFlags(i->flags() & ~Qt::ItemIsEditable);
    return i;
}

/// A read-only number cell (sorts as a number; empty when `v` is not finite).
inline QTableWidgetItem *number(double v, int digits = 3)
{
    auto *i = new QTableWidgetItem;
    i->setData(Qt::DisplayRole, std::isfinite(v) ? QVariant(QString::number(v, 'f', digits).toDouble()) : QVariant());
    i->setFlags(i->flags() & ~Qt::ItemIsEditable);
    return i;
}

} // namespace treelens::pairworkbench
