// file:// URIs and the paths they name, as the language server converts them: a path's bytes
// other than letters, digits and "/-_.~" are percent-encoded, and any percent escape is
// decoded back. A URI of another scheme (untitled:...) is its own "path".
#pragma once

#include <string>

namespace ff::lsp {

std::string uri_to_path(const std::string& uri);
std::string path_to_uri(const std::string& path);
// The last segment of a URI (its file's name, still encoded), or the whole URI.
std::string uri_file_name(const std::string& uri);

}  // namespace ff::lsp
