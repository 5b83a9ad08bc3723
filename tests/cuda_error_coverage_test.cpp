// How much of what the CUDA runtime (or HIP) can report the built-in catalog recognises.
//
//   ff_cuda_error_coverage_test [--min F] [--verbose] [--rules DIR] ERRORS_TSV
//
// ERRORS_TSV is tests/data/cuda-errors.tsv or tests/data/hip-errors.tsv (one row per
// cudaError_t / hipError_t value: code, enum name, CUresult name, the text
// cudaGetErrorString / hipGetErrorString returns, the taxonomy category it belongs to; see
// tests/data/README.md). Each row is rendered as its producers print it:
//
//   pytorch   RuntimeError: CUDA error: <string>            (c10/cuda/CUDAException; HIP error:
//                                                           on ROCm builds)
//   nccl      host:pid:tid [0] NCCL WARN Cuda failure '<string>'   (NCCL src/include/checks.h;
//                                                           RCCL: HIP failure '<string>')
//   enum      cudaStreamSynchronize returned cudaErrorXxx   (the name cudaGetErrorName gives)
//   curesult  cuStreamSynchronize returned CUDA_ERROR_XXX   (rows with a CUresult name)
//
// and matched against the catalog. A rendering is covered when the rule that speaks for it
// (as in the scan: analysis::line_precedence) is specific and names the row's category.
// Specific: not a fallback rule, and not the rule that speaks for the same rendering of a
// string no rule can know ("CUDA error: <nonsense>" is taken by the catch-all that reads any
// CUDA error as `cuda`; that one names every row `cuda` without knowing any).
//
// Prints the counts per rendering and per category, the renderings not covered (with the
// rule that took them and its category), and fails when the share of renderings covered is
// below --min (a fraction; default 0.90). --rules DIR measures the rules in DIR instead of the
// built-in catalog (an older checkout's rules/, for a before-and-after figure).
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "analysis/catalog.hpp"
#include "cli/rule_set.hpp"
#include "coverage_common.hpp"
#include "percent.hpp"
#include "test_args.hpp"

namespace {

using ff::analysis::Catalog;

struct Row {
  std::string code, name, curesult, text, category;
};

struct Form {
  std::string id;
  std::string (*render)(const Row&, bool hip);
};

std::string render_pytorch(const Row& r, bool hip) {
  return std::string("RuntimeError: ") + (hip ? "HIP" : "CUDA") + " error: " + r.text;
}

std::string render_nccl(const Row& r, bool hip) {
  return std::string("node01:1234:1290 [0] NCCL WARN ") + (hip ? "HIP" : "Cuda") + " failure '" +
         r.text + "'";
}

std::string render_enum(const Row& r, bool hip) {
  return std::string(hip ? "hipStreamSynchronize" : "cudaStreamSynchronize") + " returned " +
         r.name;
}

std::string render_curesult(const Row& r, bool) {
  return "cuStreamSynchronize returned " + r.curesult;
}

const Form kForms[] = {
    {"pytorch", render_pytorch},
    {"nccl", render_nccl},
    {"enum", render_enum},
    {"curesult", render_curesult},
};

struct Tally {
  int total = 0, covered = 0;
};

int usage() {
  std::cerr << "usage: ff_cuda_error_coverage_test [--min F] [--verbose] [--rules DIR] ERRORS_TSV\n"
               "  F is a fraction in [0, 1] (default 0.90)\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  double min_share = 0.90;
  bool verbose = false;
  std::string tsv, rules_dir;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--min" || a.rfind("--min=", 0) == 0) {
      const char* v = ff::test::flag_value(argc, argv, i, "--min");
      if (!v || !ff::test::parse_fraction(v, min_share)) return usage();
    } else if (a == "--rules" && i + 1 < argc) {
      rules_dir = argv[++i];
    } else if (a == "--verbose") {
      verbose = true;
    } else if (!a.empty() && a[0] == '-') {
      return usage();
    } else if (tsv.empty()) {
      tsv = a;
    } else {
      return usage();
    }
  }
  if (tsv.empty() || !std::filesystem::is_regular_file(tsv)) return usage();

  auto loaded = rules_dir.empty() ? ff::cli::load_catalog({})
                                  : ff::cli::load_catalog({rules_dir}, /*builtin=*/false);
  for (const auto& p : loaded.problems) std::cerr << "rule problem: " << p.to_string() << "\n";
  const Catalog& catalog = loaded.catalog;

  std::vector<Row> rows;
  for (const auto& f : ff::test::tsv_records(tsv))
    if (f.size() >= 5 && !f[3].empty()) rows.push_back({f[0], f[1], f[2], f[3], f[4]});
  bool hip = !rows.empty() && rows.front().name.rfind("hipError", 0) == 0;
  const char* title = hip ? "hip_error_coverage" : "cuda_error_coverage";

  // The rule (if any) that speaks for each rendering of a string no rule can know: a
  // catch-all for that rendering, which names a category without recognising the error.
  Row nonsense{"4242", hip ? "hipErrorZqFrobnicated" : "cudaErrorZqFrobnicated",
               "CUDA_ERROR_ZQ_FROBNICATED", "zq frobnicated the quux", "none"};
  std::map<std::string, std::string> catch_all;
  for (const auto& form : kForms) {
    const auto* r = ff::test::winner_of(catalog, form.render(nonsense, hip));
    catch_all[form.id] = r ? r->id : "";
  }

  std::map<std::string, Tally> per_form, per_category;
  Tally all;
  std::vector<std::string> missed;
  for (const auto& row : rows) {
    for (const auto& form : kForms) {
      if (form.id == "curesult" && (hip || row.curesult.empty() || row.curesult == "-")) continue;
      std::string line = form.render(row, hip);
      auto v = ff::test::judge(catalog, {line});
      bool specific = v.recognised && v.winner != catch_all[form.id];
      bool covered = specific && v.category == row.category;
      for (Tally* t : {&per_form[form.id], &per_category[row.category], &all}) {
        ++t->total;
        if (covered) ++t->covered;
      }
      if (covered) {
        if (verbose)
          std::cout << "  ok   [" << v.winner << " " << v.category << "] " << line << "\n";
        continue;
      }
      std::string why = v.winner.empty() ? "no rule"
                        : !v.recognised  ? v.role + " " + v.winner
                        : !specific      ? "catch-all " + v.winner + " (" + v.category + ")"
                                         : v.winner + " names " + v.category;
      missed.push_back(row.code + " " + row.name + " [" + form.id + ", want " + row.category +
                       "; " + why + "]\n      " + line);
    }
  }

  std::cout << "\n== " << title << ": catch-all rules per rendering (not counted)\n";
  for (const auto& [form, id] : catch_all)
    std::cout << "  " << std::left << std::setw(10) << form << std::right << (id.empty() ? "-" : id)
              << "\n";
  std::cout << "\n== " << title << ": per rendering (covered/total)\n";
  for (const auto& [form, t] : per_form)
    std::cout << "  " << std::left << std::setw(16) << form << std::right << std::setw(4)
              << t.covered << "/" << std::left << std::setw(4) << t.total << std::right << " "
              << ff::test::percent(t.covered, t.total) << "\n";
  std::cout << "\n== " << title << ": per category (covered/total)\n";
  for (const auto& [cat, t] : per_category)
    std::cout << "  " << std::left << std::setw(16) << cat << std::right << std::setw(4)
              << t.covered << "/" << std::left << std::setw(4) << t.total << std::right << " "
              << ff::test::percent(t.covered, t.total) << "\n";
  std::cout << "\n== " << title << ": not covered (" << missed.size() << ")\n";
  for (const auto& m : missed) std::cout << "  " << m << "\n";
  std::cout << "\n== " << title << ": covered " << all.covered << "/" << all.total << " ("
            << ff::test::percent(all.covered, all.total) << ")\n";
  double share = all.total ? static_cast<double>(all.covered) / all.total : 0.0;
  bool pass = all.total > 0 && share + 1e-9 >= min_share;
  std::cout << "threshold " << min_share * 100 << "%: " << title << ": "
            << (pass ? "PASS" : "FAIL (below threshold)") << "\n";
  return pass ? 0 : 1;
}
