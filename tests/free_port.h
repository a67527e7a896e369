// FreePort — a TCP port free on 127.0.0.1 now (the kernel's pick for port 0), for a test's
// rendezvous (rank 0 serves it). 0 if none could be had.
#ifndef KSCOPE_TESTS_FREE_PORT_H_
#define KSCOPE_TESTS_FREE_PORT_H_

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "absl/strings/str_format.h"

namespace kscope::testing {

inline int FreePort() {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof(address);
  const bool bound = bind(s, reinterpret_cast<sockaddr*>(&address), size) == 0 &&
                     getsockname(s, reinterpret_cast<sockaddr*>(&address), &size) == 0;
  close(s);
  return bound ? ntohs(address.sin_port) : 0;
}

// tcp://127.0.0.1:<a free port>
inline std::string TcpRendezvous() { return absl::StrFormat("tcp://127.0.0.1:%d", FreePort()); }

}  // namespace kscope::testing

#endif  // KSCOPE_TESTS_FREE_PORT_H_
