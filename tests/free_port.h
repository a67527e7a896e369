// FreePort — a TCP port free on 127.0.0.1 now (the kernel's pick for port 0), for a test's
// rendezvous (rank 0 serves it). 0 if none could be had. FreePortIn: one in a given range.
#ifndef KSCOPE_TESTS_FREE_PORT_H_
#define KSCOPE_TESTS_FREE_PORT_H_

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "absl/strings/str_format.h"

namespace kscope::testing {

// `port` if a socket can bind it on 127.0.0.1 now (for 0: the kernel's pick), else 0.
inline int BindablePort(int port) {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  socklen_t size = sizeof(address);
  const bool bound = bind(s, reinterpret_cast<sockaddr*>(&address), size) == 0 &&
                     getsockname(s, reinterpret_cast<sockaddr*>(&address), &size) == 0;
  close(s);
  return bound ? ntohs(address.sin_port) : 0;
}

inline int FreePort() { return BindablePort(0); }

// A free port in first..last, searched from a place that differs between processes; 0 if none.
inline int FreePortIn(int first, int last) {
  const int count = last - first + 1;
  for (int i = 0, start = static_cast<int>(getpid()) % count; i < count; ++i) {
    if (const int port = BindablePort(first + (start + i) % count)) return port;
  }
  return 0;
}

// tcp://127.0.0.1:<a free port>
inline std::string TcpRendezvous() { return absl::StrFormat("tcp://127.0.0.1:%d", FreePort()); }

}  // namespace kscope::testing

#endif  // KSCOPE_TESTS_FREE_PORT_H_
