// Renders a topology analysis: the matrix as `nvidia-smi topo -m` prints it, the findings
// and the binding table (text), or all of it as one JSON document.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "topology/binding.hpp"
#include "topology/finding.hpp"
#include "topology/findings.hpp"
#include "topology/path_matrix.hpp"
#include "topology/topology_model.hpp"

namespace ff::topology {

struct TopoAnalysis {
  Topology topology;
  PathMatrix matrix;
  std::vector<Finding> findings;
  Recommendation binding;
};

// Matrix, findings and binding for one loaded topology.
TopoAnalysis analyze_topology(Topology t, const CheckOptions& opt);

std::string render_text(const TopoAnalysis& a);
// Schema "firstfault.topology/1"; "binding" is binding_to_json().
nlohmann::json render_json(const TopoAnalysis& a);

}  // namespace ff::topology
