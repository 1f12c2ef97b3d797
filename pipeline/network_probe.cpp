#include "network_probe.hpp"

#include <fcntl.h>
#include <glib.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <future>
#include <memory>
#include <thread>

#include "source_messages.hpp"

namespace convlive {
namespace {

struct Lookup {
  int code = 0;  // getaddrinfo's
  std::shared_ptr<addrinfo> addresses;
};

// getaddrinfo on a thread of its own, so that a lookup stuck in DNS bounds only the caller's wait.
std::optional<Lookup> lookUp(const std::string& host, int port, std::chrono::milliseconds timeout) {
  auto task = std::make_shared<std::packaged_task<Lookup()>>([host, port] {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    Lookup l;
    l.code = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
    if (l.code == 0) l.addresses.reset(found, freeaddrinfo);
    return l;
  });
  std::future<Lookup> answer = task->get_future();
  std::thread([task] { (*task)(); }).detach();
  if (answer.wait_for(timeout) != std::future_status::ready) return std::nullopt;
  return answer.get();
}

// 0 when a connection to `a` opened within `timeout`, ETIMEDOUT when none did, else the errno.
int connectOnce(const addrinfo& a, std::chrono::milliseconds timeout) {
  const int fd = socket(a.ai_family, a.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a.ai_protocol);
  if (fd < 0) return errno;
  int result = 0;
  if (connect(fd, a.ai_addr, a.ai_addrlen) != 0) {
    result = errno;
    if (result == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      const int ready = poll(&p, 1, int(timeout.count()));
      if (ready == 0) {
        result = ETIMEDOUT;
      } else if (ready < 0) {
        result = errno;
      } else {
        socklen_t len = sizeof result;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &result, &len) != 0) result = errno;
      }
    }
  }
  close(fd);
  return result;
}

}  // namespace

std::optional<NetworkTarget> networkTargetOf(const std::string& uri) {
  GUri* u = g_uri_parse(uri.c_str(), G_URI_FLAGS_NONE, nullptr);
  if (!u) return std::nullopt;
  std::optional<NetworkTarget> t;
  const char* host = g_uri_get_host(u);
  gchar* lower = g_ascii_strdown(g_uri_get_scheme(u), -1);
  const std::string s = lower;
  g_free(lower);
  int port = 0;
  if (s == "http")
    port = 80;
  else if (s == "https")
    port = 443;
  else if (s == "rtsp" || s == "rtspt")
    port = 554;
  else if (s == "rtmp")
    port = 1935;
  if (port && host && *host) t = NetworkTarget{host, g_uri_get_port(u) > 0 ? g_uri_get_port(u) : port};
  g_uri_unref(u);
  return t;
}

std::string whyUnreachable(const NetworkTarget& target, std::chrono::milliseconds timeout) {
  const std::optional<Lookup> l = lookUp(target.host, target.port, timeout);
  if (!l) return "the host name '" + target.host + "' did not resolve within " + secondsText(timeout) + " s";
  if (l->code != 0) {
    if (l->code == EAI_NONAME || l->code == EAI_NODATA) return "the host name '" + target.host + "' was not found";
    return "the host name '" + target.host + "' could not be looked up (" + gai_strerror(l->code) + ")";
  }
  int last = 0;
  for (const addrinfo* a = l->addresses.get(); a; a = a->ai_next) {
    last = connectOnce(*a, timeout);
    if (last == 0) return "";
  }
  const std::string where = target.host + " on port " + std::to_string(target.port);
  if (last == ECONNREFUSED) return target.host + " refused the connection on port " + std::to_string(target.port);
  if (last == ETIMEDOUT)
    return target.host + " did not answer on port " + std::to_string(target.port) + " within " + secondsText(timeout) +
           " s";
  if (last == ENETUNREACH || last == EHOSTUNREACH) return "no route to " + where + " (" + std::strerror(last) + ")";
  return "cannot connect to " + where + " (" + std::strerror(last) + ")";
}

std::string unreachableAdvice(const std::string& why) {
  if (why.find("was not found") != std::string::npos || why.find("could not be looked up") != std::string::npos ||
      why.find("did not resolve") != std::string::npos)
    return "check the address's spelling and this machine's DNS";
  if (why.find("refused") != std::string::npos) return "check that its server is running and listens on that port";
  if (why.find("did not answer") != std::string::npos) return "check the address, the network and any firewall";
  return "check the network and the address";
}

}  // namespace convlive
