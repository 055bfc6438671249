// Status: the outcome of a Cairn operation that can fail.
//
// The library never throws across its API. Every fallible function returns a Status, or a
// Result<T> (result.h) that carries either a value or a non-OK Status. A Status has a code a
// caller can branch on and a message written for the person reading the log.
//
// Outcomes met in normal operation (a key that is absent, a set-if-absent that found the key
// present, a compare-and-swap that found another value) are values in the result, not errors.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cairn {

enum class StatusCode : std::uint8_t {
  kOk = 0,
  kNotFound,            // The thing named does not exist (a data directory, for example).
  kInvalidArgument,     // The caller's input breaks a documented rule; nothing was written.
  kWrongType,           // The key holds a different kind of value than the operation needs.
  kOutOfRange,          // Arithmetic would overflow (an increment past INT64_MAX).
  kCorruption,          // Stored bytes cannot be decoded; the store refuses to overwrite them.
  kIOError,             // The file system failed.
  kBusy,                // Lock wait timed out or a deadlock was detected: retry the transaction.
  kDeadlineExceeded,    // A wait ran out of time.
  kFailedPrecondition,  // The store is in a state that does not allow the call (e.g. closed).
  kNotSupported,        // The request is valid but this build cannot serve it.
  kInternal,            // A bug in Cairn.
  kConflict,            // Another caller holds what this call needs and did not let go in time.
  kNotOwner,            // The caller's claim or lease is no longer the current one.
  kMismatch,            // An idempotency key was reused with a different request.
  kStaleFence,          // A fenced write carried a fencing number older than one issued since.
};

// The name of a code, e.g. "InvalidArgument".
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  // OK.
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status NotFound(std::string msg) { return {StatusCode::kNotFound, std::move(msg)}; }
  static Status InvalidArgument(std::string msg) {
    return {StatusCode::kInvalidArgument, std::move(msg)};
  }
  static Status WrongType(std::string msg) { return {StatusCode::kWrongType, std::move(msg)}; }
  static Status OutOfRange(std::string msg) { return {StatusCode::kOutOfRange, std::move(msg)}; }
  static Status Corruption(std::string msg) { return {StatusCode::kCorruption, std::move(msg)}; }
  static Status IOError(std::string msg) { return {StatusCode::kIOError, std::move(msg)}; }
  static Status Busy(std::string msg) { return {StatusCode::kBusy, std::move(msg)}; }
  static Status DeadlineExceeded(std::string msg) {
    return {StatusCode::kDeadlineExceeded, std::move(msg)};
  }
  static Status FailedPrecondition(std::string msg) {
    return {StatusCode::kFailedPrecondition, std::move(msg)};
  }
  static Status NotSupported(std::string msg) {
    return {StatusCode::kNotSupported, std::move(msg)};
  }
  static Status Internal(std::string msg) { return {StatusCode::kInternal, std::move(msg)}; }
  static Status Conflict(std::string msg) { return {StatusCode::kConflict, std::move(msg)}; }
  static Status NotOwner(std::string msg) { return {StatusCode::kNotOwner, std::move(msg)}; }
  static Status Mismatch(std::string msg) { return {StatusCode::kMismatch, std::move(msg)}; }
  static Status StaleFence(std::string msg) { return {StatusCode::kStaleFence, std::move(msg)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  bool IsNotFound() const { return code_ == StatusCode::kNotFound; }
  bool IsInvalidArgument() const { return code_ == StatusCode::kInvalidArgument; }
  bool IsCorruption() const { return code_ == StatusCode::kCorruption; }
  bool IsBusy() const { return code_ == StatusCode::kBusy; }

  // "OK", or "<CodeName>: <message>".
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

}  // namespace cairn
