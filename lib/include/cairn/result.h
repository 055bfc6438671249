// Result<T>: a value of type T, or the non-OK Status that explains why there is none.
//
// Check ok() before touching the value; value() on a failed Result is a programming error
// (it asserts in debug builds). Result is [[nodiscard]] so that errors are not dropped.
#pragma once

#include <cassert>
#include <optional>
#include <utility>

#include "cairn/status.h"

namespace cairn {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  // REQUIRES: !status.ok(). An OK status without a value is reported as kInternal.
  Result(Status status)  // NOLINT(google-explicit-constructor)
      : status_(status.ok() ? Status::Internal("Result built from an OK status without a value")
                            : std::move(status)) {}

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & {
    assert(ok());
    return *value_;
  }
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace cairn
