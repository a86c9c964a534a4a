// File helpers for tests: reading a file whole and listing golden files in a
// stable order. Header-only; production code reads files through its own
// error-reporting paths.
#pragma once

#include <algorithm>
#include <cstdlib>
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

// The shared data folder sits beside the checkout (../shared/data). The path
// of `relative` in it, or "" when the file is not there. Tests need the
// source dir macro AZ_SOURCE_DIR (the test targets define it).
inline std::string SharedDataFile(const std::string& relative) {
#ifdef AZ_SOURCE_DIR
  std::string path = std::string(AZ_SOURCE_DIR) + "/../shared/data/" + relative;
  std::ifstream in(path);
  if (in) return path;
#endif
  return "";
}

}  // namespace az::testing

// In a GoogleTest body: `path` becomes the shared data file `relative`. A
// user's clone may lack the folder: the test then skips; under CI (CI=true) a
// missing file is a failure.
#define AZ_REQUIRE_SHARED_DATA(path, relative)                                                         \
  std::string path = ::az::testing::SharedDataFile(relative);                                          \
  if (path.empty()) {                                                                                  \
    const char* ci_env = std::getenv("CI");                                                            \
    if (ci_env != nullptr && std::string(ci_env) == "true") FAIL() << "missing ../shared/data/" << (relative); \
    GTEST_SKIP() << "../shared/data/" << (relative) << " is not here (a clone without the shared folder)"; \
  }
