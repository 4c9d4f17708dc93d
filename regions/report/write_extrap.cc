// Region times in Extra-P's text format, so Extra-P users can cross-check our models
// (docs/ompscan-report.md, "Extra-P text"). One input (or inputs without sizes): parameter
// "threads" at the reference input, written by the modeler's exporter. Several sized inputs:
// parameters "threads" and "input", one POINTS entry per measured (threads, size). Extra-P needs
// every region at every point: regions measured at fewer are left out and named in a comment.

#include "modeler/io/write_extrap.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>

#include "common/error.h"
#include "common/text_table.h"
#include "regions/report/writers.h"

namespace ompscale::regions::report {

namespace {

// Extra-P reads one line per keyword: control characters must not split a name.
std::string single_line(std::string text) {
  std::replace_if(
      text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }, ' ');
  return text;
}

std::string left_out_comment(const std::vector<std::string>& left_out) {
  std::string out;
  for (const std::string& label : left_out) {
    out += fmt::format("# left out (not measured at every point): {}\n", single_line(label));
  }
  return out;
}

std::string runtime_comment(const Report& r) {
  return fmt::format("# measured on {}\n", single_line(measured_runtime_words(r.runtime)));
}

std::string single_parameter(const Report& r) {
  const Measurements& m = r.measurements;
  std::vector<int> threads;
  for (const ProgramPoint& p : m.program) {
    if (p.input == r.reference_input) threads.push_back(p.threads);
  }
  std::sort(threads.begin(), threads.end());
  modeler::Dataset data;
  data.parameter = "threads";
  data.key_columns = {"metric", "region"};
  std::vector<std::string> left_out;
  for (const RegionReport& rr : r.regions) {
    std::vector<modeler::Sample> samples;
    std::size_t points = 0;
    for (int t : threads) {
      const RegionPoint* p = rr.region.find(r.reference_input, t);
      if (p == nullptr) break;
      ++points;
      for (double v : p->times) samples.push_back({static_cast<double>(t), v});
    }
    if (points != threads.size()) {
      left_out.push_back(rr.region.label);
      continue;
    }
    data.kernels.push_back(modeler::Kernel::from_samples({"time", rr.region.label}, samples));
  }
  if (data.kernels.empty()) {
    throw UsageError(
        fmt::format("no region was measured at every thread count of input {}: "
                    "nothing to export in Extra-P format",
                    r.reference_input));
  }
  return fmt::format("# ompscan report of {}: region times in seconds at input {}\n", r.directory,
                     r.reference_input) +
         runtime_comment(r) + left_out_comment(left_out) + modeler::format_extrap_text(data);
}

std::string two_parameters(const Report& r) {
  const Measurements& m = r.measurements;
  auto size_of = [&](const std::string& input) {
    for (std::size_t i = 0; i < m.inputs.size(); ++i) {
      if (m.inputs[i].name == input) return r.input_sizes[i];
    }
    return 0.0;
  };
  std::vector<std::pair<int, std::string>> points;  // threads, input; in program order
  for (const ProgramPoint& p : m.program) points.emplace_back(p.threads, p.input);
  std::string body;
  std::vector<std::string> left_out;
  for (const RegionReport& rr : r.regions) {
    std::string data;
    bool complete = true;
    for (const auto& [threads, input] : points) {
      const RegionPoint* p = rr.region.find(input, threads);
      if (p == nullptr) {
        complete = false;
        break;
      }
      data += "DATA";
      for (double v : p->times) {
        data += ' ';
        data += format_exact(v);
      }
      data += "\n";
    }
    if (!complete) {
      left_out.push_back(rr.region.label);
      continue;
    }
    body += fmt::format("REGION {}\n{}", single_line(rr.region.label), data);
  }
  if (body.empty()) {
    throw UsageError(
        "no region was measured at every (threads, input): nothing to export in "
        "Extra-P format");
  }
  std::string out = fmt::format("# ompscan report of {}: region times in seconds\n", r.directory) +
                    runtime_comment(r);
  out += left_out_comment(left_out);
  out += "PARAMETER threads\nPARAMETER input\nPOINTS";
  for (const auto& [threads, input] : points) {
    out += fmt::format(" ( {} {} )", threads, format_exact(size_of(input)));
  }
  out += "\n\nMETRIC time\n" + body;
  return out;
}

}  // namespace

std::string format_extrap(const Report& r) {
  if (r.measurements.inputs.size() > 1 && !r.input_sizes.empty()) return two_parameters(r);
  return single_parameter(r);
}

}  // namespace ompscale::regions::report
