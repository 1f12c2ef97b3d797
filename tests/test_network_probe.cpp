// Network sources that fail name the cause (label cpu; no network needed: 127.0.0.1 only, and a
// name under .invalid, which never resolves): the URI's host and port, a refused connection, a
// name not found, a server that is there; and a source on a refused address says so in its error.
#include <arpa/inet.h>
#include <gst/gst.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "convlive/source.hpp"
#include "network_probe.hpp"

using namespace convlive;
using namespace std::chrono_literals;

namespace {

// A TCP socket on 127.0.0.1, listening or not; its port.
class LocalPort {
 public:
  explicit LocalPort(bool listening) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    if (listening) {
      listen(fd_, 4);
    } else {
      close(fd_);  // the port is free again: a connection to it is refused
      fd_ = -1;
    }
  }
  ~LocalPort() {
    if (fd_ >= 0) close(fd_);
  }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST(NetworkProbe, UrisGiveTheirHostAndTheirSchemesPort) {
  const auto http = networkTargetOf("http://example.com/a.mp4");
  ASSERT_TRUE(http);
  EXPECT_EQ(http->host, "example.com");
  EXPECT_EQ(http->port, 80);
  EXPECT_EQ(networkTargetOf("https://example.com/a.mp4")->port, 443);
  EXPECT_EQ(networkTargetOf("HTTPS://example.com:8443/a.mp4")->port, 8443);
  EXPECT_EQ(networkTargetOf("rtsp://10.0.0.5/stream")->port, 554);
  EXPECT_EQ(networkTargetOf("rtmp://live.example.com/app/key")->port, 1935);
  EXPECT_FALSE(networkTargetOf("file:///tmp/a.mp4"));
  EXPECT_FALSE(networkTargetOf("udp://0.0.0.0:5000"));
  EXPECT_FALSE(networkTargetOf("not a uri"));
}

TEST(NetworkProbe, ARefusedConnectionIsNamed) {
  const LocalPort closed(false);
  const std::string why = whyUnreachable({"127.0.0.1", closed.port()}, 2s);
  EXPECT_EQ(why, "127.0.0.1 refused the connection on port " + std::to_string(closed.port()));
  EXPECT_EQ(unreachableAdvice(why), "check that its server is running and listens on that port");
}

TEST(NetworkProbe, AServerThatIsThereIsNoCause) {
  const LocalPort open(true);
  EXPECT_EQ(whyUnreachable({"127.0.0.1", open.port()}, 2s), "");
}

TEST(NetworkProbe, AHostNameThatDoesNotResolveIsNamed) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string why = whyUnreachable({"nosuchhost.invalid", 80}, 3s);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s) << "the lookup was not bounded";
  // Not found where DNS answers; "could not be looked up" or "did not resolve" where there is none.
  EXPECT_EQ(why.rfind("the host name 'nosuchhost.invalid' ", 0), 0u) << why;
  EXPECT_EQ(unreachableAdvice(why), "check the address's spelling and this machine's DNS");
}

// GStreamer's HTTP source alone says "Internal data stream error" for a refused connection.
TEST(NetworkProbe, AnHttpSourceOnARefusedPortSaysSo) {
  gst_init(nullptr, nullptr);
  GstElementFactory* soup = gst_element_factory_find("souphttpsrc");
  if (!soup) GTEST_SKIP() << "GStreamer's souphttpsrc is not installed (gstreamer1.0-plugins-good)";
  gst_object_unref(soup);
  const LocalPort closed(false);
  const std::string uri = "http://127.0.0.1:" + std::to_string(closed.port()) + "/clip.mp4";
  SourceOptions o;
  o.openTimeout = 20s;
  try {
    Source src(SourceSpec::uri(uri), o);
    FAIL() << "the source opened";
  } catch (const SourceError& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("cannot be reached: 127.0.0.1 refused the connection on port " + std::to_string(closed.port()) +
                        ": check that its server is running"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("Internal data stream error"), std::string::npos) << text;
  }
}

}  // namespace
