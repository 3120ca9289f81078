#pragma once
/// \file pickle.h
/// A restricted Python unpickler (protocols 2-4) that rebuilds only what
/// PyTorch checkpoints need: None/bool/int/float/str/bytes, tuples, lists,
/// dicts, collections.OrderedDict, and tensors through
/// torch._utils._rebuild_tensor_v2 / _rebuild_tensor / _rebuild_parameter /
/// _rebuild_parameter_with_state over storages named by persistent ids
/// ('storage', torch.<Type>Storage, key, location, numel).
/// Any other global (os.system, builtins.eval, subprocess.Popen, ...) is
/// rejected with an error naming it as soon as its GLOBAL/STACK_GLOBAL opcode
/// is read; nothing is ever executed — the unpickler only builds values.
/// Bounded: stack depth, memo size, number of values, string length and the
/// bytes materialised for tensors are limited; malformed input gives an Error,
/// never a crash or an exception (fuzzed, see docs/model-files.md).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/base/result.h"
#include "core/model/tensordata.h"

namespace treelens {

struct PickleValue;
/// Values are owned by their PickleDocument (an arena): containers may refer
/// to each other freely, even in cycles, without leaking.
using PickleRef = PickleValue *;

struct PickleValue {
    enum class Kind { None, Bool, Int, Float, String, Bytes, Tuple, List, Dict, Global, Storage, Tensor, Mark };
    Kind kind = Kind::None;
    bool b = false;
    std::int64_t i = 0;
    double f = 0.0;
    std::string s; ///< String/Bytes; Global: "module.name"; Storage: key; Dict: "OrderedDict" or ""
    std::vector<PickleRef> items;                    ///< Tuple/List
    std::vector<std::pair<PickleRef, PickleRef>> dict; ///< Dict, in insertion order
    DType dtype = DType::F32;                        ///< Storage
    std::int64_t numel = 0;                          ///< Storage
    std::shared_ptr<const std::vector<std::uint8_t>> storage; ///< Storage bytes
    TensorData tensor;                               ///< Tensor: contiguous row-major copy of the view
};

/// Returns the raw bytes of storage `key` (e.g. "archive/data/<key>"), or an Error.
/// `declaredBytes` is what the pickle declares for it (numel × element size): a
/// resolver refuses a storage larger than that before reading it.
using StorageResolver = std::function<Result<std::shared_ptr<const std::vector<std::uint8_t>>>(const std::string &key,
                                                                                               std::uint64_t declaredBytes)>;

struct PickleDocument {
    std::vector<std::unique_ptr<PickleValue>> arena;
    PickleRef root = nullptr;
};

/// Unpickles `data` (not retained). Tensors are materialised as contiguous
/// row-major bytes following the view's offset, size and stride, checked
/// against the storage's size. `where` prefixes error messages ("model.pth").
Result<PickleDocument> unpickle(const std::uint8_t *data, std::size_t size, const StorageResolver &storages,
                           const std::string &where);

} // namespace treelens
