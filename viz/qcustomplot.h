#pragma once
/// \file qcustomplot.h
/// Includes Debian's <qcustomplot.h> in a QT_NO_KEYWORDS build: the header uses
/// `signals`, `slots`, `emit` and `foreach`, so they are mapped to the Q_ macros
/// for the include only. Include "viz/qcustomplot.h", never <qcustomplot.h>.

#define signals Q_SIGNALS
#define slots Q_SLOTS
#define emit Q_EMIT
#define foreach Q_FOREACH
#include <qcustomplot.h> // IWYU pragma: export
#undef signals
#undef slots
#undef emit
#undef foreach
