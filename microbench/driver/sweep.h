#pragma once
// The sweep: measures every configuration of a plan in interleaved batches, in worker processes,
// judges each batch by its noise canary, measures slow or invalid batches again (a bounded number
// of times), and appends whole batches to the results file as they finish.
//
// Order: round r runs batch r of every configuration; within a round each setting (runtime,
// binding, places) gets one worker process, settings in rotating order, the setting's batches in
// a shuffled order. A configuration is complete when it has --reps valid values of its primary
// metric (direct: avg_cost, epcc: overhead); it gets at most reps/batch + --max-remeasure batches.
//
// SIGINT/SIGTERM: the running worker is stopped, its unfinished batch is dropped whole, the files
// stay valid, and run_sweep returns 130 after printing the command that resumes.

#include "microbench/catalogue.h"
#include "microbench/driver/run_options.h"

namespace ompscale::microbench {

/// Runs the sweep; returns the exit status (0 complete, 130 interrupted). Throws UsageError and
/// InputError for bad options and files (before anything is measured).
int run_sweep(const RunOptions& options);

/// The metric whose valid values count towards --reps.
const char* primary_metric(Method method);

}  // namespace ompscale::microbench
