#include "modeler/io/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <span>
#include <sstream>

#include "common/error.h"
#include "common/text.h"
#include "modeler/io/write_common.h"

namespace ompscale::modeler {

namespace {

using Json = nlohmann::ordered_json;
using io_detail::TextTable;
using Align = TextTable::Align;

// A kernel's identity across files: its non-empty (column, value) pairs without the columns
// compared across, sorted, so files that order their key columns differently, or carry an
// always-empty extra column, still match.
using Identity = std::vector<std::pair<std::string, std::string>>;

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

std::vector<std::pair<std::string, std::string>> key_pairs(const Dataset& dataset,
                                                           const Kernel& kernel,
                                                           const std::vector<std::string>& skip) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (std::size_t c = 0; c < dataset.key_columns.size(); ++c) {
    const std::string_view value = kernel.key_value(c);
    if (!value.empty() && !contains(skip, dataset.key_columns[c]))
      pairs.emplace_back(dataset.key_columns[c], std::string(value));
  }
  return pairs;
}

Identity identity_of(const ModelsFile& file, const KernelResult& result,
                     const std::vector<std::string>& across) {
  Identity id = key_pairs(file.dataset, io_detail::kernel_of(file.dataset, result), across);
  std::sort(id.begin(), id.end());
  return id;
}

std::string label_of(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string label;
  for (const auto& [column, value] : pairs) {
    if (!label.empty()) label += ' ';
    label += column + "=" + value;
  }
  return label.empty() ? "(all)" : label;
}

ComparedKey compared_key(const ModelsFile& file, const KernelResult& result,
                         const std::string& thread_class, const std::vector<std::string>& across) {
  auto pairs = key_pairs(file.dataset, io_detail::kernel_of(file.dataset, result), across);
  std::string label = label_of(pairs);
  return {std::move(pairs), std::move(label), thread_class};
}

const ClassModel* find_class(const KernelResult& result, const std::string& thread_class) {
  for (const ClassModel& m : result.models) {
    if (m.thread_class == thread_class) return &m;
  }
  return nullptr;
}

// The one model of a kernel that is not split into classes, else nullptr.
const ClassModel* single_model(const KernelResult& result) {
  return result.models.size() == 1 && result.models.front().thread_class == "all"
             ? &result.models.front()
             : nullptr;
}

// "po2 / all": A's class model against B's single model (or the other way round), which holds
// over the same thread counts.
std::string pair_class(const std::string& a, const std::string& b) {
  return a == b ? a : a + " / " + b;
}

// Rows in the order people look for them: by kernel, then class.
bool row_before(const ComparedModel& x, const ComparedModel& y) {
  if (x.key.label != y.key.label) return x.key.label < y.key.label;
  return x.key.thread_class < y.key.thread_class;
}

// The distinct non-empty values of `column` in `file`'s kernels.
std::set<std::string> values_of(const ModelsFile& file, const std::string& column) {
  std::set<std::string> values;
  const std::size_t c = io_detail::key_column_index(file.dataset, column);
  if (c >= file.dataset.key_columns.size()) return values;
  for (const Kernel& kernel : file.dataset.kernels) {
    if (!kernel.key_value(c).empty()) values.emplace(kernel.key_value(c));
  }
  return values;
}

// Columns holding one value in each file and a different one in each: what two runs differ in.
std::vector<std::string> automatic_across(const ModelsFile& a, const ModelsFile& b) {
  std::vector<std::string> across;
  for (const std::string& column : a.dataset.key_columns) {
    const auto va = values_of(a, column);
    const auto vb = values_of(b, column);
    if (va.size() == 1 && vb.size() == 1 && va != vb) across.push_back(column);
  }
  return across;
}

void check_across(const ModelsFile& a, const ModelsFile& b,
                  const std::vector<std::string>& across) {
  for (const std::string& column : across) {
    if (contains(a.dataset.key_columns, column) || contains(b.dataset.key_columns, column))
      continue;
    throw UsageError(fmt::format("--across '{}': not a key column of either file; A has {}", column,
                                 fmt::join(a.dataset.key_columns, ", ")));
  }
}

// Each kernel of `file` must keep its own identity without the columns compared across.
std::map<Identity, const KernelResult*> by_identity(const ModelsFile& file, const char* letter,
                                                    const std::vector<std::string>& across) {
  std::map<Identity, const KernelResult*> out;
  for (const KernelResult& r : file.results) {
    const auto [it, inserted] = out.emplace(identity_of(file, r, across), &r);
    if (inserted || across.empty()) continue;  // duplicates in a file: the first wins
    const Kernel& first = io_detail::kernel_of(file.dataset, *it->second);
    throw UsageError(fmt::format(
        "comparing across {} leaves two kernels of {} with one key ({} and {}): name fewer "
        "columns with --across",
        fmt::join(across, ", "), letter, io_detail::kernel_label(file.dataset, first),
        io_detail::kernel_label(file.dataset, io_detail::kernel_of(file.dataset, r))));
  }
  return out;
}

// "runtime=libgomp compiler=gcc-12": the values a file holds in the columns compared across.
std::string across_values(const ModelsFile& file, const std::vector<std::string>& across) {
  std::vector<std::string> parts;
  for (const std::string& column : across) {
    const auto values = values_of(file, column);
    if (values.empty()) continue;
    parts.push_back(values.size() == 1 ? column + "=" + *values.begin()
                                       : fmt::format("{}=({})", column, fmt::join(values, "|")));
  }
  return fmt::format("{}", fmt::join(parts, " "));
}

std::string model_text(const ClassModel& m, const std::string& parameter) {
  return m.has_model() ? m.model.to_string(parameter, 4) : io_detail::measured_text(m);
}

std::string growth_text(const ClassModel& m) {
  return m.has_model() ? std::string(to_string(m.growth)) : std::string("no model");
}

// Key columns every matched kernel has with the same value: said once on a terminal.
std::vector<std::pair<std::string, std::string>> shared_pairs(const ModelComparison& comparison) {
  if (comparison.matched.size() < 2) return {};
  std::vector<std::pair<std::string, std::string>> shared = comparison.matched.front().key.key;
  for (const ComparedModel& m : comparison.matched) {
    std::erase_if(shared, [&](const auto& pair) {
      return std::find(m.key.key.begin(), m.key.key.end(), pair) == m.key.key.end();
    });
  }
  return shared;
}

std::string short_label(const ComparedKey& key,
                        const std::vector<std::pair<std::string, std::string>>& shared) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& pair : key.key) {
    if (std::find(shared.begin(), shared.end(), pair) == shared.end()) pairs.push_back(pair);
  }
  return label_of(pairs);
}

Json key_json(const ComparedKey& key) {
  Json out = Json::object();
  for (const auto& [column, value] : key.key) out[column] = value;
  return out;
}

Json side_json(const ClassModel& m, const std::string& parameter) {
  return {{"model", m.has_model() ? Json(m.model.to_string(parameter)) : Json(nullptr)},
          {"no_model", m.has_model() ? Json(nullptr) : Json(m.no_model)},
          {"growth", std::string(to_string(m.growth))},
          {"adjusted_r2", m.stats.adjusted_r2},
          {"valid", m.valid},
          {"worse_than_log", m.worse_than_log}};
}

Json file_json(const ModelsFile& file, const std::string& name,
               const std::vector<std::string>& across) {
  Json values = Json::object();
  for (const std::string& column : across) {
    const auto v = values_of(file, column);
    values[column] = std::vector<std::string>(v.begin(), v.end());
  }
  return {{"name", name},
          {"parameter", file.dataset.parameter},
          {"ompscale_version", file.ompscale_version},
          {"sources", file.dataset.sources},
          {"across_values", std::move(values)}};
}

// "size=27", or with several others "size=27 chunk=4": a line's name.
std::string line_name(const std::vector<std::string>& names, std::span<const double> others) {
  std::string out;
  for (std::size_t d = 0; d < others.size(); ++d) {
    if (!out.empty()) out += ' ';
    out += fmt::format("{}={:g}", names[d + 1], others[d]);
  }
  return out;
}

// The model of `r` along the first parameter with the others at `others`, and its points there.
ClassModel line_model(const MultiModelsFile& file, const MultiResult& r,
                      const std::vector<double>& others) {
  const std::vector<std::string> names = file.dataset.parameter_names();
  ClassModel m;
  const std::string line = line_name(names, others);
  m.thread_class = r.thread_class == "all" ? line : r.thread_class + " " + line;
  for (const MultiPoint& p : r.points) {
    if (!std::equal(others.begin(), others.end(), p.x.begin() + 1)) continue;
    m.points.push_back({.param = p.x[0], .value = p.value, .min = p.value, .max = p.value});
  }
  std::vector<double> x = {m.points.empty() ? 1.0 : m.points.front().param};
  x.insert(x.end(), others.begin(), others.end());
  // A line modeled on its own is compared by its own model, which its predictions come from.
  const LineModel* own = line_at(r, x);
  m.model = own != nullptr ? own->model : r.model.along(0, x);
  m.stats = own != nullptr ? own->stats : r.stats;
  m.growth = m.model.growth();
  m.valid = std::isfinite(m.stats.adjusted_r2) &&
            m.stats.adjusted_r2 >= ModelerOptions{}.valid_adjusted_r2;
  m.worse_than_log = m.valid && m.model.grows_faster_than_log();
  return m;
}

}  // namespace

ModelsFile models_along_first(const MultiModelsFile& file) {
  ModelsFile out;
  out.ompscale_version = file.ompscale_version;
  out.options_json = file.options_json;
  out.dataset.parameter = file.dataset.parameter_names().front();
  out.dataset.key_columns = file.dataset.key_columns;
  out.dataset.sources = file.dataset.sources;
  std::map<std::string, std::size_t> kernel_of_key;  // a kernel's classes share its entry
  for (const MultiResult& r : file.results) {
    const Kernel& kernel = file.dataset.kernels.at(r.kernel);
    const auto [it, added] = kernel_of_key.try_emplace(kernel.joined_key(), out.results.size());
    if (added) {
      std::vector<std::string> key;
      for (std::string_view value : kernel.key_values()) key.emplace_back(value);
      out.dataset.kernels.push_back(Kernel::from_samples(key, {}));
      out.results.emplace_back();
      out.results.back().kernel = it->second;
      out.results.back().class_decision = r.class_decision;
    }
    std::set<std::vector<double>> lines;
    for (const MultiPoint& p : r.points) lines.insert({p.x.begin() + 1, p.x.end()});
    for (const std::vector<double>& others : lines)
      out.results[it->second].models.push_back(line_model(file, r, others));
  }
  return out;
}

std::size_t ModelComparison::growth_differences() const {
  return static_cast<std::size_t>(std::count_if(
      matched.begin(), matched.end(), [](const ComparedModel& m) { return m.growth_differs; }));
}

ModelComparison compare_models(const ModelsFile& a, const ModelsFile& b,
                               const std::optional<std::vector<std::string>>& across) {
  ModelComparison out;
  out.across = across ? *across : automatic_across(a, b);
  check_across(a, b, out.across);
  by_identity(a, "A", out.across);  // the same check for A's kernels
  const std::map<Identity, const KernelResult*> b_by_identity = by_identity(b, "B", out.across);

  std::map<Identity, std::vector<std::string>> matched_classes;  // per B kernel
  for (const KernelResult& ra : a.results) {
    const Identity id = identity_of(a, ra, out.across);
    const auto it = b_by_identity.find(id);
    const KernelResult* rb = it == b_by_identity.end() ? nullptr : it->second;
    for (const ClassModel& ma : ra.models) {
      // The same class; else, when one side is not split into classes (`--classes auto` split
      // the kernel of one run only), its single model against each class of the other.
      const ClassModel* mb = rb == nullptr ? nullptr : find_class(*rb, ma.thread_class);
      if (mb == nullptr && rb != nullptr && single_model(ra) == nullptr) mb = single_model(*rb);
      ComparedKey key = compared_key(a, ra, ma.thread_class, out.across);
      if (mb == nullptr && rb != nullptr && single_model(ra) != nullptr &&
          single_model(*rb) == nullptr) {
        for (const ClassModel& split : rb->models) {
          matched_classes[id].push_back(split.thread_class);
          ComparedKey pair = key;
          pair.thread_class = pair_class(ma.thread_class, split.thread_class);
          const bool differs = ma.has_model() && split.has_model() && ma.growth != split.growth;
          out.matched.push_back({std::move(pair), ma, split, differs});
        }
        continue;
      }
      if (mb == nullptr) {
        out.only_in_a.push_back(std::move(key));
        continue;
      }
      matched_classes[id].push_back(mb->thread_class);
      key.thread_class = pair_class(ma.thread_class, mb->thread_class);
      const bool differs = ma.has_model() && mb->has_model() && ma.growth != mb->growth;
      out.matched.push_back({std::move(key), ma, *mb, differs});
    }
  }
  for (const KernelResult& rb : b.results) {
    const auto& done = matched_classes[identity_of(b, rb, out.across)];
    for (const ClassModel& mb : rb.models) {
      if (std::find(done.begin(), done.end(), mb.thread_class) != done.end()) continue;
      out.only_in_b.push_back(compared_key(b, rb, mb.thread_class, out.across));
    }
  }
  std::stable_sort(out.matched.begin(), out.matched.end(), row_before);
  return out;
}

std::string explain_no_match(const ModelsFile& a, const ModelsFile& b,
                             const ModelComparison& comparison) {
  std::vector<std::string> disjoint;
  for (const std::string& column : a.dataset.key_columns) {
    if (contains(comparison.across, column)) continue;
    const auto va = values_of(a, column);
    const auto vb = values_of(b, column);
    std::vector<std::string> shared;
    std::set_intersection(va.begin(), va.end(), vb.begin(), vb.end(), std::back_inserter(shared));
    if (!va.empty() && !vb.empty() && shared.empty()) disjoint.push_back(column);
  }
  // Kernels in both files whose classes differ on both sides (each split, differently).
  std::vector<std::string> classes_a, classes_b;
  const auto b_by_identity = by_identity(b, "B", comparison.across);
  for (const KernelResult& ra : a.results) {
    const auto it = b_by_identity.find(identity_of(a, ra, comparison.across));
    if (it == b_by_identity.end()) continue;
    for (const ClassModel& m : ra.models) classes_a.push_back(m.thread_class);
    for (const ClassModel& m : it->second->models) classes_b.push_back(m.thread_class);
  }
  if (!classes_a.empty()) {
    const auto distinct = [](std::vector<std::string> v, const char* separator) {
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
      return fmt::format("{}", fmt::join(v, separator));
    };
    return fmt::format(
        "the kernels are in both files, but each file split them into other thread-count classes "
        "(A: {}; B: {}); fit both with the same list (e.g. --classes {}) or both with --classes "
        "none",
        distinct(classes_a, ", "), distinct(classes_b, ", "), distinct(classes_a, ","));
  }
  std::string text =
      comparison.across.empty()
          ? std::string("no kernel and class is in both files")
          : fmt::format("no kernel and class is in both files, even compared across {}",
                        fmt::join(comparison.across, ", "));
  if (!disjoint.empty()) {
    std::vector<std::string> suggested = comparison.across;
    suggested.insert(suggested.end(), disjoint.begin(), disjoint.end());
    text += fmt::format("; the files share no value of {} (compare across them: --across {})",
                        fmt::join(disjoint, ", "), fmt::join(suggested, ","));
  }
  if (a.dataset.key_columns != b.dataset.key_columns) {
    text += fmt::format("; A's key columns are {}, B's {}", fmt::join(a.dataset.key_columns, ","),
                        fmt::join(b.dataset.key_columns, ","));
  }
  return text;
}

std::string comparison_summary(const ModelComparison& comparison) {
  const std::size_t matched = comparison.matched.size();
  const auto both = static_cast<std::size_t>(
      std::count_if(comparison.matched.begin(), comparison.matched.end(),
                    [](const ComparedModel& m) { return m.a.has_model() && m.b.has_model(); }));
  const std::size_t differing = comparison.growth_differences();
  if (both == matched) {
    return fmt::format("{} model{} compared, {} with a different growth class.", matched,
                       matched == 1 ? "" : "s", differing);
  }
  if (both == 0) {
    return fmt::format(
        "{} kernel{} in both files, none with a model in both (a model needs 3 or more thread "
        "counts), so no growth class was compared.",
        matched, matched == 1 ? "" : "s");
  }
  return fmt::format(
      "{} kernel{} in both files, {} with a model in both, {} of them with a different growth "
      "class.",
      matched, matched == 1 ? "" : "s", both, differing);
}

std::string format_comparison(const ModelsFile& a, const ModelsFile& b,
                              const ModelComparison& comparison, const ComparisonNames& names,
                              std::size_t width) {
  std::string out = fmt::format("A = {}, B = {}", names.a, names.b);
  if (!comparison.across.empty()) {
    out += fmt::format("; compared across {}", fmt::join(comparison.across, ", "));
    out = wrap(out, width);
    out += wrap("A: " + across_values(a, comparison.across), width, "  ", "      ");
    out += wrap("B: " + across_values(b, comparison.across), width, "  ", "      ");
  } else {
    out = wrap(out, width);
  }
  if (a.dataset.parameter != b.dataset.parameter) {
    out += wrap(fmt::format("note: the files model different parameters ({} in A, {} in B)",
                            a.dataset.parameter, b.dataset.parameter),
                width);
  }
  out += '\n';

  // On a terminal the key values every row shares are said once.
  const auto shared =
      width > 0 ? shared_pairs(comparison) : std::vector<std::pair<std::string, std::string>>{};
  if (!shared.empty()) out += wrap("Every kernel has " + label_of(shared), width) + "\n";
  if (comparison.matched.empty()) {
    out += "No kernel and class is present in both files.\n";
  } else {
    TextTable table({Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft,
                     Align::kLeft, Align::kLeft});
    table.add_row({"kernel", "class", "model A", "model B", "growth A", "growth B", ""});
    for (const ComparedModel& m : comparison.matched) {
      table.add_row({short_label(m.key, shared), m.key.thread_class,
                     model_text(m.a, a.dataset.parameter), model_text(m.b, b.dataset.parameter),
                     growth_text(m.a), growth_text(m.b), m.growth_differs ? "<< differs" : ""});
    }
    std::ostringstream rendered;
    table.render_to(rendered, "", width, 0);
    out += rendered.str();
    out += '\n';
    out += wrap(comparison_summary(comparison), width);
  }

  const auto list = [&](const std::vector<ComparedKey>& keys, const char* letter,
                        const std::string& name) {
    if (keys.empty()) return;
    out += fmt::format("\nOnly in {} ({}):\n", letter, name);
    for (const ComparedKey& key : keys) {
      out += wrap(fmt::format("{} [{}]", key.label, key.thread_class), width, "  ", "    ");
    }
  };
  list(comparison.only_in_a, "A", names.a);
  list(comparison.only_in_b, "B", names.b);
  return out;
}

std::string format_comparison(const ModelsFile& a, const ModelsFile& b,
                              const ComparisonNames& names) {
  return format_comparison(a, b, compare_models(a, b), names);
}

std::string format_comparison_json(const ModelsFile& a, const ModelsFile& b,
                                   const ModelComparison& comparison,
                                   const ComparisonNames& names) {
  Json models = Json::array();
  for (const ComparedModel& m : comparison.matched) {
    models.push_back({{"key", key_json(m.key)},
                      {"class", m.key.thread_class},
                      {"a", side_json(m.a, a.dataset.parameter)},
                      {"b", side_json(m.b, b.dataset.parameter)},
                      {"growth_differs", m.growth_differs}});
  }
  const auto keys_json = [](const std::vector<ComparedKey>& keys) {
    Json out = Json::array();
    for (const ComparedKey& key : keys) {
      out.push_back({{"key", key_json(key)}, {"class", key.thread_class}});
    }
    return out;
  };
  const Json document = {{"a", file_json(a, names.a, comparison.across)},
                         {"b", file_json(b, names.b, comparison.across)},
                         {"across", comparison.across},
                         {"models", std::move(models)},
                         {"only_in_a", keys_json(comparison.only_in_a)},
                         {"only_in_b", keys_json(comparison.only_in_b)},
                         {"summary",
                          {{"compared", comparison.matched.size()},
                           {"growth_differs", comparison.growth_differences()},
                           {"only_in_a", comparison.only_in_a.size()},
                           {"only_in_b", comparison.only_in_b.size()}}}};
  return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string format_comparison_json(const ModelsFile& a, const ModelsFile& b,
                                   const ComparisonNames& names) {
  return format_comparison_json(a, b, compare_models(a, b), names);
}

}  // namespace ompscale::modeler
