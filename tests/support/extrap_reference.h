#pragma once
// Extra-P's reference models (tests/data/extrap/*.tsv): for each input file, call path
// and metric, the model Extra-P 4.2.5 prints and its RSS, adjusted R^2 and SMAPE. Shared by the
// tests that check `--preset extrap` against them.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace ompscale::test_support {

struct ExtrapReference {
  std::string file, callpath, metric, model;
  double rss = 0.0, adj_r2 = 0.0, smape = 0.0;
};

/// The rows of a reference TSV (its header line skipped).
inline std::vector<ExtrapReference> read_extrap_reference(const std::filesystem::path& tsv) {
  std::ifstream in(tsv);
  std::string line;
  std::getline(in, line);
  std::vector<ExtrapReference> rows;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    ExtrapReference e;
    std::string rss, adj, smape;
    std::getline(fields, e.file, '\t');
    std::getline(fields, e.callpath, '\t');
    std::getline(fields, e.metric, '\t');
    std::getline(fields, e.model, '\t');
    std::getline(fields, rss, '\t');
    std::getline(fields, adj, '\t');
    std::getline(fields, smape, '\t');
    e.rss = std::stod(rss);
    e.adj_r2 = std::stod(adj);
    e.smape = std::stod(smape);
    rows.push_back(e);
  }
  return rows;
}

}  // namespace ompscale::test_support
