#pragma once
// Output writers: turn a Dataset and its models into the files the modeler writes. Every writer
// returns the whole content as a string; the CLI writes it with write_output() (common/
// output_file.h), so an output is either complete or absent. docs/output-formats.md describes
// each format field by field.
//
//   writer                              output                      header
//   format_text_report()                text report (default)       modeler/io/write_text.h
//   format_models_json()                models.json                 modeler/io/models_json.h
//   read_models_json()                  models.json read back       modeler/io/models_json.h
//   format_models_csv()                 one CSV row per model       modeler/io/write_csv.h
//   format_extrap_text()                measurements for Extra-P    modeler/io/write_extrap.h
//   plot_svg()                          SVG small multiples         modeler/io/plot_svg.h
//   format_comparison[_json]()          two models files compared   modeler/io/compare.h

#include "modeler/io/compare.h"
#include "modeler/io/models_json.h"
#include "modeler/io/plot_svg.h"
#include "modeler/io/write_csv.h"
#include "modeler/io/write_extrap.h"
#include "modeler/io/write_text.h"
