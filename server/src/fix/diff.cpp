#include "fix/diff.hpp"

#include <algorithm>
#include <vector>

namespace ff::fix {

namespace {

struct DLine {
  std::string_view text;  // without '\n'
  bool newline = true;    // ended by '\n'
  bool operator==(const DLine& o) const { return text == o.text && newline == o.newline; }
};

std::vector<DLine> lines_of(std::string_view t) {
  std::vector<DLine> out;
  std::size_t pos = 0;
  while (pos < t.size()) {
    std::size_t nl = t.find('\n', pos);
    if (nl == std::string_view::npos) {
      out.push_back({t.substr(pos), false});
      break;
    }
    out.push_back({t.substr(pos, nl - pos), true});
    pos = nl + 1;
  }
  return out;
}

enum class Op { Keep, Del, Add };
struct Step {
  Op op;
  std::size_t ai, bi;  // line indexes in a and b (the one that applies)
};

// LCS on the middle part (common prefix/suffix already removed); quadratic but the middle
// of a launch-file edit is a few lines. Huge middles degrade to delete-all/add-all.
void diff_middle(const std::vector<DLine>& a, const std::vector<DLine>& b, std::size_t a0,
                 std::size_t a1, std::size_t b0, std::size_t b1, std::vector<Step>& out) {
  std::size_t n = a1 - a0, m = b1 - b0;
  if (n * m > 16'000'000) {
    for (std::size_t i = a0; i < a1; ++i) out.push_back({Op::Del, i, b0});
    for (std::size_t j = b0; j < b1; ++j) out.push_back({Op::Add, a1, j});
    return;
  }
  std::vector<std::vector<unsigned>> L(n + 1, std::vector<unsigned>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      L[i][j] = a[a0 + i] == b[b0 + j] ? L[i + 1][j + 1] + 1 : std::max(L[i + 1][j], L[i][j + 1]);
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[a0 + i] == b[b0 + j]) {
      out.push_back({Op::Keep, a0 + i, b0 + j});
      ++i, ++j;
    } else if (i < n && (j == m || L[i + 1][j] >= L[i][j + 1])) {
      out.push_back({Op::Del, a0 + i, b0 + j});
      ++i;
    } else {
      out.push_back({Op::Add, a0 + i, b0 + j});
      ++j;
    }
  }
}

void put_line(std::string& out, char tag, const DLine& l) {
  out += tag;
  out.append(l.text);
  out += '\n';
  if (!l.newline) out += "\\ No newline at end of file\n";
}

std::string range(std::size_t start, std::size_t count) {
  // diff -u: "start,count"; an empty range names the line before it.
  std::size_t s = count == 0 ? start : start + 1;
  if (count == 1) return std::to_string(s);
  return std::to_string(s) + "," + std::to_string(count);
}

}  // namespace

std::string unified_diff(std::string_view at, std::string_view bt, const std::string& a_name,
                         const std::string& b_name, int context) {
  if (at == bt) return "";
  auto a = lines_of(at), b = lines_of(bt);
  std::size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  std::size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre &&
         a[a.size() - 1 - suf] == b[b.size() - 1 - suf])
    ++suf;
  std::vector<Step> steps;
  for (std::size_t i = 0; i < pre; ++i) steps.push_back({Op::Keep, i, i});
  diff_middle(a, b, pre, a.size() - suf, pre, b.size() - suf, steps);
  for (std::size_t k = 0; k < suf; ++k)
    steps.push_back({Op::Keep, a.size() - suf + k, b.size() - suf + k});

  std::string out = "--- " + a_name + "\n+++ " + b_name + "\n";
  const std::size_t ctx = static_cast<std::size_t>(std::max(context, 0));
  std::size_t k = 0;
  while (k < steps.size()) {
    // Next change.
    std::size_t c = k;
    while (c < steps.size() && steps[c].op == Op::Keep) ++c;
    if (c == steps.size()) break;
    std::size_t start = c >= ctx ? c - ctx : 0;
    if (start < k) start = k;
    // Extend the hunk while changes are within 2*ctx lines of each other.
    std::size_t end = c;
    while (true) {
      while (end < steps.size() && steps[end].op != Op::Keep) ++end;
      std::size_t keep = end;
      while (keep < steps.size() && steps[keep].op == Op::Keep) ++keep;
      if (keep < steps.size() && keep - end <= 2 * ctx) {
        end = keep;
        continue;
      }
      end = std::min(end + ctx, keep);
      break;
    }
    std::size_t a_start = steps[start].ai, b_start = steps[start].bi, na = 0, nb = 0;
    for (std::size_t s = start; s < end; ++s) {
      if (steps[s].op != Op::Add) ++na;
      if (steps[s].op != Op::Del) ++nb;
    }
    out += "@@ -" + range(a_start, na) + " +" + range(b_start, nb) + " @@\n";
    for (std::size_t s = start; s < end; ++s) {
      const Step& st = steps[s];
      if (st.op == Op::Keep)
        put_line(out, ' ', a[st.ai]);
      else if (st.op == Op::Del)
        put_line(out, '-', a[st.ai]);
      else
        put_line(out, '+', b[st.bi]);
    }
    k = end;
  }
  return out;
}

}  // namespace ff::fix
