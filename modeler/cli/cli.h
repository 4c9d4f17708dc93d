#pragma once
// The `modeler` command line: fit, plot, predict, compare. Kept in the library so tests can run
// it in-process; tool/main.cc only forwards to it. The Python module (python/) calls the commands
// below as functions: the same options by the same names, the same checks and messages.

#include <optional>
#include <string>
#include <vector>

#include "modeler/core/result.h"
#include "modeler/io/models_json.h"
#include "modeler/presets/options.h"

namespace ompscale::modeler {

/// Runs the CLI; returns the exit status (0 success, 1 a requested failure condition, 2 usage or
/// input error with a one-line cause on stderr).
int run_cli(int argc, char** argv);

/// A text that stands for the input "-" (standard input), with the name messages give it.
struct NamedText {
  std::string name;
  std::string text;
};

/// `modeler fit ARGS` without its report: `args` (what follows "fit": inputs and options) parsed,
/// checked, read and fitted as the CLI does. An input "-" reads `standard_input` when given.
/// Returns the models as models.json holds them, the kernels with their repetitions; `notes`
/// receives what the CLI says on stderr about the inputs. Throws UsageError or InputError with
/// the message the CLI prints after "modeler: ". Inputs with several parameters are a
/// UsageError here (models over several parameters: `modeler fit --format json`).
ModelsFile fit_command_line(const std::vector<std::string>& args, const NamedText* standard_input,
                            std::vector<std::string>& notes);

/// A models.json of one parameter ("-": standard input), as `modeler predict` reads it: a file
/// that is no models.json, or one of several parameters, is a UsageError naming it.
ModelsFile read_single_parameter_models(const std::string& path);

/// The predictions at `at` and the budget crossing of `result`'s models, recomputed as `modeler
/// fit` makes them (`modeler predict`); a relative budget without a base becomes a warning.
void predict_kernel(const ModelsFile& file, KernelResult& result, const std::vector<double>& at,
                    double confidence, const std::optional<BudgetSpec>& budget,
                    double budget_limit);

}  // namespace ompscale::modeler
