#include <iostream>

#include "dashboard/cli/commands.h"
#include "dashboard/nightly/nightly.h"
#include "dashboard/site/render.h"
#include "dashboard/store/history.h"

namespace ompscale::dashboard {

int run_render(const RenderArguments& a) {
  Database db = open_history(a.db, true);
  const RenderResult r = render_site(db, a.out, a.options, a.full);
  std::cout << a.out << ": " << r.written.size() << " pages written, " << r.unchanged.size()
            << " unchanged\n";
  return 0;
}

int run_nightly_command(const NightlyArguments& a) {
  return run_nightly(read_nightly_config(a.config), std::cout);
}

}  // namespace ompscale::dashboard
