// File helpers for tests: reading a file whole and listing golden files in a
// stable order. Header-only; production code reads files through its own
// error-reporting paths.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace az::testing {

inline std::string ReadTextFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Regular files of `dir` ending in `extension` (".pir"), sorted by path.
inline std::vector<std::filesystem::path> FilesWithExtension(const std::filesystem::path& dir,
                                                             const std::string& extension) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == extension) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace az::testing
