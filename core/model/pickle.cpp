#include "core/model/pickle.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>
#include <set>
#include <stdexcept>

namespace treelens {

namespace {

constexpr std::size_t kMaxStack = 1u << 18; // pickle batches SETITEMS/APPENDS by 1000
constexpr std::size_t kMaxMemo = 1u << 22;
constexpr std::size_t kMaxString = 1u << 28;
// Every opcode creates at most one value; a real state dict needs ~20 per tensor.
constexpr std::size_t kMaxValues = 1u << 20;
constexpr int kMaxDims = 16;
// Materialised tensor bytes, in total, may exceed the distinct storage bytes
// (shared or expanded storages: tied weights, stride-0 buffers) by this factor
// plus a constant; a small file can therefore not ask for unbounded memory.
constexpr double kTensorBytesFactor = 16.0;
constexpr double kTensorBytesSlack = 64.0 * 1024 * 1024;

struct StorageType {
    const char *name;
    DType dtype;
};
const StorageType kStorages[] = {
    {"torch.FloatStorage", DType::F32}, {"torch.HalfStorage", DType::F16},   {"torch.BFloat16Storage", DType::BF16},
    {"torch.DoubleStorage", DType::F64}, {"torch.LongStorage", DType::I64},  {"torch.IntStorage", DType::I32},
    {"torch.ShortStorage", DType::I16},  {"torch.CharStorage", DType::I8},   {"torch.ByteStorage", DType::U8},
    {"torch.BoolStorage", DType::Bool}};

bool allowedGlobal(const std::string &g)
{
    if (g == "collections.OrderedDict" || g == "torch._utils._rebuild_tensor_v2" || g == "torch._utils._rebuild_tensor" ||
        g == "torch._utils._rebuild_parameter" || g == "torch._utils._rebuild_parameter_with_state")
        return true;
    for (const auto &s : kStorages)
        if (g == s.name)
            return true;
    return false;
}

class Unpickler {
public:
    Unpickler(const std::uint8_t *d, std::size_t n, const StorageResolver &r, std::string where)
        : m_d(d), m_n(n), m_resolve(r), m_where(std::move(where))
    {
    }

    PickleRef make(PickleValue::Kind k)
    {
        m_doc.arena.push_back(std::make_unique<PickleValue>());
        m_doc.arena.back()->kind = k;
        return m_doc.arena.back().get();
    }

    Result<PickleDocument> run()
    {
        while (true) {
            if (m_pos >= m_n)
                return err("truncated pickle (no STOP opcode)");
            if (m_doc.arena.size() >= kMaxValues)
                return err("pickle builds more than " + std::to_string(kMaxValues) + " values");
            const std::uint8_t op = m_d[m_pos++];
            Status s = step(op);
            if (!s)
                return s.error();
            if (m_stopped) {
                if (m_stack.size() != 1 || m_stack.back()->kind == PickleValue::Kind::Mark)
                    return err("malformed pickle: stack holds " + std::to_string(m_stack.size()) + " values at STOP");
                m_doc.root = m_stack.back();
                return std::move(m_doc);
            }
        }
    }

private:
    Error err(const std::string &what) const
    {
        return makeError(m_where, what + " (pickle offset " + std::to_string(m_pos) + ")");
    }

    Error refuse(const std::string &global) const
    {
        return makeError(m_where, "refusing pickle global '" + global + "' (not a tensor or container)");
    }

    bool need(std::size_t k) const { return m_n - m_pos >= k; }

    template <class T>
    bool readLe(T &v)
    {
        if (!need(sizeof(T)))
            return false;
        std::memcpy(&v, m_d + m_pos, sizeof(T)); // little-endian host (x86-64, arm64)
        m_pos += sizeof(T);
        return true;
    }

    Status push(PickleRef v)
    {
        if (m_stack.size() >= kMaxStack)
            return err("pickle stack too deep");
        m_stack.push_back(std::move(v));
        return {};
    }

    Result<PickleRef> pop()
    {
        if (m_stack.empty() || m_stack.back()->kind == PickleValue::Kind::Mark)
            return err("malformed pickle: stack underflow");
        auto v = m_stack.back();
        m_stack.pop_back();
        return v;
    }

    Result<std::vector<PickleRef>> popToMark()
    {
        std::size_t k = m_stack.size();
        while (k > 0 && m_stack[k - 1]->kind != PickleValue::Kind::Mark)
            --k;
        if (k == 0)
            return err("malformed pickle: no MARK");
        std::vector<PickleRef> items(m_stack.begin() + static_cast<long>(k), m_stack.end());
        m_stack.resize(k - 1);
        return items;
    }

    Status memoPut(std::size_t idx)
    {
        if (m_stack.empty() || m_stack.back()->kind == PickleValue::Kind::Mark)
            return err("malformed pickle: PUT without a value");
        if (idx >= kMaxMemo)
            return err("pickle memo index too large");
        if (m_memo.size() <= idx)
            m_memo.resize(idx + 1);
        m_memo[idx] = m_stack.back();
        return {};
    }

    Status memoGet(std::size_t idx)
    {
        if (idx >= m_memo.size() || !m_memo[idx])
            return err("malformed pickle: GET of unknown memo entry " + std::to_string(idx));
        return push(m_memo[idx]);
    }

    Result<std::string> readLine()
    {
        const std::size_t start = m_pos;
        while (m_pos < m_n && m_d[m_pos] != '\n')
            ++m_pos;
        if (m_pos >= m_n)
            return err("truncated pickle in a GLOBAL");
        std::string s(reinterpret_cast<const char *>(m_d + start), m_pos - start);
        ++m_pos;
        return s;
    }

    Status pushString(std::size_t len, PickleValue::Kind kind)
    {
        if (len > kMaxString || !need(len))
            return err("truncated or oversized string");
        auto v = make(kind);
        v->s.assign(reinterpret_cast<const char *>(m_d + m_pos), len);
        m_pos += len;
        return push(v);
    }

    static Result<std::vector<std::int64_t>> intTuple(PickleRef v, const char *what, const Unpickler &u)
    {
        if (v->kind != PickleValue::Kind::Tuple && v->kind != PickleValue::Kind::List)
            return u.err(std::string(what) + " is not a tuple");
        std::vector<std::int64_t> out;
        for (const auto &x : v->items) {
            if (x->kind != PickleValue::Kind::Int)
                return u.err(std::string(what) + " holds a non-integer");
            out.push_back(x->i);
        }
        return out;
    }

    Result<PickleRef> rebuildTensor(const std::vector<PickleRef> &args)
    {
        if (args.size() < 4)
            return err("_rebuild_tensor_v2 needs (storage, offset, size, stride, ...)");
        const auto &st = args[0];
        if (st->kind != PickleValue::Kind::Storage || !st->storage)
            return err("_rebuild_tensor_v2: first argument is not a storage");
        if (args[1]->kind != PickleValue::Kind::Int)
            return err("_rebuild_tensor_v2: offset is not an integer");
        auto size = intTuple(args[2], "tensor size", *this);
        if (!size)
            return size.error();
        auto stride = intTuple(args[3], "tensor stride", *this);
        if (!stride)
            return stride.error();
        if (size->size() > static_cast<std::size_t>(kMaxDims))
            return err("tensor has " + std::to_string(size->size()) + " dimensions (at most " + std::to_string(kMaxDims) + ")");
        if (size->size() != stride->size())
            return err("tensor size and stride have different lengths");
        const std::string &key = st->s;
        const std::int64_t storageElems = st->numel; // checked against the storage bytes at BINPERSID
        const std::int64_t offset = args[1]->i;
        if (offset < 0 || offset > storageElems)
            return err("tensor offset " + std::to_string(offset) + " is outside storage '" + key + "' of " +
                       std::to_string(storageElems) + " elements");
        // Every quantity stays below 2^40 * kMaxDims, so nothing overflows.
        constexpr std::int64_t kBig = std::int64_t(1) << 40;
        std::int64_t numel = 1, last = offset;
        for (std::size_t d = 0; d < size->size(); ++d) {
            const std::int64_t n = (*size)[d], s = (*stride)[d];
            if (n < 0 || s < 0)
                return err("negative tensor size or stride");
            if (n > kBig || s > kBig)
                return err("tensor size or stride too large");
            if (n == 0)
                numel = 0;
            else if (numel > 0) {
                if (numel > kBig / n)
                    return err("tensor too large");
                numel *= n;
            }
            if (n > 0 && s > 0 && (n - 1) > kBig / s)
                return err("tensor stride too large");
            if (n > 0)
                last += (n - 1) * s;
        }
        if (numel > 0 && last >= storageElems)
            return err("tensor reaches element " + std::to_string(last) + " of storage '" + key + "' with " +
                       std::to_string(storageElems) + " elements");
        const std::size_t es = dtypeSize(st->dtype);
        // Expanded (stride-0) views could ask for far more memory than the file
        // holds: bound each tensor and the total by the storage bytes.
        const double bytesOut = static_cast<double>(numel) * static_cast<double>(es);
        const double storageBytes = static_cast<double>(storageElems) * static_cast<double>(es);
        if (bytesOut > 8.0 * storageBytes + 1048576.0)
            return err("tensor of " + std::to_string(numel) + " elements is far larger than its storage '" + key + "'");
        m_tensorBytes += bytesOut;
        if (m_tensorBytes > kTensorBytesFactor * m_storageBytes + kTensorBytesSlack)
            return err("tensors would take far more memory than their storages hold");
        auto v = make(PickleValue::Kind::Tensor);
        v->tensor.dtype = st->dtype;
        v->tensor.shape = *size;
        v->tensor.bytes.resize(static_cast<std::size_t>(numel) * es);
        if (numel == 0)
            return v;
        copyStrided(v->tensor.bytes.data(), st->storage->data() + static_cast<std::size_t>(offset) * es, *size, *stride, es);
        return v;
    }

    /// Row-major copy of a strided view; contiguous runs (innermost stride 1,
    /// or the whole tensor) are copied with one memcpy each.
    static void copyStrided(std::uint8_t *dst, const std::uint8_t *src, std::vector<std::int64_t> size,
                            std::vector<std::int64_t> stride, std::size_t es)
    {
        // Drop size-1 dimensions (their stride is meaningless) and merge
        // dimensions that are contiguous with the next one.
        std::vector<std::int64_t> n, s;
        for (std::size_t d = 0; d < size.size(); ++d)
            if (size[d] != 1) {
                n.push_back(size[d]);
                s.push_back(stride[d]);
            }
        for (std::size_t d = n.size(); d-- > 1;)
            if (s[d - 1] == s[d] * n[d]) {
                n[d - 1] *= n[d];
                s[d - 1] = s[d];
                n.erase(n.begin() + static_cast<long>(d));
                s.erase(s.begin() + static_cast<long>(d));
            }
        if (n.empty()) {
            std::memcpy(dst, src, es);
            return;
        }
        // Innermost run: one memcpy when contiguous, else element by element.
        const std::size_t inner = n.size() - 1;
        const std::int64_t runLen = n[inner];
        const bool contiguousRun = s[inner] == 1;
        std::vector<std::int64_t> idx(inner, 0);
        std::size_t out = 0;
        while (true) {
            std::int64_t at = 0;
            for (std::size_t d = 0; d < inner; ++d)
                at += idx[d] * s[d];
            if (contiguousRun) {
                const std::size_t bytes = static_cast<std::size_t>(runLen) * es;
                std::memcpy(dst + out, src + static_cast<std::size_t>(at) * es, bytes);
                out += bytes;
            } else {
                for (std::int64_t k = 0; k < runLen; ++k, out += es)
                    std::memcpy(dst + out, src + static_cast<std::size_t>(at + k * s[inner]) * es, es);
            }
            std::size_t d = inner;
            while (d > 0) {
                --d;
                if (++idx[d] < n[d])
                    break;
                idx[d] = 0;
                if (d == 0)
                    return;
            }
            if (inner == 0)
                return;
        }
    }

    Status reduce()
    {
        auto args = pop();
        if (!args)
            return args.error();
        auto fn = pop();
        if (!fn)
            return fn.error();
        if ((*fn)->kind != PickleValue::Kind::Global)
            return err("REDUCE of something that is not an allowed global");
        if ((*args)->kind != PickleValue::Kind::Tuple)
            return err("REDUCE arguments are not a tuple");
        const std::string &g = (*fn)->s;
        const auto &a = (*args)->items;
        if (g == "collections.OrderedDict") {
            if (!a.empty())
                return err("OrderedDict with arguments is not supported");
            auto d = make(PickleValue::Kind::Dict);
            d->s = "OrderedDict";
            return push(d);
        }
        if (g == "torch._utils._rebuild_tensor_v2" || g == "torch._utils._rebuild_tensor") {
            auto t = rebuildTensor(a);
            if (!t)
                return t.error();
            return push(*t);
        }
        if (g == "torch._utils._rebuild_parameter" || g == "torch._utils._rebuild_parameter_with_state") {
            // A Parameter's data is its tensor; requires_grad, hooks and
            // Python attributes (the state) do not matter for weights.
            if (a.empty() || a[0]->kind != PickleValue::Kind::Tensor)
                return err(g.substr(g.rfind('.') + 1) + " without a tensor");
            return push(a[0]);
        }
        return err("refusing to call pickle global '" + g + "'");
    }

    /// One opcode. Each family answers the opcodes it knows (nullopt: not one of
    /// its own); an opcode no family knows is refused.
    Status step(std::uint8_t op)
    {
        if (auto s = framingOp(op))
            return std::move(*s);
        if (auto s = scalarOp(op))
            return std::move(*s);
        if (auto s = textOp(op))
            return std::move(*s);
        if (auto s = memoOp(op))
            return std::move(*s);
        if (auto s = containerOp(op))
            return std::move(*s);
        if (auto s = globalOp(op))
            return std::move(*s);
        if (op == 'Q') // BINPERSID
            return persistentStorage();
        char buf[8];
        std::snprintf(buf, sizeof buf, "0x%02x", op);
        return err(std::string("unsupported pickle opcode ") + buf);
    }

    /// PROTO, FRAME and STOP: the stream's structure, no values.
    std::optional<Status> framingOp(std::uint8_t op)
    {
        switch (op) {
        case 0x80: // PROTO
            if (!need(1))
                return Status(err("truncated PROTO"));
            if (m_d[m_pos] > 5)
                return Status(err("unsupported pickle protocol " + std::to_string(m_d[m_pos])));
            ++m_pos;
            return Status();
        case 0x95: { // FRAME
            std::uint64_t len;
            if (!readLe(len))
                return Status(err("truncated FRAME"));
            return Status();
        }
        case '.':
            m_stopped = true;
            return Status();
        default:
            return std::nullopt;
        }
    }

    /// A fixed-width integer operand pushed as an Int (BININT, BININT1, BININT2).
    template <class T>
    Status pushInt(const char *opName)
    {
        T x;
        if (!readLe(x))
            return err(std::string("truncated ") + opName);
        auto v = make(PickleValue::Kind::Int);
        v->i = x;
        return push(v);
    }

    /// None, booleans, integers and floats.
    std::optional<Status> scalarOp(std::uint8_t op)
    {
        using K = PickleValue::Kind;
        switch (op) {
        case 'N':
            return push(make(K::None));
        case 0x88:
        case 0x89: {
            auto v = make(K::Bool);
            v->b = op == 0x88;
            return push(v);
        }
        case 'J':
            return pushInt<std::int32_t>("BININT");
        case 'K':
            return pushInt<std::uint8_t>("BININT1");
        case 'M':
            return pushInt<std::uint16_t>("BININT2");
        case 0x8a: { // LONG1
            std::uint8_t n;
            if (!readLe(n) || !need(n))
                return Status(err("truncated LONG1"));
            if (n > 8)
                return Status(err("integer too large"));
            std::uint64_t x = 0;
            for (int k = n - 1; k >= 0; --k)
                x = (x << 8) | m_d[m_pos + static_cast<std::size_t>(k)];
            if (n > 0 && n < 8 && (m_d[m_pos + n - 1] & 0x80))
                x |= ~std::uint64_t(0) << (8 * n); // sign-extend
            m_pos += n;
            auto v = make(K::Int);
            v->i = static_cast<std::int64_t>(x);
            return push(v);
        }
        case 'G': {
            if (!need(8))
                return Status(err("truncated BINFLOAT"));
            std::uint64_t bits = 0;
            for (int k = 0; k < 8; ++k)
                bits = (bits << 8) | m_d[m_pos + static_cast<std::size_t>(k)];
            m_pos += 8;
            auto v = make(K::Float);
            std::memcpy(&v->f, &bits, 8);
            return push(v);
        }
        default:
            return std::nullopt;
        }
    }

    /// A string or bytes value whose length operand is a T (uint8 or uint32).
    template <class T>
    Status pushSized(const char *opName, PickleValue::Kind kind)
    {
        T len;
        if (!readLe(len))
            return err(std::string("truncated ") + opName);
        return pushString(len, kind);
    }

    /// Strings and bytes.
    std::optional<Status> textOp(std::uint8_t op)
    {
        using K = PickleValue::Kind;
        switch (op) {
        case 'X':
            return pushSized<std::uint32_t>("BINUNICODE", K::String);
        case 0x8c:
            return pushSized<std::uint8_t>("SHORT_BINUNICODE", K::String);
        case 'T':
            return pushSized<std::uint32_t>("BINSTRING", K::String);
        case 'U':
            return pushSized<std::uint8_t>("SHORT_BINSTRING", K::String);
        case 'B':
            return pushSized<std::uint32_t>("BINBYTES", K::Bytes);
        case 'C':
            return pushSized<std::uint8_t>("SHORT_BINBYTES", K::Bytes);
        default:
            return std::nullopt;
        }
    }

    /// The memo: PUT and GET with a T (uint8 or uint32) index operand.
    template <class T>
    Status memoOperand(const char *opName, bool put)
    {
        T i;
        if (!readLe(i))
            return err(std::string("truncated ") + opName);
        return put ? memoPut(i) : memoGet(i);
    }

    /// BINPUT, LONG_BINPUT, MEMOIZE, BINGET, LONG_BINGET.
    std::optional<Status> memoOp(std::uint8_t op)
    {
        switch (op) {
        case 'q':
            return memoOperand<std::uint8_t>("BINPUT", true);
        case 'r':
            return memoOperand<std::uint32_t>("LONG_BINPUT", true);
        case 0x94:
            return memoPut(m_memo.size());
        case 'h':
            return memoOperand<std::uint8_t>("BINGET", false);
        case 'j':
            return memoOperand<std::uint32_t>("LONG_BINGET", false);
        default:
            return std::nullopt;
        }
    }

    /// MARK, the empty containers, tuples and lists built from the stack, and
    /// the appends and item settings that fill lists and dicts.
    std::optional<Status> containerOp(std::uint8_t op)
    {
        using K = PickleValue::Kind;
        switch (op) {
        case '(':
            return push(make(K::Mark));
        case '}':
            return push(make(K::Dict));
        case ']':
            return push(make(K::List));
        case ')':
            return push(make(K::Tuple));
        case 't':
            return pushMarked(K::Tuple);
        case 0x85:
        case 0x86:
        case 0x87:
            return pushTuple(op - 0x84);
        case 'l':
            return pushMarked(K::List);
        case 'a':
            return append();
        case 'e':
            return appends();
        case 's':
            return setItem();
        case 'u':
            return setItems();
        default:
            return std::nullopt;
        }
    }

    /// TUPLE, LIST: the values down to the MARK as one container.
    Status pushMarked(PickleValue::Kind kind)
    {
        auto items = popToMark();
        if (!items)
            return items.error();
        auto v = make(kind);
        v->items = std::move(*items);
        return push(v);
    }

    /// TUPLE1..TUPLE3: the top `n` values as a tuple.
    Status pushTuple(int n)
    {
        auto v = make(PickleValue::Kind::Tuple);
        v->items.resize(static_cast<std::size_t>(n));
        for (int k = n - 1; k >= 0; --k) {
            auto x = pop();
            if (!x)
                return x.error();
            v->items[static_cast<std::size_t>(k)] = *x;
        }
        return push(v);
    }

    Status append()
    {
        auto x = pop();
        if (!x)
            return x.error();
        if (m_stack.empty() || m_stack.back()->kind != PickleValue::Kind::List)
            return err("APPEND to a non-list");
        m_stack.back()->items.push_back(*x);
        return {};
    }

    Status appends()
    {
        auto items = popToMark();
        if (!items)
            return items.error();
        if (m_stack.empty() || m_stack.back()->kind != PickleValue::Kind::List)
            return err("APPENDS to a non-list");
        for (auto &x : *items)
            m_stack.back()->items.push_back(x);
        return {};
    }

    Status setItem()
    {
        auto value = pop();
        if (!value)
            return value.error();
        auto key = pop();
        if (!key)
            return key.error();
        if (m_stack.empty() || m_stack.back()->kind != PickleValue::Kind::Dict)
            return err("SETITEM on a non-dict");
        m_stack.back()->dict.emplace_back(*key, *value);
        return {};
    }

    Status setItems()
    {
        auto items = popToMark();
        if (!items)
            return items.error();
        if (items->size() % 2 != 0)
            return err("SETITEMS with an odd number of items");
        if (m_stack.empty() || m_stack.back()->kind != PickleValue::Kind::Dict)
            return err("SETITEMS on a non-dict");
        for (std::size_t k = 0; k < items->size(); k += 2)
            m_stack.back()->dict.emplace_back((*items)[k], (*items)[k + 1]);
        return {};
    }

    /// GLOBAL and STACK_GLOBAL (refused unless allowedGlobal), REDUCE of an
    /// allowed global, BUILD (accepted on a dict only, its state ignored).
    std::optional<Status> globalOp(std::uint8_t op)
    {
        using K = PickleValue::Kind;
        switch (op) {
        case 'c': { // GLOBAL "module\nname\n"
            auto mod = readLine();
            if (!mod)
                return Status(mod.error());
            auto name = readLine();
            if (!name)
                return Status(name.error());
            return pushGlobal(*mod + "." + *name);
        }
        case 0x93: { // STACK_GLOBAL
            auto name = pop();
            if (!name)
                return Status(name.error());
            auto mod = pop();
            if (!mod)
                return Status(mod.error());
            if ((*mod)->kind != K::String || (*name)->kind != K::String)
                return Status(err("STACK_GLOBAL needs two strings"));
            return pushGlobal((*mod)->s + "." + (*name)->s);
        }
        case 'R':
            return reduce();
        case 'b': { // BUILD: only a dict's attribute state (e.g. state_dict._metadata), ignored
            auto state = pop();
            if (!state)
                return Status(state.error());
            if (m_stack.empty() || m_stack.back()->kind != K::Dict)
                return Status(err("BUILD is only accepted on a dict"));
            return Status();
        }
        default:
            return std::nullopt;
        }
    }

    /// The global "module.name" on the stack, or its refusal when it is not on the allow-list.
    Status pushGlobal(const std::string &g)
    {
        if (!allowedGlobal(g))
            return refuse(g);
        auto v = make(PickleValue::Kind::Global);
        v->s = g;
        return push(v);
    }

    /// BINPERSID: a persistent id ('storage', torch.<Type>Storage, key, location,
    /// numel) becomes a Storage holding the resolver's bytes for `key`.
    Status persistentStorage()
    {
        using K = PickleValue::Kind;
        auto pid = pop();
        if (!pid)
            return pid.error();
        const auto &t = (*pid)->items;
        if ((*pid)->kind != K::Tuple || t.size() < 5 || t[0]->kind != K::String || t[0]->s != "storage" ||
            t[1]->kind != K::Global || t[2]->kind != K::String || t[4]->kind != K::Int)
            return err("unsupported persistent id (expected ('storage', type, key, location, numel))");
        DType dtype = DType::F32;
        bool found = false;
        for (const auto &s : kStorages)
            if (t[1]->s == s.name) {
                dtype = s.dtype;
                found = true;
            }
        if (!found)
            return err("persistent id with a non-storage type '" + t[1]->s + "'");
        const std::int64_t numel = t[4]->i;
        if (numel < 0 || static_cast<std::uint64_t>(numel) > (std::uint64_t(1) << 40) / dtypeSize(dtype))
            return err("storage '" + t[2]->s + "' declares " + std::to_string(numel) + " elements (refused)");
        auto bytes = m_resolve(t[2]->s, static_cast<std::uint64_t>(numel) * dtypeSize(dtype));
        if (!bytes)
            return bytes.error();
        if (numel < 0 || static_cast<std::uint64_t>(numel) > (*bytes)->size() / dtypeSize(dtype))
            return err("storage '" + t[2]->s + "' has " + std::to_string((*bytes)->size()) + " bytes, fewer than " +
                       std::to_string(numel) + " elements of " + dtypeName(dtype));
        if (!m_seenStorages.count((*bytes).get())) {
            m_seenStorages.insert((*bytes).get());
            m_storageBytes += static_cast<double>((*bytes)->size());
        }
        auto v = make(K::Storage);
        v->s = t[2]->s;
        v->dtype = dtype;
        v->numel = numel;
        v->storage = *bytes;
        return push(v);
    }

    const std::uint8_t *m_d;
    std::size_t m_n;
    std::size_t m_pos = 0;
    const StorageResolver &m_resolve;
    std::string m_where;
    std::vector<PickleRef> m_stack;
    std::vector<PickleRef> m_memo;
    bool m_stopped = false;
    PickleDocument m_doc;
    std::set<const void *> m_seenStorages;
    double m_storageBytes = 0; ///< distinct storage bytes seen so far
    double m_tensorBytes = 0;  ///< bytes materialised for tensors so far
};

} // namespace

Result<PickleDocument> unpickle(const std::uint8_t *data, std::size_t size, const StorageResolver &storages,
                           const std::string &where)
{
    // Allocation failures (a huge but consistent file) become errors, never
    // exceptions across the API.
    try {
        Unpickler u(data, size, storages, where);
        return u.run();
    } catch (const std::bad_alloc &) {
        return makeError(where, "out of memory while unpickling");
    } catch (const std::length_error &) {
        return makeError(where, "out of memory while unpickling");
    }
}

} // namespace treelens
