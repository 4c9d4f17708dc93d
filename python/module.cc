// ompscale._core: the modeler's fit, models.json and predictions for Python (pybind11). The
// Python side (ompscale/__init__.py) turns data frames into the CSV text the modeler reads and
// keyword arguments into its command-line options; everything else happens here, in the
// modeler's own code, so the module and `modeler fit` give the same models and the same errors.

#include <fmt/format.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "modeler/cli/cli.h"
#include "modeler/core/units.h"
#include "modeler/io/write_common.h"
#include "modeler/prediction/budget.h"
#include "modeler/prediction/predict.h"

namespace py = pybind11;

namespace ompscale::python {

namespace {

using modeler::ClassModel;
using modeler::KernelResult;
using modeler::ModelsFile;

/// One class model of one kernel, sharing the models it came from (predictions and budgets need
/// the kernel's data and its other classes).
struct ModelHandle {
  std::shared_ptr<const ModelsFile> file;
  std::size_t result = 0;
  std::size_t model = 0;

  const KernelResult& kernel_result() const { return file->results.at(result); }
  const ClassModel& get() const { return kernel_result().models.at(model); }
  const modeler::Kernel& kernel() const {
    return modeler::io_detail::kernel_of(file->dataset, kernel_result());
  }
  std::string label() const {
    return modeler::io_detail::kernel_label(file->dataset, kernel()) + " [" + get().thread_class +
           "]";
  }
  const std::string& parameter() const { return file->dataset.parameter; }
  double confidence() const {
    const auto& p = get().predictions;
    return p.empty() ? 0.9 : p.front().level;
  }
};

/// The models of one fit or one models.json, in file order (kernel by kernel, class by class).
struct ModelSet {
  std::shared_ptr<const ModelsFile> file;
  std::vector<ModelHandle> models;

  explicit ModelSet(ModelsFile loaded)
      : file(std::make_shared<const ModelsFile>(std::move(loaded))) {
    for (std::size_t r = 0; r < file->results.size(); ++r) {
      for (std::size_t m = 0; m < file->results[r].models.size(); ++m)
        models.push_back({file, r, m});
    }
  }
};

py::object optional_number(const std::optional<double>& value) {
  return value ? py::cast(*value) : py::none();
}

py::dict point_dict(const modeler::PointSummary& p) {
  py::dict d;
  d["param"] = p.param;
  d["value"] = p.value;
  d["min"] = p.min;
  d["max"] = p.max;
  d["cv"] = p.cv;
  d["repetitions"] = p.repetitions;
  return d;
}

py::dict key_dict(const ModelHandle& h) {
  py::dict key;
  const auto& columns = h.file->dataset.key_columns;
  const auto values = h.kernel().key_values();
  for (std::size_t c = 0; c < columns.size(); ++c)
    key[py::str(columns[c])] = std::string(values[c]);
  return key;
}

py::dict statistics_dict(const modeler::FitStatistics& s) {
  py::dict d;
  d["points"] = s.points;
  d["rss"] = s.rss;
  d["tss"] = s.tss;
  d["adjusted_r2"] = s.adjusted_r2;
  d["smape"] = s.smape;
  d["cv_error"] = s.cv_error;
  return d;
}

void require_model(const ModelHandle& h) {
  if (!h.get().has_model())
    throw py::value_error(fmt::format("{}: no model: {}", h.label(), h.get().no_model));
}

modeler::Prediction predict_at(const ModelHandle& h, double at, std::optional<double> level) {
  require_model(h);
  const double confidence = level.value_or(h.confidence());
  if (!(confidence > 0.0 && confidence < 1.0))
    throw UsageError("bad --confidence: use a level between 0 and 1, e.g. 0.9");
  if (!(at > 0.0))
    throw UsageError(fmt::format("bad --at value {}: thread counts are positive", at));
  return modeler::predict(h.get().predictive, at, confidence);
}

/// The budget crossing for `budget` ("4x", "10us", 0.3), as `modeler predict --budget` finds it;
/// None with a Python warning when a relative budget has nothing to be relative to.
py::object budget_of(const ModelHandle& h, const py::object& budget, std::optional<double> level,
                     double limit) {
  require_model(h);
  const std::string text = py::isinstance<py::str>(budget)
                               ? budget.cast<std::string>()
                               : fmt::format("{:g}", budget.cast<double>());
  modeler::BudgetSpec spec;
  try {
    spec = modeler::parse_budget(text);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("--budget: {}", e.what()));
  }
  KernelResult copy = h.kernel_result();
  modeler::predict_kernel(*h.file, copy, {}, level.value_or(h.confidence()), spec, limit);
  const ClassModel& m = copy.models.at(h.model);
  if (m.budget) return py::cast(*m.budget);
  for (const std::string& warning : m.warnings) {
    if (modeler::is_unusable_budget_warning(warning)) {
      const std::string message = h.label() + ": " + warning;
      if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) != 0) throw py::error_already_set();
    }
  }
  return py::none();
}

void bind_values(py::module_& m) {
  py::class_<modeler::Prediction>(m, "Prediction",
                                  "A prediction with its interval at a confidence level.")
      .def_readonly("at", &modeler::Prediction::param)
      .def_readonly("value", &modeler::Prediction::value)
      .def_property_readonly("low", [](const modeler::Prediction& p) { return p.interval.low; })
      .def_property_readonly("high", [](const modeler::Prediction& p) { return p.interval.high; })
      .def_readonly("level", &modeler::Prediction::level)
      .def("__repr__", [](const modeler::Prediction& p) {
        return fmt::format("Prediction(at={:g}, value={:.6g}, interval=[{:.6g}, {:.6g}] at {:g}%)",
                           p.param, p.value, p.interval.low, p.interval.high, 100 * p.level);
      });
  py::class_<modeler::BudgetCrossing>(
      m, "Budget", "The smallest thread count whose predicted cost exceeds a budget.")
      .def_readonly("budget", &modeler::BudgetCrossing::budget)
      .def_property_readonly(
          "threads", [](const modeler::BudgetCrossing& b) { return optional_number(b.threads); })
      .def_property_readonly(
          "threads_early",
          [](const modeler::BudgetCrossing& b) { return optional_number(b.threads_early); })
      .def_property_readonly(
          "threads_late",
          [](const modeler::BudgetCrossing& b) { return optional_number(b.threads_late); })
      .def_readonly("search_limit", &modeler::BudgetCrossing::search_limit)
      .def_property_readonly("base",
                             [](const modeler::BudgetCrossing& b) -> py::object {
                               return b.base ? py::object(point_dict(*b.base)) : py::none();
                             })
      .def("__repr__", [](const modeler::BudgetCrossing& b) {
        return fmt::format("Budget(budget={:.6g}, threads={})", b.budget,
                           b.threads ? fmt::format("{:g}", *b.threads) : "None");
      });
  py::class_<modeler::Term>(m, "Term", "coefficient * t^exponent * log2(t)^log_exponent")
      .def_readonly("coefficient", &modeler::Term::coefficient)
      .def_property_readonly("exponent", [](const modeler::Term& t) { return t.shape.exponent; })
      .def_property_readonly(
          "exponent_text",
          [](const modeler::Term& t) { return modeler::format_exponent(t.shape.exponent); })
      .def_property_readonly("log_exponent",
                             [](const modeler::Term& t) { return t.shape.log_exponent; })
      .def("__repr__", [](const modeler::Term& t) {
        return fmt::format("Term({:.6g} * t^({}) * log2(t)^({}))", t.coefficient,
                           modeler::format_exponent(t.shape.exponent), t.shape.log_exponent);
      });
}

void bind_model(py::module_& m) {
  py::class_<ModelHandle>(m, "Model", "The model of one kernel for one thread-count class.")
      .def_property_readonly("key", key_dict)
      .def_property_readonly("kernel",
                             [](const ModelHandle& h) {
                               return modeler::io_detail::kernel_label(h.file->dataset, h.kernel());
                             })
      .def_property_readonly("thread_class",
                             [](const ModelHandle& h) { return h.get().thread_class; })
      .def_property_readonly("parameter", &ModelHandle::parameter)
      .def_property_readonly("has_model", [](const ModelHandle& h) { return h.get().has_model(); })
      .def_property_readonly("no_model",
                             [](const ModelHandle& h) -> py::object {
                               return h.get().has_model() ? py::none() : py::cast(h.get().no_model);
                             })
      .def_property_readonly("formula",
                             [](const ModelHandle& h) -> py::object {
                               return h.get().has_model()
                                          ? py::cast(h.get().model.to_string(h.parameter()))
                                          : py::none();
                             })
      .def_property_readonly("constant",
                             [](const ModelHandle& h) { return h.get().model.constant; })
      .def_property_readonly("terms", [](const ModelHandle& h) { return h.get().model.terms; })
      .def_property_readonly("coefficient_intervals",
                             [](const ModelHandle& h) {
                               std::vector<std::pair<double, double>> out;
                               for (const auto& i : h.get().coefficient_intervals)
                                 out.emplace_back(i.low, i.high);
                               return out;
                             })
      .def_property_readonly("statistics",
                             [](const ModelHandle& h) { return statistics_dict(h.get().stats); })
      .def_property_readonly("growth",
                             [](const ModelHandle& h) -> py::object {
                               return h.get().has_model()
                                          ? py::cast(std::string(to_string(h.get().growth)))
                                          : py::none();
                             })
      .def_property_readonly("valid", [](const ModelHandle& h) { return h.get().valid; })
      .def_property_readonly("worse_than_log",
                             [](const ModelHandle& h) { return h.get().worse_than_log; })
      .def_property_readonly("noise_dominates",
                             [](const ModelHandle& h) { return h.get().noise_dominates; })
      .def_property_readonly("warnings", [](const ModelHandle& h) { return h.get().warnings; })
      .def_property_readonly("class_decision",
                             [](const ModelHandle& h) { return h.kernel_result().class_decision; })
      .def_property_readonly("points",
                             [](const ModelHandle& h) {
                               py::list points;
                               for (const auto& p : h.get().points) points.append(point_dict(p));
                               return points;
                             })
      .def_property_readonly("predictions",
                             [](const ModelHandle& h) { return h.get().predictions; })
      .def_property_readonly("budget_crossing",
                             [](const ModelHandle& h) -> py::object {
                               return h.get().budget ? py::cast(*h.get().budget) : py::none();
                             })
      .def("predict", predict_at, py::arg("at"), py::arg("confidence") = py::none(),
           "The prediction at thread count `at`, with its interval at `confidence` (default: the "
           "fit's).")
      .def("budget", budget_of, py::arg("budget"), py::arg("confidence") = py::none(),
           py::arg("limit") = double(1 << 20),
           "The smallest thread count whose predicted cost exceeds `budget`: '4x' (of the first "
           "resolved cost), '10us', or a number in the data's unit.")
      .def("__repr__", [](const ModelHandle& h) {
        const ClassModel& c = h.get();
        return fmt::format("Model({}: {})", h.label(),
                           c.has_model() ? c.model.to_string(h.parameter(), 4) : "no model");
      });
}

void bind_model_set(py::module_& m) {
  py::class_<ModelSet>(m, "ModelSet", "The models of one fit or one models.json.")
      .def("__len__", [](const ModelSet& s) { return s.models.size(); })
      .def("__getitem__",
           [](const ModelSet& s, long i) {
             const long n = static_cast<long>(s.models.size());
             if (i < 0) i += n;
             if (i < 0 || i >= n) throw py::index_error("model index out of range");
             return s.models[static_cast<std::size_t>(i)];
           })
      .def(
          "__iter__",
          [](const ModelSet& s) { return py::make_iterator(s.models.begin(), s.models.end()); },
          py::keep_alive<0, 1>())
      .def_property_readonly("parameter",
                             [](const ModelSet& s) { return s.file->dataset.parameter; })
      .def_property_readonly("key_columns",
                             [](const ModelSet& s) { return s.file->dataset.key_columns; })
      .def_property_readonly("sources", [](const ModelSet& s) { return s.file->dataset.sources; })
      .def_property_readonly("options", [](const ModelSet& s) { return s.file->options_json; })
      .def_property_readonly("ompscale_version",
                             [](const ModelSet& s) { return s.file->ompscale_version; })
      .def("__repr__", [](const ModelSet& s) {
        return fmt::format("ModelSet({} models of {} kernels over {})", s.models.size(),
                           s.file->results.size(), s.file->dataset.parameter);
      });
}

void define_module(py::module_& m) {
  m.doc() = "The modeler of ompscale (see the ompscale package).";
  py::register_exception<UsageError>(m, "UsageError", PyExc_ValueError);
  py::register_exception<InputError>(m, "InputError", PyExc_ValueError);
  bind_values(m);
  bind_model(m);
  bind_model_set(m);
  m.def(
      "fit",
      [](const std::vector<std::string>& args, std::optional<std::string> text,
         const std::string& name) {
        std::vector<std::string> notes;
        modeler::NamedText input{name, text.value_or("")};
        std::optional<ModelsFile> file;
        {
          // Other Python threads run while the kernels are fitted (OpenMP, in C++ only).
          py::gil_scoped_release unlocked;
          file = modeler::fit_command_line(args, text ? &input : nullptr, notes);
        }
        return py::make_tuple(ModelSet(std::move(*file)), notes);
      },
      py::arg("args"), py::arg("text") = py::none(), py::arg("name") = "<DataFrame>",
      "`modeler fit ARGS`: the models and the notes the CLI prints on stderr. An input '-' is "
      "`text` when given.");
  m.def(
      "read_models",
      [](const std::string& path) { return ModelSet(modeler::read_single_parameter_models(path)); },
      py::arg("path"), "A models.json (modeler fit --format json).");
  m.def("version", [] { return version_string(); });
}

}  // namespace

}  // namespace ompscale::python

PYBIND11_MODULE(_core, m) {
  ompscale::python::define_module(m);
}
