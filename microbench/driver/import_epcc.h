#pragma once
// `ompbench import-epcc`: turns the text output of the EPCC OpenMP micro-benchmark suite
// (syncbench, schedbench, taskbench, arraybench; versions 3.x and 4.0) into results-file rows
// (result_row.h), so measurements made with EPCC's own programs feed the modeler like ompbench's.
// docs/import-epcc.md has the mapping table, the decisions behind it and examples of both formats.
//
// What EPCC prints, per run: a header ("Running OpenMP benchmark version 4.0", "\t2 thread(s)",
// ...) and then one block per measurement:
//
//   --------------------------------------------------------
//   Computing PARALLEL time using 2560 reps
//
//   Sample_size       Mean       Median     Min        Max        StdDev     Outliers
//    20               0.365511   0.364020   0.357312   0.381276   0.006044   1
//   PARALLEL time         = 0.365511 microseconds +/- 0.011846
//   PARALLEL overhead     = 0.263198 microseconds +/- 0.012691
//   PARALLEL median_ovrhd = 0.261819 microseconds
//
// (3.x prints "Average Min Max S.D. Outliers" and no median lines.) EPCC keeps the outer
// repetitions to itself, so a block yields its summary statistics, one row per statistic, all in
// microseconds per inner repetition:
//
//   metric           from                                  versions
//   overhead         "NAME overhead = X"                   3.x, 4.0   (test mean - reference mean)
//   overhead_median  "NAME median_ovrhd = X"               4.0        (test median - ref. median)
//   time_mean        the statistics row's Mean / Average   3.x, 4.0
//   time_median      the statistics row's Median           4.0
//   time_min         Min                                   3.x, 4.0
//   time_max         Max                                   3.x, 4.0
//   time_sd          StdDev / S.D.                         3.x, 4.0
//
// Reference blocks ("reference time 1", ...) have no overhead; their time_* rows go under
// construct "epcc_reference" with param "reference" = "<suite>-<n>" (e.g. "sync-2"), so the
// baseline every overhead was computed against stays in the results.

#include <string>
#include <string_view>
#include <vector>

#include "microbench/catalogue.h"
#include "microbench/result_row.h"

namespace ompscale::microbench {

struct EpccImportOptions {
  // Columns EPCC output does not carry, copied into every row. Empty means unknown, as in
  // ompbench's own rows when the environment variable or detection is missing.
  std::string bind;             // OMP_PROC_BIND of the EPCC run
  std::string places;           // OMP_PLACES of the EPCC run
  std::string runtime;          // "libgomp", "libomp"
  std::string runtime_version;  // e.g. "12.2.0"
  std::string compiler;         // e.g. "gcc-12.2.0"; also decides what DYNAMIC meant (see docs)
  std::string platform;         // platform name
  std::string run_id;           // identifies this import in the results file
  // Thread count for runs whose header is missing (a file cut from a larger log). A header's
  // "N thread(s)" line always wins. 0: the file must state it.
  int threads = 0;
};

struct EpccImport {
  std::vector<ResultRow> rows;
  // "FILE:LINE: message" for what was imported but needs a human's eye: blocks with names not in
  // the mapping table, values EPCC printed as nan, a schedbench loop length that differs from
  // ompbench's, a header contradicting options.threads, runs without any block, EPCC versions
  // other than 3.x and 4.x.
  std::vector<std::string> warnings;
};

// Parses one EPCC output text, which may hold several runs (e.g. `syncbench; schedbench` into one
// log); `file` names it in messages. CRLF line ends and a UTF-8 byte order mark are accepted;
// lines EPCC prints that carry nothing for the results (delay length, "ref time delays = ...")
// are skipped.
//
// Rows: method "epcc", unit "us", valid, canary_ns 0, timestamp "" (EPCC prints no date),
// thread_class "" (the importer knows no platform classes), oversubscribed 0 (the hardware is
// unknown). rep counts the earlier blocks of the same construct, parameter and thread count in
// this text (0 for the first), so three runs concatenated into one log give reps 0, 1, 2.
//
// Throws InputError(file, line, cause) for anything it cannot interpret: input without the EPCC
// header or blocks, a "Computing" line of another form, a statistics row or footer value that is
// not a number, a block cut short (the line is the block's "Computing" line), a block with two
// statistics tables or two footers of one kind (a garbled "Computing" line), no thread count
// (neither header nor options.threads), EPCC's own "Compiler has optimised reference loop away"
// stop.
EpccImport import_epcc(std::string_view text, const std::string& file,
                       const EpccImportOptions& options);

// Where one EPCC block name lands (docs/import-epcc.md, "Mapping").
struct EpccConstruct {
  std::string construct;       // catalogue name, or EPCC's name lowercased with '_' for blanks
  std::string param;           // "chunk", "array_size" or ""
  std::string param_value;     // the number in the block name, "" when none
  Suite suite = Suite::kSync;  // the EPCC program; meaningful only when `known`
  bool in_catalogue = false;   // construct is one of ompbench's (catalogue.h)
  bool known = false;          // the name is in the mapping table; false: imported with a warning
};

// The mapping for block name `name` as EPCC prints it ("PARALLEL FOR", "DYNAMIC 8"). Spaces and
// underscores are interchangeable and case does not matter, so --measureonly spellings
// ("PARALLEL_FOR") map too.
EpccConstruct epcc_construct(std::string_view name);

}  // namespace ompscale::microbench
