// The direct method's runner: the team state per thread count (offsets, causality check, window),
// one batch per request, and the metrics of direct.h computed from the stamps the round loops of
// constructs/direct_kernels.h collected.

#include "microbench/direct.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/text.h"
#include "microbench/constructs/direct_kernels.h"
#include "microbench/direct_metrics.h"
#include "sync/clock.h"

namespace ompscale::microbench {

namespace {

enum class Shape {
  kInTeam,       // the construct runs inside the measuring team
  kLoop,         // in-team worksharing loop: also stamps each thread's first iteration
  kTeamCreating  // the construct opens the team; only the master is released
};

std::optional<Shape> shape_of(std::string_view name) {
  for (std::string_view creating : {"parallel", "parallel_for", "reduction", "firstprivate",
                                    "private", "firstprivate_array", "copyprivate", "copyin"})
    if (name == creating) return Shape::kTeamCreating;
  for (std::string_view loop :
       {"for", "for_static", "for_dynamic_monotonic", "for_dynamic_nonmonotonic",
        "for_guided_monotonic", "for_guided_nonmonotonic"})
    if (name == loop) return Shape::kLoop;
  for (std::string_view in_team :
       {"barrier", "barrier_late", "single", "masked", "critical", "lock_contended",
        "lock_uncontended", "lock_hint_contended", "lock_hint_uncontended", "nest_lock", "ordered",
        "atomic_update", "atomic_seq_cst", "flush", "taskwait", "taskgroup", "task_barrier"})
    if (name == in_team) return Shape::kInTeam;
  return std::nullopt;
}

bool parse_positive(std::string_view text, int& value) {
  const auto parsed = parse_integer(text, 1, INT_MAX);
  if (parsed) value = static_cast<int>(*parsed);
  return parsed.has_value();
}

/// What one batch runs.
struct BatchPlan {
  std::string_view construct;
  Shape shape;
  int param;  // chunk or array_size; 0 when the construct has none
  int threads;
  int warmup;  // rounds run before the measured ones, not reported
  int count;   // measured rounds
};

/// Appends one batch's samples, numbering repetitions from the request's first_rep.
class SampleSink {
 public:
  SampleSink(std::vector<Sample>& samples, int first_rep)
      : samples_(samples), first_rep_(first_rep) {}
  void add(const char* metric, int rep_index, double value_ns, bool valid) {
    samples_.push_back(Sample{metric, first_rep_ + rep_index, value_ns, valid});
  }

 private:
  std::vector<Sample>& samples_;
  int first_rep_;
};

/// Late and overrun rounds among a batch's measured rounds.
struct RoundTally {
  int late = 0;
  int overrun = 0;
  int inconsistent = 0;  // rounds whose stamps no region could produce (direct_metrics.h)
};

RoundTally tally_rounds(const std::vector<sync::RoundOutcome>& outcomes, int warmup) {
  RoundTally tally;
  for (std::size_t round = static_cast<std::size_t>(warmup); round < outcomes.size(); ++round) {
    tally.late += outcomes[round].late ? 1 : 0;
    tally.overrun += outcomes[round].overrun ? 1 : 0;
  }
  return tally;
}

/// Metrics of in-team constructs, per round, from master-corrected stamps.
void add_in_team_samples(const direct::InTeamBatch& batch, const sync::OffsetTable& offsets,
                         bool loop, int warmup, SampleSink& sink) {
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  for (int round = warmup; round < batch.rounds; ++round) {
    double last_in = -kInfinity;
    for (int tid = 0; tid < batch.threads; ++tid)
      last_in = std::max(last_in, offsets.to_master(tid, batch.in.at(tid, round)));
    double first_out = kInfinity, last_out = -kInfinity, out_sum = 0;
    double enter_sum = 0, enter_max = -kInfinity;
    int entered = 0;
    for (int tid = 0; tid < batch.threads; ++tid) {
      const double out = offsets.to_master(tid, batch.out.at(tid, round)) - last_in;
      first_out = std::min(first_out, out);
      last_out = std::max(last_out, out);
      out_sum += out;
      if (batch.enter.at(tid, round) == direct::kNoStamp) continue;  // no iteration for tid
      const double enter = offsets.to_master(tid, batch.enter.at(tid, round)) - last_in;
      enter_sum += enter;
      enter_max = std::max(enter_max, enter);
      ++entered;
    }
    const sync::RoundOutcome& outcome = batch.outcomes[static_cast<std::size_t>(round)];
    const bool valid = outcome.valid();
    const int rep = round - warmup;
    sink.add("min_cost", rep, sync::ticks_to_ns(first_out), valid);
    sink.add("avg_cost", rep, sync::ticks_to_ns(out_sum / batch.threads), valid);
    sink.add("max_cost", rep, sync::ticks_to_ns(last_out), valid);
    if (loop) {
      // Some thread always runs an iteration (the loop has 128 per thread), so entered >= 1.
      sink.add("enter_avg", rep, sync::ticks_to_ns(enter_sum / entered), valid);
      sink.add("enter_max", rep, sync::ticks_to_ns(enter_max), valid);
    }
    sink.add("release_skew", rep, outcome.release_skew_ns, valid);
  }
}

/// Metrics of team-creating constructs, per round; "last in" is the master's stamp before. No
/// release_skew: only the master is released, and the spread of one release is always 0. Returns
/// the rounds whose stamps were inconsistent (direct_metrics.h), written valid=0.
int add_team_creating_samples(const direct::TeamCreatingBatch& batch,
                              const sync::OffsetTable& offsets, int warmup, SampleSink& sink) {
  const double tolerance = sync::ns_to_ticks(offsets.max_uncertainty_ns());
  std::vector<double> first(static_cast<std::size_t>(batch.threads));
  std::vector<double> end(first.size());
  int inconsistent = 0;
  for (int round = warmup; round < batch.rounds; ++round) {
    const auto index = static_cast<std::size_t>(round);
    const double before = offsets.to_master(0, batch.before[index]);
    for (int tid = 0; tid < batch.threads; ++tid) {
      first[static_cast<std::size_t>(tid)] =
          offsets.to_master(tid, batch.first.at(tid, round)) - before;
      end[static_cast<std::size_t>(tid)] =
          offsets.to_master(tid, batch.end.at(tid, round)) - before;
    }
    const TeamCreatingMetrics m = team_creating_metrics(
        first, end, offsets.to_master(0, batch.after[index]) - before, tolerance);
    inconsistent += m.consistent ? 0 : 1;
    const bool valid = batch.outcomes[index].valid() && m.consistent;
    const int rep = round - warmup;
    sink.add("fork_avg", rep, sync::ticks_to_ns(m.fork_avg), valid);
    sink.add("fork_max", rep, sync::ticks_to_ns(m.fork_max), valid);
    sink.add("join", rep, sync::ticks_to_ns(m.join), valid);
    sink.add("total", rep, sync::ticks_to_ns(m.total), valid);
    sink.add("min_cost", rep, sync::ticks_to_ns(m.min_cost), valid);
    sink.add("avg_cost", rep, sync::ticks_to_ns(m.avg_cost), valid);
    sink.add("max_cost", rep, sync::ticks_to_ns(m.max_cost), valid);
  }
  return inconsistent;
}

/// Runs one batch of an in-team construct and appends its samples; returns why it cannot run
/// ("" when it ran).
std::string run_in_team_batch(const BatchPlan& plan, const sync::LocalClock* clocks,
                              const sync::OffsetTable& offsets, sync::WindowRelease& window,
                              SampleSink& sink, RoundTally& tally) {
  direct::InTeamBatch batch(plan.threads, plan.warmup + plan.count, clocks, &window);
  std::string unavailable = direct::run_in_team_construct(plan.construct, plan.param, batch);
  if (!unavailable.empty()) return unavailable;
  add_in_team_samples(batch, offsets, plan.shape == Shape::kLoop, plan.warmup, sink);
  tally = tally_rounds(batch.outcomes, plan.warmup);
  return "";
}

/// The same for a team-creating construct; `master_window` releases the master alone.
std::string run_team_creating_batch(const BatchPlan& plan, const sync::LocalClock* clocks,
                                    const sync::OffsetTable& offsets,
                                    sync::WindowRelease& master_window, SampleSink& sink,
                                    RoundTally& tally) {
  direct::TeamCreatingBatch batch(plan.threads, plan.warmup + plan.count, clocks, &master_window);
  std::string unavailable = direct::run_team_creating_construct(plan.construct, plan.param, batch);
  if (!unavailable.empty()) return unavailable;
  const int inconsistent = add_team_creating_samples(batch, offsets, plan.warmup, sink);
  tally = tally_rounds(batch.outcomes, plan.warmup);
  tally.inconsistent = inconsistent;
  return "";
}

}  // namespace

/// The state of one team size. It is calibrated in one parallel region and used in later ones:
/// both libgomp and libomp give a non-nested region of the same size the same pool threads under
/// the same thread ids, so thread tid's offset stays valid across regions.
struct DirectRunner::Team {
  Team(int threads, const DirectOptions& options);

  /// The one-thread window that releases the master for team-creating constructs (created and
  /// piloted at the first such batch).
  sync::WindowRelease& master_window(const DirectOptions& options);

  int threads;
  std::vector<sync::LocalClock> clocks;  // index = thread id; carries the injected skew
  std::string unavailable;               // non-empty when the runtime cannot form the team
  std::vector<sync::OffsetEstimate> estimates;
  sync::OffsetTable offsets;
  sync::CausalityResult causality;
  std::unique_ptr<sync::WindowRelease> window;  // releases the whole team (in-team constructs)
  std::unique_ptr<sync::WindowRelease> master_only_window;
  int rounds = 0;
  int late_rounds = 0;
  int overrun_rounds = 0;
  int inconsistent_rounds = 0;
};

DirectRunner::Team::Team(int threads, const DirectOptions& options) : threads(threads) {
  for (int tid = 0; tid < threads; ++tid) {
    const auto index = static_cast<std::size_t>(tid);
    clocks.push_back(
        sync::LocalClock{index < options.skew_ticks.size() ? options.skew_ticks[index] : 0});
  }
  // Each step is a region of its own; a region with a smaller team (on_team returns false) runs
  // nothing, so no protocol waits for a thread that is not there.
  sync::OffsetCalibrator calibrator(threads, options.calibration);
  bool complete =
      direct::on_team(threads, [&](int tid) { calibrator.participate(tid, clocks[tid]); });
  if (complete) {
    estimates = calibrator.estimates();
    offsets = calibrator.table();
  }
  if (complete && options.causality_rounds > 0) {
    sync::CausalityCheck check(threads, estimates, options.causality_rounds);
    complete = direct::on_team(threads, [&](int tid) { check.participate(tid, clocks[tid]); });
    causality = check.result();
  }
  if (complete) {
    window = std::make_unique<sync::WindowRelease>(threads, offsets, options.window);
    complete = direct::on_team(threads, [&](int tid) { window->pilot(tid, clocks[tid]); });
  }
  if (!complete) unavailable = direct::incomplete_team(threads);
}

sync::WindowRelease& DirectRunner::Team::master_window(const DirectOptions& options) {
  if (!master_only_window) {
    // The master's offset to itself is zero.
    master_only_window = std::make_unique<sync::WindowRelease>(
        1, sync::OffsetTable(std::vector<sync::OffsetEstimate>(1)), options.window);
    master_only_window->pilot(0, clocks[0]);
  }
  return *master_only_window;
}

DirectRunner::DirectRunner(DirectOptions options) : options_(std::move(options)) {
  sync::init_clock();
}

DirectRunner::~DirectRunner() {
  for (Team* team : teams_) delete team;
}

DirectRunner::Team& DirectRunner::team(int threads) {
  for (Team* team : teams_)
    if (team->threads == threads) return *team;
  teams_.push_back(new Team(threads, options_));
  return *teams_.back();
}

BatchResult DirectRunner::run(const BatchRequest& request) {
  BatchResult result;
  const ConstructInfo& construct = *request.construct;
  const std::optional<Shape> shape = shape_of(construct.name);
  if (!shape) {
    result.unavailable = "the direct method does not measure " + std::string(construct.name);
    return result;
  }
  int param = 0;
  if (!construct.param.empty()) {
    const std::string& text = request.param_value.empty() && !construct.default_values.empty()
                                  ? construct.default_values.front()
                                  : request.param_value;
    if (!parse_positive(text, param)) {
      result.unavailable =
          std::string(construct.param) + " must be a positive integer, not \"" + text + "\"";
      return result;
    }
  }
  if (request.threads < 1) {
    result.unavailable = "the direct method needs at least one thread";
    return result;
  }
  Team& team = this->team(request.threads);
  if (!team.unavailable.empty()) {
    result.unavailable = team.unavailable;
    return result;
  }

  const BatchPlan plan{construct.name,
                       *shape,
                       param,
                       request.threads,
                       std::max(options_.warmup, 0),
                       std::max(request.count, 0)};
  SampleSink sink(result.samples, request.first_rep);
  RoundTally tally;
  sync::WindowRelease& window =
      plan.shape == Shape::kTeamCreating ? team.master_window(options_) : *team.window;
  result.unavailable =
      plan.shape == Shape::kTeamCreating
          ? run_team_creating_batch(plan, team.clocks.data(), team.offsets, window, sink, tally)
          : run_in_team_batch(plan, team.clocks.data(), team.offsets, window, sink, tally);
  if (!result.unavailable.empty()) return result;

  // Warm-up rounds neither count nor adapt the window: they absorb the team's wake-up.
  team.rounds += plan.count;
  team.late_rounds += tally.late;
  team.overrun_rounds += tally.overrun;
  team.inconsistent_rounds += tally.inconsistent;
  if (plan.count > 0) window.end_batch(plan.count, tally.late);
  return result;
}

std::vector<TeamCalibration> DirectRunner::calibrations() const {
  std::vector<TeamCalibration> calibrations;
  for (const Team* team : teams_) {
    if (!team->unavailable.empty()) continue;
    TeamCalibration calibration;
    calibration.threads = team->threads;
    calibration.offsets = team->estimates;
    calibration.causality = team->causality;
    calibration.window_ns = team->window->window_ns();
    calibration.pilot_latency_ns = team->window->pilot_latency_ns();
    calibration.rounds = team->rounds;
    calibration.late_rounds = team->late_rounds;
    calibration.overrun_rounds = team->overrun_rounds;
    calibration.inconsistent_rounds = team->inconsistent_rounds;
    calibrations.push_back(std::move(calibration));
  }
  return calibrations;
}

}  // namespace ompscale::microbench
