#include "modeler/io/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "modeler/io/write_common.h"

namespace ompscale::modeler {

namespace {

using Json = nlohmann::ordered_json;
using io_detail::TextTable;
using Align = TextTable::Align;

// A kernel's identity across files: its non-empty (column, value) pairs, sorted, so files that
// order their key columns differently, or carry an always-empty extra column, still match.
using Identity = std::vector<std::pair<std::string, std::string>>;

std::vector<std::pair<std::string, std::string>> key_pairs(const Dataset& dataset,
                                                           const Kernel& kernel) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (std::size_t c = 0; c < dataset.key_columns.size(); ++c) {
    const std::string_view value = kernel.key_value(c);
    if (!value.empty()) pairs.emplace_back(dataset.key_columns[c], std::string(value));
  }
  return pairs;
}

Identity identity_of(std::vector<std::pair<std::string, std::string>> pairs) {
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

ComparedKey compared_key(const ModelsFile& file, const KernelResult& result,
                         const std::string& thread_class) {
  const Kernel& kernel = io_detail::kernel_of(file.dataset, result);
  return {key_pairs(file.dataset, kernel), io_detail::kernel_label(file.dataset, kernel),
          thread_class};
}

const ClassModel* find_class(const KernelResult& result, const std::string& thread_class) {
  for (const ClassModel& m : result.models) {
    if (m.thread_class == thread_class) return &m;
  }
  return nullptr;
}

Json key_json(const ComparedKey& key) {
  Json out = Json::object();
  for (const auto& [column, value] : key.key) out[column] = value;
  return out;
}

Json side_json(const ClassModel& m, const std::string& parameter) {
  return {{"model", m.model.to_string(parameter)},
          {"growth", std::string(to_string(m.growth))},
          {"adjusted_r2", m.stats.adjusted_r2},
          {"valid", m.valid},
          {"worse_than_log", m.worse_than_log}};
}

Json file_json(const ModelsFile& file, const std::string& name) {
  return {{"name", name},
          {"parameter", file.dataset.parameter},
          {"ompscale_version", file.ompscale_version},
          {"sources", file.dataset.sources}};
}

}  // namespace

std::size_t ModelComparison::growth_differences() const {
  return static_cast<std::size_t>(std::count_if(
      matched.begin(), matched.end(), [](const ComparedModel& m) { return m.growth_differs; }));
}

ModelComparison compare_models(const ModelsFile& a, const ModelsFile& b) {
  std::map<Identity, const KernelResult*> b_by_identity;
  for (const KernelResult& r : b.results) {
    const Identity id = identity_of(key_pairs(b.dataset, io_detail::kernel_of(b.dataset, r)));
    b_by_identity.emplace(id, &r);  // the first of duplicate keys wins, as in A below
  }

  ModelComparison out;
  std::map<Identity, std::vector<std::string>> matched_classes;  // per B kernel
  for (const KernelResult& ra : a.results) {
    const Identity id = identity_of(key_pairs(a.dataset, io_detail::kernel_of(a.dataset, ra)));
    const auto it = b_by_identity.find(id);
    for (const ClassModel& ma : ra.models) {
      const ClassModel* mb =
          it == b_by_identity.end() ? nullptr : find_class(*it->second, ma.thread_class);
      ComparedKey key = compared_key(a, ra, ma.thread_class);
      if (mb == nullptr) {
        out.only_in_a.push_back(std::move(key));
        continue;
      }
      matched_classes[id].push_back(ma.thread_class);
      out.matched.push_back({std::move(key), ma, *mb, ma.growth != mb->growth});
    }
  }
  for (const KernelResult& rb : b.results) {
    const Identity id = identity_of(key_pairs(b.dataset, io_detail::kernel_of(b.dataset, rb)));
    const auto& done = matched_classes[id];
    for (const ClassModel& mb : rb.models) {
      if (std::find(done.begin(), done.end(), mb.thread_class) != done.end()) continue;
      out.only_in_b.push_back(compared_key(b, rb, mb.thread_class));
    }
  }
  return out;
}

std::string format_comparison(const ModelsFile& a, const ModelsFile& b,
                              const ComparisonNames& names) {
  const ModelComparison comparison = compare_models(a, b);
  std::string out = fmt::format("A = {}, B = {}\n", names.a, names.b);
  if (a.dataset.parameter != b.dataset.parameter) {
    out += fmt::format("note: the files model different parameters ({} in A, {} in B)\n",
                       a.dataset.parameter, b.dataset.parameter);
  }
  out += '\n';

  if (comparison.matched.empty()) {
    out += "No kernel and class is present in both files.\n";
  } else {
    TextTable table({Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft,
                     Align::kLeft, Align::kLeft});
    table.add_row({"kernel", "class", "model A", "model B", "growth A", "growth B", ""});
    for (const ComparedModel& m : comparison.matched) {
      table.add_row({m.key.label, m.key.thread_class, m.a.model.to_string(a.dataset.parameter, 4),
                     m.b.model.to_string(b.dataset.parameter, 4),
                     std::string(to_string(m.a.growth)), std::string(to_string(m.b.growth)),
                     m.growth_differs ? "<< differs" : ""});
    }
    out += table.render();
    const std::size_t differing = comparison.growth_differences();
    out += fmt::format("\n{} model{} compared, {} with a different growth class.\n",
                       comparison.matched.size(), comparison.matched.size() == 1 ? "" : "s",
                       differing);
  }

  const auto list = [&](const std::vector<ComparedKey>& keys, const char* letter,
                        const std::string& name) {
    if (keys.empty()) return;
    out += fmt::format("\nOnly in {} ({}):\n", letter, name);
    for (const ComparedKey& key : keys) {
      out += fmt::format("  {} [{}]\n", key.label, key.thread_class);
    }
  };
  list(comparison.only_in_a, "A", names.a);
  list(comparison.only_in_b, "B", names.b);
  return out;
}

std::string format_comparison_json(const ModelsFile& a, const ModelsFile& b,
                                   const ComparisonNames& names) {
  const ModelComparison comparison = compare_models(a, b);
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
  const Json document = {{"a", file_json(a, names.a)},
                         {"b", file_json(b, names.b)},
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

}  // namespace ompscale::modeler
