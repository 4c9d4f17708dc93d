#include <iostream>

#include "dashboard/cli/commands.h"
#include "dashboard/nightly/nightly.h"
#include "dashboard/site/render.h"
#include "dashboard/store/history.h"

namespace ompscale::dashboard {

int run_render(const RenderArguments& a) {
  Database db = open_history(a.db, true);
  const std::vector<std::string> files = render_site(db, a.out, a.options);
  std::cout << a.out << ": " << files.size() << " pages\n";
  return 0;
}

int run_nightly_command(const NightlyArguments& a) {
  return run_nightly(read_nightly_config(a.config), std::cout);
}

}  // namespace ompscale::dashboard
