// Status and StatusOr: how user errors travel through the library.
//
// Invariant: a user error (bad input file, unknown model, impossible size) is a
// Status returned to the caller; a broken internal invariant is an AZ_CHECK that
// aborts. No exceptions cross a library boundary.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <variant>

namespace az {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,   // a value the user gave is wrong (size, flag, name)
  kParseError,        // a text input is malformed
  kNotFound,          // an unknown model, file, topology
  kFailedPrecondition,
  kUnimplemented,
  kResourceExhausted,  // an input over a documented limit
  kInternal,
};

const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "invalid-argument: <message>" or "ok".
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) { return Status(StatusCode::kInvalidArgument, std::move(m)); }
inline Status ParseError(std::string m) { return Status(StatusCode::kParseError, std::move(m)); }
inline Status NotFound(std::string m) { return Status(StatusCode::kNotFound, std::move(m)); }
inline Status FailedPrecondition(std::string m) { return Status(StatusCode::kFailedPrecondition, std::move(m)); }
inline Status ResourceExhausted(std::string m) { return Status(StatusCode::kResourceExhausted, std::move(m)); }
inline Status InternalError(std::string m) { return Status(StatusCode::kInternal, std::move(m)); }

[[noreturn]] void CheckFailed(const char* file, int line, const char* condition, const std::string& message);

// Always-on invariant check: for bugs, never for user input.
#define AZ_CHECK(cond)                                         \
  do {                                                         \
    if (!(cond)) ::az::CheckFailed(__FILE__, __LINE__, #cond, ""); \
  } while (0)
#define AZ_CHECK_MSG(cond, msg)                                     \
  do {                                                              \
    if (!(cond)) ::az::CheckFailed(__FILE__, __LINE__, #cond, (msg)); \
  } while (0)

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : data_(std::move(status)) {  // NOLINT: implicit by design
    AZ_CHECK_MSG(!std::get<Status>(data_).ok(), "StatusOr built from an OK status without a value");
  }
  StatusOr(T value) : data_(std::move(value)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(data_); }
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(data_); }
  const T& value() const& {
    AZ_CHECK_MSG(ok(), "value() on an error StatusOr: " + std::get<Status>(data_).ToString());
    return std::get<T>(data_);
  }
  T& value() & {
    AZ_CHECK_MSG(ok(), "value() on an error StatusOr: " + std::get<Status>(data_).ToString());
    return std::get<T>(data_);
  }
  T&& value() && {
    AZ_CHECK_MSG(ok(), "value() on an error StatusOr: " + std::get<Status>(data_).ToString());
    return std::get<T>(std::move(data_));
  }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<Status, T> data_;
};

#define AZ_CONCAT_INNER(a, b) a##b
#define AZ_CONCAT(a, b) AZ_CONCAT_INNER(a, b)

#define AZ_RETURN_IF_ERROR(expr)          \
  do {                                    \
    ::az::Status az_status_ = (expr);     \
    if (!az_status_.ok()) return az_status_; \
  } while (0)

#define AZ_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()

#define AZ_ASSIGN_OR_RETURN(lhs, expr) AZ_ASSIGN_OR_RETURN_IMPL(AZ_CONCAT(az_statusor_, __LINE__), lhs, expr)

}  // namespace az
