#include "net/loopback.h"

#include <sstream>

namespace cairn::server {

bool IsLoopback(const boost::asio::ip::address& address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, address.to_v6())
        .is_loopback();
  }
  return address.is_loopback();
}

bool BindsLoopbackOnly(const std::string& bind) {
  std::istringstream words(bind);
  std::string word;
  while (words >> word) {
    if (word.starts_with("-")) word.erase(0, 1);
    boost::system::error_code ec;
    const boost::asio::ip::address ip = boost::asio::ip::make_address(word, ec);
    if (ec || !IsLoopback(ip)) return false;
  }
  return true;
}

}  // namespace cairn::server
