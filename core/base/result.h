#pragma once
/// \file result.h
/// Value-or-error return type used by every fallible core function.
/// Library code never throws across its public API, exits or prints: it returns
/// a Result and the caller decides. Messages name the file, line/offset or
/// tensor they refer to ("train.conllu:12: HEAD '7x' is not an integer").

#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace treelens {

/// What kind of failure an Error is, for callers that act on it (a corpus run that skips a
/// sentence it cannot take, a job that was stopped) instead of searching the message text.
enum class ErrorCode {
    Data,      ///< bad input data: a file, a value or a model file that is not what it should be (the default)
    Refused,   ///< valid input the model or command does not take (too long, a pair for a one-sentence model)
    Io,        ///< a file or folder could not be read or written
    Cancelled, ///< the caller asked the work to stop (RunControl::cancelled)
    Internal   ///< an exception from a dependency (LibTorch, the allocator) caught at the core boundary
};

/// A one-line, user-facing error message and its kind.
struct Error {
    std::string message;
    ErrorCode code = ErrorCode::Data;
};

/// The error of work stopped on request: "<where>: cancelled" ("cancelled" without `where`).
inline Error cancelledError(const std::string &where = std::string())
{
    return Error{where.empty() ? std::string("cancelled") : where + ": cancelled", ErrorCode::Cancelled};
}
inline bool isCancelled(const Error &e) { return e.code == ErrorCode::Cancelled; }

/// Either a value of type T or an Error.
template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_v(std::in_place_index<0>, std::move(value)) {}
    Result(Error error) : m_v(std::in_place_index<1>, std::move(error)) {}

    bool ok() const { return m_v.index() == 0; }
    explicit operator bool() const { return ok(); }

    /// Precondition: ok().
    T &value() & { return std::get<0>(m_v); }
    const T &value() const & { return std::get<0>(m_v); }
    T &&value() && { return std::get<0>(std::move(m_v)); }
    T *operator->() { return &std::get<0>(m_v); }
    const T *operator->() const { return &std::get<0>(m_v); }
    T &operator*() & { return std::get<0>(m_v); }
    const T &operator*() const & { return std::get<0>(m_v); }

    /// Precondition: !ok().
    const Error &error() const { return std::get<1>(m_v); }
    const std::string &message() const { return std::get<1>(m_v).message; }
    ErrorCode code() const { return std::get<1>(m_v).code; }

private:
    std::variant<T, Error> m_v;
};

/// Success or an Error, for functions that return nothing.
class [[nodiscard]] Status {
public:
    Status() = default;
    Status(Error error) : m_error(std::move(error)) {}
    static Status success() { return {}; }

    bool ok() const { return !m_error.has_value(); }
    explicit operator bool() const { return ok(); }
    const Error &error() const { return *m_error; }
    const std::string &message() const { return m_error->message; }
    /// Precondition: !ok().
    ErrorCode code() const { return m_error->code; }

private:
    std::optional<Error> m_error;
};

/// Builds an Error from a location prefix ("file:line") and a message.
inline Error makeError(const std::string &where, const std::string &what, ErrorCode code = ErrorCode::Data)
{
    return Error{where.empty() ? what : where + ": " + what, code};
}
/// `inner` with a location prefix, its code kept (a cancelled job stays cancelled when a
/// caller says where it was).
inline Error makeError(const std::string &where, const Error &inner)
{
    return Error{where.empty() ? inner.message : where + ": " + inner.message, inner.code};
}

} // namespace treelens
