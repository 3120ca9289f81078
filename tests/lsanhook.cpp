// LeakSanitizer's suppressions for every test executable (asan preset only).
#include "core/base/lsansuppressions.h"
