#pragma once
/// \file probingresults.h
/// The Probing dock's result tables, filled from typed reports
/// (core/probing/probereport.h): the Results table of one report (every task,
/// layer and pooling; the numbers as the report's JSON rounds them) and the
/// Compare table of several, by the comparison rules and cells of
/// core/probing/probecompare.h (the rules of `treelens-cli probe-tables`).
/// Layers and heads of the attention tasks are numbered from 1, as in the View dock.

#include <memory>
#include <vector>

#include <QString>
#include <QStringList>

#include "core/probing/probereport.h"

class QTableWidget;

namespace treelens {

/// Sets up the Results table's columns: task, layer, pooling, metric, dev, test,
/// selectivity, baseline.
void setUpProbeResultsTable(QTableWidget *table);
/// Fills the Results table with `report`'s rows, in the canonical task order.
void fillProbeResultsTable(QTableWidget *table, const ProbeRunReport &report);

/// Fills the Compare table (rows: task and metric; a column per report, named
/// `names`, and the majority baseline) and returns the line that states the data
/// (the first report's) and the rules.
QString fillProbeCompareTable(QTableWidget *table, const std::vector<std::shared_ptr<const ProbeRunReport>> &reports,
                              const QStringList &names);

/// A table's header and cells as CSV (RFC 4180 quoting, LF line ends).
QString probeTableCsv(const QTableWidget *table);

} // namespace treelens
