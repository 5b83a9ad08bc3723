#include "cli/lsp_disk_reader.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "cli/evidence_inputs.hpp"
#include "cli/input_files.hpp"
#include "lsp/document_text.hpp"

namespace ff::cli {

namespace {

class MappedDiskReader : public lsp::DiskFileReader {
 public:
  Piece read_from(const std::string& path, std::size_t from) override {
    std::error_code ec;
    auto st = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(st))
      throw std::runtime_error(
          path + ": cannot read: " + (ec ? ec.message() : std::string("no such file")));
    if (std::filesystem::is_directory(st))
      throw std::runtime_error(path + ": is a directory, not a log file");
    // A FIFO would block a worker until its writer closes it, and a device never ends.
    if (!std::filesystem::is_regular_file(st))
      throw std::runtime_error(path + ": not a regular file (a FIFO, device or socket)");
    if (from > 0) {
      // A poll that finds the file as it was maps nothing.
      auto size = std::filesystem::file_size(path, ec);
      if (!ec && size == from) return {std::string(), from, from};
    }
    std::vector<InputFile> files;
    InputError error;
    if (!open_inputs({path}, files, error) || files.size() != 1)
      throw std::runtime_error(error.path.empty() ? path + ": " + error.message
                                                  : error.path + ": " + error.message);
    const InputFile& f = files.front();
    std::string_view text = f.text();
    Piece piece;
    piece.from = from <= text.size() ? from : 0;  // shorter: truncated or replaced
    piece.size = text.size();
    std::size_t n = text.size() - piece.from;
    piece.bytes.reserve(piece.from == 0 ? lsp::text_capacity_for(n) : n);
    // A big file is copied with pread() (InputFile::read: cheaper than touching a fresh
    // mapping); otherwise, or when the read comes up short, window by window from the
    // mapping, each window's pages dropped once copied: a 200 MB file costs its copy, not
    // its copy and its mapping.
    if (f.readable()) {
      piece.bytes.resize(n);
      if (f.read(piece.from, piece.bytes.data(), n) == n) return piece;
      piece.bytes.clear();
    }
    constexpr std::size_t kWindow = std::size_t{16} << 20;
    for (std::size_t at = piece.from; at < text.size(); at += kWindow) {
      std::size_t end = std::min(text.size(), at + kWindow);
      f.prefetch(at, end);
      piece.bytes.append(text.substr(at, end - at));
      f.release(at, end);
    }
    if (f.truncated())
      throw std::runtime_error(path + ": the file shrank while it was read; reading it again");
    return piece;
  }

  std::vector<std::string> list_inputs(const std::string& path) override {
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) throw std::runtime_error(path + ": not a folder");
    std::vector<std::string> out;
    std::string why;
    if (!list_directory_inputs(path, out, why))
      throw std::runtime_error(path + ": cannot list: " + why);
    return out;
  }

  std::vector<std::string> read_evidence(const std::vector<std::string>& paths,
                                         std::vector<Piece>& pieces) override {
    std::vector<EvidenceInput> views;
    views.reserve(paths.size());
    for (std::size_t i = 0; i < paths.size() && i < pieces.size(); ++i)
      views.push_back({paths[i], pieces[i].bytes});
    EvidenceTexts ev = convert_evidence(views);
    std::vector<std::string> problems;
    for (const auto* list : {&ev.dump_problems, &ev.ras_problems})
      for (const auto& p : *list)
        problems.push_back(p.path + (list == &ev.ras_problems ? ":" : ": ") + p.message);
    for (auto& [i, text] : ev.texts) {
      pieces[i].bytes = std::move(text);
      pieces[i].evidence = true;
    }
    return problems;
  }
};

}  // namespace

std::shared_ptr<lsp::DiskFileReader> make_lsp_disk_reader() {
  return std::make_shared<MappedDiskReader>();
}

}  // namespace ff::cli
