// Reading EPCC micro-benchmark output. The formats come from the suite's common.c: init() prints
// the header, printheader() the "Computing" line, stats() the statistics table, printfooter() and
// printreferencefooter() the footers (3.x: "NAME time     =", "NAME overhead ="; 4.0 adds the
// median lines and renames the reference footer to "mean time" / "median time").

#include "microbench/driver/import_epcc.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <climits>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "common/error.h"
#include "common/text.h"
#include "microbench/catalogue.h"

namespace ompscale::microbench {

namespace {

// ---------------------------------------------------------------------------------------------
// Block names

struct NameMapping {
  std::string_view epcc;  // normalised: upper case, single blanks
  std::string_view construct;
  Suite suite;
  bool in_catalogue;
};

// Blocks without a number in the name.
constexpr std::array<NameMapping, 30> kPlainNames = {{
    {"PARALLEL", "parallel", Suite::kSync, true},
    {"FOR", "for", Suite::kSync, true},
    {"PARALLEL FOR", "parallel_for", Suite::kSync, true},
    {"BARRIER", "barrier", Suite::kSync, true},
    // One thread (rotating) is late by one delay (0.1 us by default); ompbench's barrier_late
    // makes it 2 us, a different measurement.
    {"BARRIER VAR", "barrier_var", Suite::kSync, false},
    {"SINGLE", "single", Suite::kSync, true},
    {"CRITICAL", "critical", Suite::kSync, true},
    {"LOCK/UNLOCK", "lock_contended", Suite::kSync, true},  // 3.x: one lock, every thread
    {"LOCK CONTENDED", "lock_contended", Suite::kSync, true},
    {"LOCK CONTENDED HINT", "lock_hint_contended", Suite::kSync, true},
    {"LOCK UNCONTENDED", "lock_uncontended", Suite::kSync, true},
    {"LOCK UNCONTENDED HINT", "lock_hint_uncontended", Suite::kSync, true},
    {"ORDERED", "ordered", Suite::kSync, true},
    {"ATOMIC", "atomic_update", Suite::kSync, true},
    {"ATOMIC SEQCST", "atomic_seq_cst", Suite::kSync, true},
    {"REDUCTION", "reduction", Suite::kSync, true},
    {"STATIC", "for_static", Suite::kSched, true},  // schedule(static): no chunk, no param
    // monotonic:static is static by definition; kept apart so a runtime that differs shows.
    {"STATIC MONOTONIC", "static_monotonic", Suite::kSched, false},
    {"PARALLEL TASK", "task_all", Suite::kTask, true},
    {"PARALLEL TASK DEPS", "parallel_task_deps", Suite::kTask, false},
    {"MASTER TASK", "task_single", Suite::kTask, true},
    {"MASTER TASK DEPS", "master_task_deps", Suite::kTask, false},
    {"MASTER TASK BUSY SLAVES", "master_task_busy_slaves", Suite::kTask, false},
    {"CONDITIONAL TASK", "conditional_task", Suite::kTask, false},
    {"TASK WAIT", "taskwait", Suite::kTask, true},
    {"TASK BARRIER", "task_barrier", Suite::kTask, true},
    {"NESTED TASK", "task_nested", Suite::kTask, true},
    {"NESTED MASTER TASK", "nested_master_task", Suite::kTask, false},
    {"BRANCH TASK TREE", "branch_task_tree", Suite::kTask, false},
    {"LEAF TASK TREE", "task_tree", Suite::kTask, true},
}};

// Blocks named "KIND n": schedbench's chunk sizes, arraybench's array sizes.
struct NumberedMapping {
  std::string_view epcc;
  std::string_view construct;
  Suite suite;
  bool in_catalogue;
  std::string_view param;
};
constexpr std::array<NumberedMapping, 11> kNumberedNames = {{
    {"STATIC", "for_static", Suite::kSched, true, "chunk"},
    {"STATIC MONOTONIC", "static_monotonic", Suite::kSched, false, "chunk"},
    // schedule(dynamic,n) without a modifier is nonmonotonic since OpenMP 5.0 (monotonic for
    // code compiled for OpenMP 4.5 or older; docs/import-epcc.md).
    {"DYNAMIC", "for_dynamic_nonmonotonic", Suite::kSched, true, "chunk"},
    {"DYNAMIC MONOTONIC", "for_dynamic_monotonic", Suite::kSched, true, "chunk"},
    {"GUIDED", "for_guided_nonmonotonic", Suite::kSched, true, "chunk"},
    {"GUIDED MONOTONIC", "for_guided_monotonic", Suite::kSched, true, "chunk"},
    // num_tasks(iterations / n): tasks of n iterations, what grainsize(n) gives here.
    {"TASKLOOP", "taskloop", Suite::kSched, true, "chunk"},
    {"PRIVATE", "private", Suite::kData, true, "array_size"},
    {"FIRSTPRIVATE", "firstprivate_array", Suite::kData, true, "array_size"},
    {"COPYPRIVATE", "copyprivate", Suite::kData, true, "array_size"},
    {"COPYIN", "copyin", Suite::kData, true, "array_size"},
}};

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// Upper case, '_' as a blank, runs of blanks as one space, no blanks at the ends.
std::string normalise_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '_' || is_blank(c)) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// EPCC's name in ompbench's spelling: lower case, anything but letters and digits as '_'.
std::string fallback_construct(std::string_view normalised) {
  std::string out;
  for (char c : normalised) {
    const bool alnum = is_digit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    if (alnum) {
      out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out.empty() ? "unnamed" : out;
}

// ---------------------------------------------------------------------------------------------
// Lines and numbers

std::vector<std::string_view> split_blanks(std::string_view text) {
  std::vector<std::string_view> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_blank(text[i])) ++i;
    const std::size_t start = i;
    while (i < text.size() && !is_blank(text[i])) ++i;
    if (i > start) tokens.push_back(text.substr(start, i - start));
  }
  return tokens;
}

// A header line "<integer> <words>" such as "2 thread(s)"; nullopt for any other line.
std::optional<long long> header_count(std::string_view line, std::string_view words) {
  const std::size_t blank = line.find_first_of(" \t");
  if (blank == std::string_view::npos || !starts_with(trim(line.substr(blank)), words))
    return std::nullopt;
  return parse_integer(line.substr(0, blank), LLONG_MIN, LLONG_MAX);
}

// ---------------------------------------------------------------------------------------------
// The parser

constexpr std::string_view kHeader = "Running OpenMP benchmark version";
constexpr std::string_view kComputing = "Computing ";
constexpr std::string_view kStatsHeader = "Sample_size";
constexpr std::string_view kReferenceName = "reference time";
constexpr std::string_view kOptimisedAway = "Compiler has optimised reference loop away";

// One "Sample_size" table row.
struct Statistics {
  std::size_t line = 0;
  double mean = 0;
  std::optional<double> median;  // 4.0 only
  double min = 0;
  double max = 0;
  double sd = 0;
};

// A footer value ("NAME overhead = X microseconds +/- Y") and its line.
struct Footer {
  std::size_t line = 0;
  double value = 0;
};

struct Block {
  std::string name;  // as printed
  std::size_t line = 0;
  bool reference = false;
  bool awaiting_statistics = false;  // seen "Sample_size", not yet its row
  bool with_median = false;          // 4.0's table: Mean, Median, ...
  std::optional<Statistics> statistics;
  // Footers by kind: "time", "overhead", "median_ovrhd" (tests), "time" (3.x reference),
  // "mean time", "median time" (4.0 reference).
  std::map<std::string, Footer, std::less<>> footers;
};

struct Run {
  std::size_t line = 0;  // header line; 0 for blocks without a header
  int threads = 0;
  long long iters_per_thread = 0;  // schedbench 4.0 prints it; 0 = not printed; never cut to int
  std::size_t iters_line = 0;
  std::size_t blocks = 0;
  std::optional<Suite> suite;  // of the first block with a known name
  // Rows of reference blocks with the number in the block's name; their param_value waits for
  // `suite`.
  std::vector<std::pair<std::size_t, std::string>> reference_rows;
  bool warned_iters = false;
};

class Parser {
 public:
  Parser(const std::string& file, const EpccImportOptions& options)
      : file_(file), options_(options) {}

  EpccImport parse(std::string_view text) {
    std::size_t number = 0;
    std::size_t pos = 0;
    if (starts_with(text, "\xEF\xBB\xBF")) pos = 3;
    while (pos < text.size()) {
      std::size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      line(++number, text.substr(pos, end - pos));
      pos = end + 1;
    }
    finish_block(number, true);
    finish_run();
    if (runs_ == 0 && blocks_.empty()) {
      throw InputError(file_, text.empty() ? 0 : 1,
                       fmt::format("not EPCC micro-benchmark output: found neither the \"{}\" "
                                   "header nor a \"Computing NAME time using N reps\" block; "
                                   "expected what syncbench, schedbench, taskbench or arraybench "
                                   "print",
                                   kHeader));
    }
    if (blocks_.empty()) {
      throw InputError(file_, first_header_line_,
                       "EPCC header but no benchmark block after it: the run stopped before its "
                       "first measurement; rerun it");
    }
    assign_reps();
    return std::move(result_);
  }

 private:
  // The rows one block produced, numbered together by assign_reps().
  struct Emitted {
    std::size_t first_row = 0;
    std::size_t rows = 0;
  };

  void line(std::size_t number, std::string_view raw) {
    const std::string_view text = trim(raw);
    if (starts_with(text, kHeader)) {
      finish_block(number, false);
      finish_run();
      start_run(number, trim(text.substr(kHeader.size())));
      return;
    }
    if (starts_with(text, kOptimisedAway)) {
      throw InputError(file_, number,
                       "EPCC stopped here (\"Compiler has optimised reference loop away\"): the "
                       "run has no results after this point; recompile EPCC with lower "
                       "optimisation and rerun");
    }
    if (starts_with(text, kComputing)) {
      finish_block(number, false);
      start_block(number, text);
      return;
    }
    if (!block_) {
      header_line(number, text);
      return;
    }
    if (starts_with(text, kStatsHeader)) {
      if (block_->statistics || block_->awaiting_statistics) {
        throw InputError(file_, number,
                         fmt::format("a second statistics table in block {:?} (line {}): its "
                                     "\"Computing\" line is missing or garbled",
                                     block_->name, block_->line));
      }
      block_->awaiting_statistics = true;
      block_->with_median = text.find("Median") != std::string_view::npos;
      return;
    }
    if (block_->awaiting_statistics) {
      if (!text.empty()) statistics_row(number, text);
      return;
    }
    footer_line(number, text);
  }

  void start_run(std::size_t number, std::string_view version) {
    ++runs_;
    if (first_header_line_ == 0) first_header_line_ = number;
    run_ = Run{};
    run_->line = number;
    if (!starts_with(version, "3.") && !starts_with(version, "4.")) {
      warn(number, fmt::format("EPCC version {:?}: this importer knows the 3.x and 4.0 output "
                               "formats; check the imported values",
                               std::string(version)));
    }
  }

  // Lines between the header and the first block: the ones we need have a count first.
  void header_line(std::size_t number, std::string_view text) {
    if (!run_) return;
    if (const auto threads = header_count(text, "thread(s)")) {
      if (*threads < 1 || *threads > 1'000'000) {
        throw InputError(
            file_, number,
            fmt::format("thread count {} is not a positive number of threads", *threads));
      }
      run_->threads = static_cast<int>(*threads);
      if (options_.threads != 0 && options_.threads != run_->threads) {
        warn(number, fmt::format("the file says {} thread(s); the given thread count {} is used "
                                 "only for runs without a header",
                                 run_->threads, options_.threads));
      }
    } else if (const auto iters = header_count(text, "iterations per thread")) {
      run_->iters_per_thread = *iters;
      run_->iters_line = number;
    } else if (text.find("thread(s)") != std::string_view::npos) {
      throw InputError(file_, number,
                       fmt::format("expected \"N thread(s)\" with N a whole number, got {:?}",
                                   std::string(text)));
    }
  }

  void start_block(std::size_t number, std::string_view text) {
    // "Computing NAME time using N reps"; NAME may contain " time" ("reference time 1").
    constexpr std::string_view kUsing = " time using ";
    const std::string_view rest = text.substr(kComputing.size());
    const std::size_t at = rest.rfind(kUsing);
    const auto tail = at == std::string_view::npos ? std::vector<std::string_view>{}
                                                   : split_blanks(rest.substr(at + kUsing.size()));
    if (at == std::string_view::npos || at == 0 || tail.size() != 2 || tail[1] != "reps" ||
        !parse_integer(tail[0], LLONG_MIN, LLONG_MAX)) {
      throw InputError(file_, number,
                       fmt::format("expected \"Computing NAME time using N reps\" (EPCC 3.x or "
                                   "4.0), got {:?}",
                                   std::string(text)));
    }
    if (!run_) {
      // Blocks without a header: a piece cut out of a larger log.
      run_ = Run{};
    }
    if (run_->threads == 0) {
      if (options_.threads < 1) {
        throw InputError(
            file_, number,
            run_->line == 0
                ? "no EPCC header (\"N thread(s)\") before this block; give the thread count "
                  "with --threads"
                : fmt::format("the EPCC header at line {} has no \"N thread(s)\" line; give the "
                              "thread count with --threads",
                              run_->line));
      }
      run_->threads = options_.threads;
    }
    ++run_->blocks;
    block_ = Block{};
    block_->name = std::string(trim(rest.substr(0, at)));
    block_->line = number;
    block_->reference = starts_with(block_->name, kReferenceName);
  }

  void statistics_row(std::size_t number, std::string_view text) {
    const std::size_t columns = block_->with_median ? 7 : 6;
    const auto tokens = split_blanks(text);
    const auto expected = [&] {
      return fmt::format("expected the statistics row of {:?}: {} numbers ({}), got {:?}",
                         block_->name, columns,
                         block_->with_median ? "Sample_size Mean Median Min Max StdDev Outliers"
                                             : "Sample_size Average Min Max S.D. Outliers",
                         std::string(text));
    };
    if (tokens.size() != columns || !parse_integer(tokens.front(), LLONG_MIN, LLONG_MAX) ||
        !parse_integer(tokens.back(), LLONG_MIN, LLONG_MAX)) {
      throw InputError(file_, number, expected());
    }
    std::vector<double> values;
    for (std::size_t i = 1; i + 1 < tokens.size(); ++i) {
      const auto value = parse_double(tokens[i]);
      if (!value) throw InputError(file_, number, expected());
      values.push_back(*value);
    }
    Statistics stats;
    stats.line = number;
    std::size_t i = 0;
    stats.mean = values[i++];
    if (block_->with_median) stats.median = values[i++];
    stats.min = values[i++];
    stats.max = values[i++];
    stats.sd = values[i++];
    block_->statistics = stats;
    block_->awaiting_statistics = false;
  }

  // "NAME <kind> = <value> microseconds [+/- <value>]"; other lines are not ours.
  void footer_line(std::size_t number, std::string_view text) {
    const std::string& name = block_->name;
    if (!starts_with(text, name) || text.size() == name.size() || !is_blank(text[name.size()]))
      return;
    const std::string_view rest = trim(text.substr(name.size()));
    const std::size_t equals = rest.find('=');
    if (equals == std::string_view::npos) return;
    std::string kind;
    for (const auto word : split_blanks(rest.substr(0, equals))) {
      if (!kind.empty()) kind += ' ';
      kind += word;
    }
    static const std::set<std::string, std::less<>> kKinds = {"time", "overhead", "median_ovrhd",
                                                              "mean time", "median time"};
    if (!kKinds.contains(kind)) return;
    const auto tokens = split_blanks(rest.substr(equals + 1));
    const auto expected = [&] {
      return fmt::format("expected \"{} {} = X microseconds\" with X a number, got {:?}", name,
                         kind, std::string(text));
    };
    if (tokens.size() < 2 || tokens[1] != "microseconds")
      throw InputError(file_, number, expected());
    const auto value = parse_double(tokens[0]);
    if (!value) throw InputError(file_, number, expected());
    // The "+/- Y" part is 1.96 standard deviations, which the time_sd rows carry; it must still be
    // a number, or the line is not what EPCC printed.
    if (tokens.size() > 2 &&
        (tokens.size() != 4 || tokens[2] != "+/-" || !parse_double(tokens[3]))) {
      throw InputError(file_, number, expected());
    }
    if (!block_->footers.emplace(kind, Footer{number, *value}).second) {
      throw InputError(file_, number,
                       fmt::format("a second \"{} {} =\" line in block {:?} (line {}): the next "
                                   "block's \"Computing\" line is missing or garbled",
                                   name, kind, name, block_->line));
    }
  }

  // Checks the open block is whole and turns it into rows. `number` is the line that ended it.
  void finish_block(std::size_t number, bool at_end) {
    if (!block_) return;
    Block block = std::move(*block_);
    block_.reset();
    std::vector<std::string> needed;
    if (!block.statistics) {
      needed.push_back(block.awaiting_statistics ? "statistics row under \"Sample_size\""
                                                 : "\"Sample_size\" statistics table");
    }
    std::vector<std::string_view> kinds;
    if (block.reference) {
      kinds = block.with_median ? std::vector<std::string_view>{"mean time", "median time"}
                                : std::vector<std::string_view>{"time"};
    } else {
      kinds = block.with_median ? std::vector<std::string_view>{"time", "overhead", "median_ovrhd"}
                                : std::vector<std::string_view>{"time", "overhead"};
    }
    for (const auto kind : kinds) {
      if (!block.footers.contains(kind))
        needed.push_back(fmt::format("\"{} {} =\" line", block.name, kind));
    }
    if (!needed.empty()) {
      throw InputError(
          file_, block.line,
          fmt::format(
              "block {:?} is cut short: no {} before {}; the output is truncated or "
              "garbled, rerun the benchmark or delete the block",
              block.name, fmt::join(needed, ", no "),
              at_end ? std::string("the end of the input") : fmt::format("line {}", number)));
    }
    emit(block);
  }

  void emit(const Block& block) {
    ResultRow base;
    base.method = "epcc";
    base.threads = run_->threads;
    base.bind = options_.bind;
    base.places = options_.places;
    base.runtime = options_.runtime;
    base.runtime_version = options_.runtime_version;
    base.compiler = options_.compiler;
    base.platform = options_.platform;
    base.run_id = options_.run_id;
    base.unit = "us";
    base.valid = true;

    const std::size_t first_row = result_.rows.size();
    if (block.reference) {
      base.construct = "epcc_reference";
      base.param = "reference";
    } else {
      const EpccConstruct target = epcc_construct(block.name);
      base.construct = target.construct;
      base.param = target.param;
      base.param_value = target.param_value;
      if (!target.known) {
        if (unknown_names_.insert(normalise_name(block.name)).second) {
          warn(block.line, fmt::format("block {:?} is not in the EPCC mapping table; imported as "
                                       "construct {:?}, which no ompbench measurement shares",
                                       block.name, target.construct));
        }
      } else {
        if (!run_->suite) run_->suite = target.suite;
        if (target.suite == Suite::kSched && run_->iters_per_thread != 0 &&
            run_->iters_per_thread != kIterationsPerThread && !run_->warned_iters) {
          run_->warned_iters = true;
          warn(run_->iters_line,
               fmt::format("schedbench ran {} iterations per thread, ompbench's schedule "
                           "constructs run {}; EPCC's schedule overhead is per loop, so compare "
                           "these rows only with EPCC runs of the same loop length",
                           run_->iters_per_thread, kIterationsPerThread));
        }
      }
    }

    const auto add = [&](std::string_view metric, double value, std::size_t line) {
      if (!std::isfinite(value)) {
        // EPCC divides by zero for the standard deviation of a single outer repetition.
        warn(line,
             fmt::format("{} of {:?} is {}; no {} row for it{}", metric, block.name, value, metric,
                         metric == "time_sd" ? " (one outer repetition has no spread)" : ""));
        return;
      }
      ResultRow row = base;
      row.metric = std::string(metric);
      row.value = value;
      result_.rows.push_back(std::move(row));
    };
    if (!block.reference) {
      const Footer& overhead = block.footers.find("overhead")->second;
      add("overhead", overhead.value, overhead.line);
      if (const auto it = block.footers.find("median_ovrhd"); it != block.footers.end())
        add("overhead_median", it->second.value, it->second.line);
    }
    const Statistics& s = *block.statistics;
    add("time_mean", s.mean, s.line);
    if (s.median) add("time_median", *s.median, s.line);
    add("time_min", s.min, s.line);
    add("time_max", s.max, s.line);
    add("time_sd", s.sd, s.line);

    const std::size_t rows = result_.rows.size() - first_row;
    if (block.reference) {
      // "reference time 2" -> "2"; schedbench's lone "reference time" -> "1".
      const std::string_view number =
          trim(std::string_view(block.name).substr(kReferenceName.size()));
      const std::string n = number.empty() ? std::string("1") : std::string(number);
      for (std::size_t i = first_row; i < first_row + rows; ++i)
        run_->reference_rows.emplace_back(i, n);
    }
    blocks_.push_back(Emitted{first_row, rows});
  }

  // Names the run's reference rows after the suite its tests belong to: syncbench's "reference
  // time 1" and arraybench's are different loops.
  void finish_run() {
    if (!run_) return;
    if (run_->blocks == 0) {
      warn(run_->line, "EPCC header without any benchmark block after it; the run stopped early");
    }
    for (const auto& [row, n] : run_->reference_rows) {
      result_.rows[row].param_value =
          run_->suite ? fmt::format("{}-{}", to_string(*run_->suite), n) : n;
    }
    run_.reset();
  }

  void assign_reps() {
    std::map<std::string, int> seen;
    for (const Emitted& block : blocks_) {
      if (block.rows == 0) continue;
      const ResultRow& row = result_.rows[block.first_row];
      const std::string key = fmt::format("{}\x1f{}\x1f{}\x1f{}", row.construct, row.param,
                                          row.param_value, row.threads);
      const int rep = seen[key]++;
      for (std::size_t i = block.first_row; i < block.first_row + block.rows; ++i)
        result_.rows[i].rep = rep;
    }
  }

  void warn(std::size_t line, const std::string& message) {
    result_.warnings.push_back(line == 0 ? fmt::format("{}: {}", file_, message)
                                         : fmt::format("{}:{}: {}", file_, line, message));
  }

  const std::string& file_;
  const EpccImportOptions& options_;
  EpccImport result_;
  std::optional<Run> run_;
  std::optional<Block> block_;
  std::vector<Emitted> blocks_;
  std::set<std::string> unknown_names_;
  std::size_t runs_ = 0;
  std::size_t first_header_line_ = 0;
};

}  // namespace

EpccConstruct epcc_construct(std::string_view name) {
  const std::string normalised = normalise_name(name);
  EpccConstruct out;
  for (const NameMapping& m : kPlainNames) {
    if (m.epcc == normalised) {
      out.construct = std::string(m.construct);
      out.suite = m.suite;
      out.in_catalogue = m.in_catalogue;
      out.known = true;
      return out;
    }
  }
  const std::size_t blank = normalised.rfind(' ');
  if (blank != std::string::npos) {
    const std::string_view kind = std::string_view(normalised).substr(0, blank);
    const std::string_view number = std::string_view(normalised).substr(blank + 1);
    const auto value = parse_integer(number, LLONG_MIN, LLONG_MAX);
    if (value && *value > 0 && number.front() != '+' && number.front() != '-') {
      for (const NumberedMapping& m : kNumberedNames) {
        if (m.epcc == kind) {
          out.construct = std::string(m.construct);
          out.param = std::string(m.param);
          out.param_value = std::to_string(*value);
          out.suite = m.suite;
          out.in_catalogue = m.in_catalogue;
          out.known = true;
          return out;
        }
      }
    }
  }
  out.construct = fallback_construct(normalised);
  return out;
}

EpccImport import_epcc(std::string_view text, const std::string& file,
                       const EpccImportOptions& options) {
  return Parser(file, options).parse(text);
}

}  // namespace ompscale::microbench
