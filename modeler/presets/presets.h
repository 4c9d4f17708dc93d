#pragma once
// Public header. The named presets, chosen in one place: the CLI's --preset, the benches and
// the Python module take a preset by name here.
//
//   default      ours: noise-aware or cross-validated, learnt from the input (docs/methods.md)
//   extrap       Extra-P 4.2.5's default modeler, rule for rule (no intervals, nothing learnt)
//   extrap-paper Extra-P's method with the "too many threads" paper's hypothesis space: how
//                Extra-P fares on kernels drawn from that space (the accuracy benches)

#include <string>
#include <string_view>
#include <vector>

#include "modeler/presets/options.h"

namespace ompscale::modeler {

struct Preset {
  std::string_view name;
  std::string_view summary;  ///< one line for --help
  ModelerOptions (*options)();
};

/// Every preset, the default first.
const std::vector<Preset>& presets();

/// The options of the preset named `name`; throws UsageError naming the presets otherwise.
ModelerOptions preset_options(std::string_view name);

/// "default, extrap or extrap-paper": the names for messages and help.
std::string preset_names();

}  // namespace ompscale::modeler
