#include "modeler/presets/presets.h"

#include <fmt/format.h>

#include "common/error.h"

namespace ompscale::modeler {

namespace {

ModelerOptions default_preset() { return ModelerOptions{}; }

ModelerOptions extrap_paper_preset() {
  ModelerOptions options = ModelerOptions::extrap();
  options.space = HypothesisSpace::paper();
  return options;
}

}  // namespace

const std::vector<Preset>& presets() {
  static const std::vector<Preset> all{
      {"default", "ours: the way of modeling and the intervals learnt from the input",
       &default_preset},
      {"extrap", "Extra-P 4.2.5's default modeler, rule for rule", &ModelerOptions::extrap},
      {"extrap-paper", "Extra-P's method with the 'too many threads' paper's hypotheses",
       &extrap_paper_preset}};
  return all;
}

std::string preset_names() {
  std::string names;
  for (std::size_t i = 0; i < presets().size(); ++i) {
    if (i > 0) names += i + 1 == presets().size() ? " or " : ", ";
    names += presets()[i].name;
  }
  return names;
}

ModelerOptions preset_options(std::string_view name) {
  for (const Preset& p : presets()) {
    if (p.name == name) return p.options();
  }
  throw UsageError(fmt::format("bad --preset '{}': use {}", name, preset_names()));
}

}  // namespace ompscale::modeler
