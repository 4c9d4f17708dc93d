// Fits one kernel with the installed modeler library and prints its model and a prediction.
#include <cstdio>

#include "modeler/fit.h"
#include "modeler/io/readers.h"

int main() {
  using namespace ompscale::modeler;
  ReadOptions read;
  read.param_column = "threads";
  read.value_column = "value";
  const Dataset data = parse_dataset("threads,value\n1,1.0\n2,2.1\n4,3.0\n8,3.9\n16,5.1\n32,6.0\n",
                                     "inline.csv", read);
  ModelerOptions options;
  options.parameter = data.parameter;
  options.predict_at = {64};
  const std::vector<KernelResult> results = fit_dataset(data, options);
  const ClassModel& m = results.at(0).models.at(0);
  std::printf("model: %s\n", m.model.to_string(data.parameter).c_str());
  std::printf("at 64: %.3g\n", m.predictions.at(0).value);
  return 0;
}
