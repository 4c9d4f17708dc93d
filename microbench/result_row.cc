#include "microbench/result_row.h"

#include <ctime>

#include <fmt/format.h>

#include "common/csv.h"

namespace ompscale::microbench {

const std::string& results_header() {
  static const std::string header =
      "construct,method,metric,threads,thread_class,bind,places,runtime,runtime_version,compiler,"
      "platform,param,param_value,rep,value,unit,valid,canary_ns,run_id,timestamp,oversubscribed\n";
  return header;
}

std::string format_row(const ResultRow& row) {
  return csv_line({row.construct, row.method, row.metric, std::to_string(row.threads),
                   row.thread_class, row.bind, row.places, row.runtime, row.runtime_version,
                   row.compiler, row.platform, row.param, row.param_value, std::to_string(row.rep),
                   fmt::format("{:.6f}", row.value), row.unit, row.valid ? "1" : "0",
                   fmt::format("{:.1f}", row.canary_ns), row.run_id, row.timestamp,
                   row.oversubscribed ? "1" : "0"});
}

}  // namespace ompscale::microbench
