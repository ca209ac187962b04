// Result<T>: a small expected-like type. The library reports failures as
// values; only the CLI edge turns them into messages and exit codes.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace small {

// What went wrong, and where. `line`/`column` are 1-based; 0 means unknown.
struct Error {
    // Busy: the workspace lock stayed held by another process (exit 3, D4).
    // Internal: a check of small's own work failed (a bug, not the user's
    // input or the system): exit 2, JSON kind "internal".
    enum class Kind { Invalid, System, Usage, Busy, Internal };
    Kind kind = Kind::Invalid;
    std::string message;
    std::string file;
    unsigned line = 0;
    unsigned column = 0;
    std::string rule;  // the rule id when the error is a finding (D9), else ""
    std::string hint;  // what to do about it, when known
    // A write that failed after its change was journaled or its entries written:
    // the change stands (the next writer completes it), so what it promised
    // (a claim it took) must stand too.
    bool change_stands = false;

    static Error make(Kind kind, std::string msg) {
        Error e;
        e.kind = kind;
        e.message = std::move(msg);
        return e;
    }
    static Error invalid(std::string msg) { return make(Kind::Invalid, std::move(msg)); }
    static Error system(std::string msg) { return make(Kind::System, std::move(msg)); }
    static Error usage(std::string msg) { return make(Kind::Usage, std::move(msg)); }
    static Error busy(std::string msg) { return make(Kind::Busy, std::move(msg)); }
    // The message becomes "internal error: <msg>".
    static Error internal(const std::string& msg) { return make(Kind::Internal, "internal error: " + msg); }
    // A failed system call: System, "<what> <path>: <strerror(err)>". The
    // path is only named in the message; callers that want it as the
    // error's location set `file` themselves.
    static Error from_errno(const std::string& what, const std::string& path, int err);

    // "file:line:column: message" (parts that are unknown are left out).
    std::string describe() const;
};

template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : data_(std::move(value)) {}
    Result(Error error) : data_(std::move(error)) {}

    bool ok() const { return data_.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & { return std::get<0>(data_); }
    const T& value() const& { return std::get<0>(data_); }
    T&& value() && { return std::get<0>(std::move(data_)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    const Error& error() const { return std::get<1>(data_); }

private:
    std::variant<T, Error> data_;
};

// For operations that produce nothing but may fail.
struct Unit {};
using Status = Result<Unit>;
inline Status ok_status() { return Unit{}; }

}  // namespace small
