// The EPCC method: delay calibration, inner-repetition calibration, the interleaved outer loop and
// the overhead samples. The kernels are in constructs/epcc_*.cc, the arithmetic in
// constructs/epcc_calibration.cc.
#include "microbench/epcc.h"

#include <omp.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <string>
#include <vector>

#include "common/text.h"
#include "microbench/constructs/epcc_calibration.h"
#include "microbench/constructs/epcc_cpu_wait.h"
#include "microbench/constructs/epcc_kernels.h"
#include "microbench/runtime_info.h"

namespace ompscale::microbench {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

double time_kernel(epcc::KernelFunction kernel, const epcc::KernelArgs& args) {
  const Clock::time_point start = Clock::now();
  kernel(args);
  return seconds_between(start, Clock::now());
}

// Seconds per delay(length), from one run of delays lasting about 100 us in all (EPCC times 1000
// delays of 0.1 us), so calibrating longer delays stays as quick.
double seconds_per_delay(int length, double target_seconds) {
  const int calls = std::clamp(static_cast<int>(100e-6 / target_seconds), 10, 1000);
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < calls; ++i) epcc::delay(length);
  return seconds_between(start, Clock::now()) / calls;
}

int calibrated_delay_length(double delay_us) {
  constexpr int kTimings = 5;
  const double target = delay_us * 1e-6;
  return epcc::calibrate_delay_length(
      [target](int length) { return seconds_per_delay(length, target); }, target, kTimings);
}

// The construct's parameter as a number, or an explanation of why it is unusable.
bool parse_param(const ConstructInfo& construct, const std::string& text, int& value,
                 std::string& error) {
  value = 0;
  if (construct.param.empty()) return true;
  const int max = construct.param == "array_size" ? epcc::kMaxArraySize : 1 << 30;
  const auto parsed = parse_integer(text, 1, max);
  if (parsed) value = static_cast<int>(*parsed);
  if (!parsed) {
    error = std::string(construct.name) + " needs " + std::string(construct.param) +
            " between 1 and " + std::to_string(max) + ", got '" + text + "'";
    return false;
  }
  return true;
}

// The team a num_threads(threads) region gets: fewer than asked (thread limit, dynamic
// adjustment) would break kernels that assume one loop iteration or lock per thread.
int team_size(int threads) {
  int size = 0;
#pragma omp parallel num_threads(threads)
  {
#pragma omp single
    size = omp_get_num_threads();
  }
  return size;
}

// Why the batch cannot be measured here ("" when it can); sets `param` from the request.
std::string unavailable_reason(const BatchRequest& request, const epcc::Kernel* kernel,
                               int& param) {
  const ConstructInfo& construct = *request.construct;
  if (kernel == nullptr) return "no EPCC kernel for " + std::string(construct.name);
  if (kernel->needs_lock_hint && init_lock_with_hint() == nullptr)
    return lock_hint_unavailable_reason();
  std::string error;
  if (!parse_param(construct, request.param_value, param, error)) return error;
  if (omp_in_parallel()) return "the EPCC method must run outside any parallel region";
  if (request.threads < 1 || team_size(request.threads) != request.threads)
    return "the runtime does not give a team of " + std::to_string(request.threads) + " threads";
  return "";
}

// With no more threads than CPUs, waiting for a CPU is a disturbance by other work; with more,
// the team's threads wait for each other's CPUs and that is part of the cost measured.
bool waits_disturb(int threads) {
  return threads <= omp_get_num_procs();
}

long calibrate_inner(const epcc::Kernel& kernel, epcc::KernelArgs args,
                     const EpccOptions& options) {
  const long multiple = kernel.inner_multiple * (kernel.split_over_threads ? args.threads : 1);
  // A probe that waited for a CPU is run again (a few times at most), so a calibration amid
  // intermittent load still sees the construct's own time.
  constexpr int kProbeAttempts = 3;
  const bool count_waits = waits_disturb(args.threads);
  const auto run_test = [&](long inner) {
    args.inner = inner;
    double seconds = 0;
    for (int attempt = 0; attempt < kProbeAttempts; ++attempt) {
      const double waited_before = count_waits ? epcc::cpu_wait_seconds() : 0;
      seconds = time_kernel(kernel.test, args);
      const double waited = count_waits ? epcc::cpu_wait_seconds() - waited_before : 0;
      if (waited <= epcc::kMaxCpuWaitFraction * seconds) break;
    }
    return seconds;
  };
  return epcc::calibrate_inner_reps(run_test, options.test_time_us * 1e-6, options.probes,
                                    multiple);
}

// A repetition this many times longer than the target, or a test shorter than
// kMinTestToTarget of it, ran in another machine phase than the calibration (other work now
// competes for the cores, or no longer does): calibrate again, once per batch, so the rest of
// the batch neither takes that long nor leaves per-call costs unamortised.
constexpr double kRecalibrationFactor = 10;

}  // namespace

EpccRunner::EpccRunner(EpccOptions options) : options_(options) {}

void EpccRunner::calibrate_delays() {
  if (delay_length_ >= 0) return;
  delay_length_ = calibrated_delay_length(options_.delay_us);
  late_delay_length_ = calibrated_delay_length(epcc::kLateArrivalUs);
}

BatchResult EpccRunner::run(const BatchRequest& request) {
  BatchResult result;
  const epcc::Kernel* kernel = epcc::find_kernel(request.construct->name);
  epcc::KernelArgs args;
  result.unavailable = unavailable_reason(request, kernel, args.param);
  if (!result.unavailable.empty()) return result;

  calibrate_delays();
  args.threads = request.threads;
  args.delay_length = delay_length_;
  args.late_delay_length = late_delay_length_;
  const auto key =
      std::make_tuple(std::string(request.construct->name), request.param_value, request.threads);
  auto cached = inner_reps_.find(key);
  args.inner =
      cached != inner_reps_.end() ? cached->second : calibrate_inner(*kernel, args, options_);

  // Reference and test alternate, one pair per outer repetition, so both see the same machine
  // phase (cross-core latency on a VM drifts over minutes). Times are kept per construct
  // execution, as a recalibration may change `inner` within the batch.
  const bool count_waits = waits_disturb(request.threads);
  const double target = options_.test_time_us * 1e-6;
  std::vector<epcc::OuterRep> reps;
  bool recalibrated = false;  // once per batch: a busy machine makes every repetition slow
  for (int rep = 0; rep < options_.warmup + request.count; ++rep) {
    const double waited_before = count_waits ? epcc::cpu_wait_seconds() : 0;
    const double reference = time_kernel(kernel->reference, args);
    const double test = time_kernel(kernel->test, args);
    const double waited = count_waits ? epcc::cpu_wait_seconds() - waited_before : 0;
    const double inner = static_cast<double>(args.inner);
    if (rep >= options_.warmup)
      reps.push_back({.reference_seconds = reference / inner,
                      .test_seconds = test / inner,
                      .cpu_wait_fraction = waited / (reference + test),
                      .test_to_target = test / target});
    const bool other_phase =
        reference + test > kRecalibrationFactor * target || test < epcc::kMinTestToTarget * target;
    if (other_phase && !recalibrated) {
      args.inner = calibrate_inner(*kernel, args, options_);
      recalibrated = true;
    }
  }

  const std::vector<bool> disturbed = epcc::disturbed_reps(reps);
  for (std::size_t i = 0; i < reps.size(); ++i)
    result.samples.push_back({.metric = "overhead",
                              .rep = request.first_rep + static_cast<int>(i),
                              .value_ns = (reps[i].test_seconds - reps[i].reference_seconds) * 1e9,
                              .valid = !disturbed[i]});
  // A mostly disturbed batch ran in a busy phase, and probably so did its calibration, which then
  // chose too few repetitions: calibrate again at the next batch.
  const auto disturbed_count = std::count(disturbed.begin(), disturbed.end(), true);
  if (2 * disturbed_count > static_cast<long>(disturbed.size()))
    inner_reps_.erase(key);
  else
    inner_reps_[key] = args.inner;
  return result;
}

}  // namespace ompscale::microbench
