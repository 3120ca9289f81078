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

/// A one-line, user-facing error message.
struct Error {
    std::string message;
};

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

private:
    std::optional<Error> m_error;
};

/// Builds an Error from a location prefix ("file:line") and a message.
inline Error makeError(const std::string &where, const std::string &what)
{
    return Error{where.empty() ? what : where + ": " + what};
}

} // namespace treelens
