// The CSV report: one row per region, input and thread count (docs/ompscan-report.md, "CSV").
// RFC 4180 (common/csv.h); numbers read back exactly; serial regions leave the cause and task
// columns empty (they have no barriers or locks to blame, and no task records).

#include "common/csv.h"
#include "common/text.h"
#include "common/text_table.h"
#include "regions/report/writers.h"

namespace ompscale::regions::report {

namespace {

// docs/ompscan-report.md ("CSV") defines each column.
constexpr std::string_view kColumns =
    "rank,region_key,region,kind,input,threads,repetitions,executions,sampling_ratio,time_s,"
    "time_min_s,time_max_s,speedup,efficiency,lost_s,loss_imbalance_s,loss_walkthrough_s,"
    "loss_startup_s,loss_lock_contention_s,loss_lock_algorithm_s,loss_other_s,cost_imbalance_s,"
    "cost_walkthrough_s,cost_startup_s,cost_lock_contention_s,cost_lock_algorithm_s,"
    "potential_gain_s,tasks_created,tasks_executed,task_s,loss_task_wait_s,cost_task_wait_s,"
    "runtime,loss_team_start_s,cost_team_start_s";

void add_categories(std::vector<std::string>& row, const CategoryCosts& c) {
  for (double v : {c.imbalance, c.walkthrough, c.startup, c.lock_contention, c.lock_algorithm}) {
    row.push_back(format_exact(v));
  }
}

}  // namespace

std::string format_csv(const Report& r) {
  std::string out = csv_line(split(kColumns, ','));
  const std::string runtime = measured_runtime_words(r.runtime);
  std::size_t rank = 0;
  for (const RegionReport& rr : r.regions) {
    ++rank;
    const bool split = rr.region.kind != RegionKind::kSerial;
    for (const SeriesAnalysis& s : rr.series) {
      for (const PointAnalysis& p : s.points) {
        std::vector<std::string> row = {std::to_string(rank),
                                        rr.region.key,
                                        rr.region.label,
                                        std::string(to_string(rr.region.kind)),
                                        s.input,
                                        std::to_string(p.threads),
                                        std::to_string(p.repetitions),
                                        format_exact(p.executions),
                                        format_exact(p.sampling_ratio),
                                        format_exact(p.time),
                                        format_exact(p.time_min),
                                        format_exact(p.time_max),
                                        format_exact(p.speedup),
                                        format_exact(p.efficiency),
                                        format_exact(p.lost)};
        if (split) {
          add_categories(row, p.loss);
          row.push_back(format_exact(p.other));
          add_categories(row, p.cost);
        } else {
          row.insert(row.end(), 11, "");
        }
        row.push_back(format_exact(p.potential_gain));
        if (split) {
          for (double v :
               {p.tasks_created, p.tasks_executed, p.task, p.loss.task_wait, p.cost.task_wait}) {
            row.push_back(format_exact(v));
          }
        } else {
          row.insert(row.end(), 5, "");
        }
        row.push_back(runtime);
        if (split) {
          row.push_back(format_exact(p.loss.team_start));
          row.push_back(format_exact(p.cost.team_start));
        } else {
          row.insert(row.end(), 2, "");
        }
        out += csv_line(row);
      }
    }
  }
  return out;
}

}  // namespace ompscale::regions::report
