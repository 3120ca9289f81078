#pragma once
/// \file benchutil.h
/// What the benchmarks share: the median of repetitions and the wall time of a call.

#include <algorithm>
#include <chrono>
#include <vector>

namespace treelens::bench {

/// The upper median (v[n/2] of the sorted values); v must not be empty.
inline double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/// Seconds `f()` took on the steady clock.
template <class F>
double seconds(F &&f)
{
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace treelens::bench
