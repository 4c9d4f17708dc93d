#include "common/host_name.h"

#include <unistd.h>

namespace ompscale {

std::string host_name() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) return "";
  return host;
}

}  // namespace ompscale
