#include "server/support/resp_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "server/support/loopback.h"

namespace cairn::test {

std::string Reply::ToString() const {
  switch (type) {
    case Type::kSimple:
      return str;
    case Type::kError:
      return "(error) " + str;
    case Type::kInteger:
      return "(integer) " + std::to_string(integer);
    case Type::kBulk:
      return "\"" + str + "\"";
    case Type::kVerbatim:
      return "\"" + str + "\"";
    case Type::kDouble:
      return "(double) " + str;
    case Type::kBigNumber:
      return "(big number) " + str;
    case Type::kBoolean:
      return integer ? "(true)" : "(false)";
    case Type::kNull:
    case Type::kNullArray:
    case Type::kNullBulk:
      return "(nil)";
    case Type::kArray:
    case Type::kSet:
    case Type::kPush:
    case Type::kMap: {
      std::string out = type == Type::kMap ? "{" : type == Type::kSet ? "~[" : "[";
      for (std::size_t i = 0; i < elements.size(); ++i) {
        if (i > 0) out += type == Type::kMap && i % 2 == 1 ? ": " : ", ";
        out += elements[i].ToString();
      }
      return out + (type == Type::kMap ? "}" : "]");
    }
  }
  return "?";
}

std::unique_ptr<RespClient> RespClient::Connect(int port, std::string* error) {
  const int fd = ConnectLoopback(port, error);
  if (fd < 0) return nullptr;
  return std::unique_ptr<RespClient>(new RespClient(fd));
}

RespClient::~RespClient() { ::close(fd_); }

std::string RespClient::Encode(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return out;
}

bool RespClient::Send(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool RespClient::Fill() {
  pollfd p{fd_, POLLIN, 0};
  const int ready = ::poll(&p, 1, timeout_ms_);
  if (ready <= 0) return false;
  char chunk[65536];
  const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
  if (n <= 0) return false;
  if (pos_ > 0 && pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  }
  buf_.append(chunk, static_cast<std::size_t>(n));
  return true;
}

std::optional<std::string> RespClient::Line() {
  while (true) {
    const std::size_t end = buf_.find("\r\n", pos_);
    if (end != std::string::npos) {
      std::string line = buf_.substr(pos_, end - pos_);
      pos_ = end + 2;
      return line;
    }
    if (!Fill()) return std::nullopt;
  }
}

std::optional<std::string> RespClient::Bytes(std::size_t n) {
  while (buf_.size() - pos_ < n + 2) {
    if (!Fill()) return std::nullopt;
  }
  std::string out = buf_.substr(pos_, n);
  pos_ += n + 2;
  return out;
}

std::optional<Reply> RespClient::Parse() {
  std::optional<std::string> line = Line();
  if (!line || line->empty()) return std::nullopt;
  const char type = (*line)[0];
  const std::string rest = line->substr(1);
  Reply r;
  auto aggregate = [&](Reply::Type t, std::size_t per_entry) -> std::optional<Reply> {
    const long long n = std::stoll(rest);
    if (n < 0) {
      r.type = Reply::Type::kNullArray;
      return r;
    }
    r.type = t;
    for (long long i = 0; i < n * static_cast<long long>(per_entry); ++i) {
      std::optional<Reply> e = Parse();
      if (!e) return std::nullopt;
      r.elements.push_back(std::move(*e));
    }
    return r;
  };
  switch (type) {
    case '+':
      r.type = Reply::Type::kSimple;
      r.str = rest;
      return r;
    case '-':
      r.type = Reply::Type::kError;
      r.str = rest;
      return r;
    case ':':
      r.type = Reply::Type::kInteger;
      r.integer = std::stoll(rest);
      return r;
    case '_':
      r.type = Reply::Type::kNull;
      return r;
    case ',':
      r.type = Reply::Type::kDouble;
      r.str = rest;
      return r;
    case '(':
      r.type = Reply::Type::kBigNumber;
      r.str = rest;
      return r;
    case '#':
      r.type = Reply::Type::kBoolean;
      r.integer = rest == "t" ? 1 : 0;
      return r;
    case '$':
    case '=':
    case '!': {
      const long long n = std::stoll(rest);
      if (n < 0) {
        r.type = Reply::Type::kNullBulk;
        return r;
      }
      std::optional<std::string> body = Bytes(static_cast<std::size_t>(n));
      if (!body) return std::nullopt;
      r.type = type == '$'   ? Reply::Type::kBulk
               : type == '=' ? Reply::Type::kVerbatim
                             : Reply::Type::kError;
      r.str = type == '=' && body->size() >= 4 ? body->substr(4) : *body;
      return r;
    }
    case '*':
      return aggregate(Reply::Type::kArray, 1);
    case '~':
      return aggregate(Reply::Type::kSet, 1);
    case '>':
      return aggregate(Reply::Type::kPush, 1);
    case '%':
      return aggregate(Reply::Type::kMap, 2);
    default:
      return std::nullopt;
  }
}

std::optional<Reply> RespClient::Read() { return Parse(); }

Reply RespClient::Call(const std::vector<std::string>& args) {
  Reply none;
  none.type = Reply::Type::kError;
  none.str = "(no reply)";
  if (!Send(Encode(args))) return none;
  std::optional<Reply> r = Read();
  return r ? std::move(*r) : none;
}

bool RespClient::WaitClosed() {
  while (true) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms_) <= 0) return false;
    char chunk[4096];
    const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
    if (n == 0) return true;
    if (n < 0) return errno == ECONNRESET;
  }
}

}  // namespace cairn::test
