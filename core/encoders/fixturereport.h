#pragma once
/// \file fixturereport.h
/// What `verify-fixture` found: one check per expected tensor (or per value of a
/// fixture of another layout), compared within a tolerance. Torch-free.

#include <cstdint>
#include <string>
#include <vector>

namespace treelens {

/// One expected tensor against what was computed.
struct FixtureCheck {
    std::string name;
    std::vector<std::int64_t> shape;   ///< expected shape
    bool integer = false;              ///< integer dtype (or strings): compared exactly
    bool ok = false;
    double maxAbsDiff = 0.0;           ///< NaN/Inf in the computed tensor count as infinite
    std::string problem;               ///< "missing", "shape [..] expected [..]", "" when the values were compared
};

struct FixtureReport {
    double tolerance = 0.0;
    std::vector<FixtureCheck> checks;  ///< one per expected tensor, sorted by name
    std::vector<std::string> extra;    ///< computed tensors expected.json does not name
    bool passed() const;
};

} // namespace treelens
