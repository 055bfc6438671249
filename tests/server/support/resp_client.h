// A blocking RESP client for tests, written apart from the server's own protocol code so that
// the tests check the bytes the server sends, not what the server's writer meant to send.
// Every read has a timeout, so a server that fails to answer fails the test instead of
// hanging it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cairn::test {

struct Reply {
  enum class Type {
    kSimple,
    kError,
    kInteger,
    kBulk,
    kNull,
    kArray,
    kMap,
    kSet,
    kPush,
    kDouble,
    kBoolean,
    kVerbatim,
    kBigNumber,
    kNullArray,
    kNullBulk
  };
  Type type = Type::kNull;
  std::string str;           // Simple, error, bulk, double, verbatim (without "txt:"), big number.
  std::int64_t integer = 0;  // Integer; boolean as 0/1.
  std::vector<Reply> elements;  // Array, set, push; a map's keys and values, alternating.

  bool IsNil() const {
    return type == Type::kNull || type == Type::kNullArray || type == Type::kNullBulk;
  }
  // redis-cli-like rendering, for assertion messages and differential comparison.
  std::string ToString() const;
};

class RespClient {
 public:
  // Connects to 127.0.0.1:port; nullptr (with *error set) on failure.
  static std::unique_ptr<RespClient> Connect(int port, std::string* error = nullptr);
  ~RespClient();

  // Encodes a command as a RESP array of bulk strings.
  static std::string Encode(const std::vector<std::string>& args);

  bool Send(std::string_view bytes);
  // Reads one reply; nullopt when the connection closed or the read timed out.
  std::optional<Reply> Read();
  // Sends the command and reads its reply; a nil-typed error reply "(no reply)" if none came.
  Reply Call(const std::vector<std::string>& args);
  // True when the server closes the connection (EOF) before the timeout.
  bool WaitClosed();

  void set_timeout_ms(int ms) { timeout_ms_ = ms; }

 private:
  explicit RespClient(int fd) : fd_(fd) {}
  bool Fill();  // Reads more bytes into buf_; false on EOF, error or timeout.
  std::optional<std::string> Line();
  std::optional<std::string> Bytes(std::size_t n);
  std::optional<Reply> Parse();

  int fd_;
  int timeout_ms_ = 10'000;
  std::string buf_;
  std::size_t pos_ = 0;
};

}  // namespace cairn::test
