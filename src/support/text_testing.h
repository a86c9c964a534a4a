// Test helpers for the text formats' parsers (PIR, CIR), header-only: the
// golden files' byte-identical round trip, the golden error files' expected
// diagnostic, and the fuzz property checked on
// seeded random edits of the golden files in every test run (a cheap
// stand-in for libFuzzer): deletions, insertions of syntax-relevant
// characters, random bytes, duplicated spans.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "support/test_files.h"

namespace az {

inline std::string MutateText(std::string text, std::mt19937& rng, std::string_view alphabet) {
  int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !text.empty(); ++e) {
    size_t at = rng() % text.size();
    switch (rng() % 4) {
      case 0: text.erase(at, 1 + rng() % 8); break;
      case 1: text.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
      case 2: text[at] = static_cast<char>(rng() % 256); break;
      default: text.insert(at, text.substr(rng() % text.size(), rng() % 16)); break;
    }
  }
  return text;
}

// The fuzz property on `trials` seeded edits of each file: `parse(text, name)`
// (a StatusOr) fails with an error located in `name`, or yields a value that
// `check` accepts without crashing (a verifier, a summary) and that `print`
// prints to a fixed point of parsing and printing. Returns how many edits
// parsed (some, inside a name or a digit, keep the text valid).
template <typename Parse, typename Print, typename Check>
int ExpectMutantsParseOrFailLocated(const std::vector<std::filesystem::path>& files, std::mt19937& rng,
                                    std::string_view alphabet, const std::string& name, Parse parse, Print print,
                                    Check check, int trials = 300) {
  int parsed_count = 0;
  for (const std::filesystem::path& path : files) {
    const std::string original = testing::ReadTextFile(path);
    for (int trial = 0; trial < trials; ++trial) {
      std::string text = MutateText(original, rng, alphabet);
      auto parsed = parse(text, name);
      if (!parsed.ok()) {
        EXPECT_EQ(parsed.status().message().rfind(name + ":", 0), 0u) << parsed.status().message();
        continue;
      }
      ++parsed_count;
      check(*parsed);
      std::string printed = print(*parsed);
      auto again = parse(printed, "printed");
      EXPECT_TRUE(again.ok()) << again.status().message() << "\n" << printed;
      if (!again.ok()) return parsed_count;
      EXPECT_EQ(print(*again), printed);
    }
  }
  return parsed_count;
}

// The golden folder of a text format ("pir", "cir"): tests/golden/<format>
// (AZ_SOURCE_DIR: the test targets define it).
inline std::filesystem::path GoldenDir(const std::string& format) {
  return std::filesystem::path(AZ_SOURCE_DIR) / "tests" / "golden" / format;
}

// The files in `format` (named *.<format>) of its golden folder or of the
// subfolder `sub` ("errors"), sorted.
inline std::vector<std::filesystem::path> GoldenFiles(const std::string& format, const std::string& sub = "") {
  return testing::FilesWithExtension(sub.empty() ? GoldenDir(format) : GoldenDir(format) / sub, "." + format);
}

// Every golden file of `files` parses (`parse(text, name)`, a StatusOr, with
// the file's name), prints back byte-identical (`print`), and the parsed value
// passes `check` (a second round trip).
template <typename Parse, typename Print, typename Check>
void ExpectGoldenFilesRoundTrip(const std::vector<std::filesystem::path>& files, Parse parse, Print print,
                                Check check) {
  for (const std::filesystem::path& path : files) {
    SCOPED_TRACE(path.filename().string());
    const std::string text = testing::ReadTextFile(path);
    auto parsed = parse(text, path.filename().string());
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    EXPECT_EQ(print(*parsed), text);
    check(*parsed);
  }
}

// A golden error file's first line: "// expected-error@LINE:COL: message".
struct ExpectedError {
  int line = 0, col = 0;
  std::string message;
};

inline std::optional<ExpectedError> ParseExpectedError(const std::string& text) {
  const std::string first = text.substr(0, text.find('\n'));
  const std::string tag = "// expected-error@";
  if (first.rfind(tag, 0) != 0) return std::nullopt;
  size_t colon1 = first.find(':', tag.size());
  size_t colon2 = colon1 == std::string::npos ? colon1 : first.find(':', colon1 + 1);
  if (colon2 == std::string::npos || colon2 + 2 > first.size()) return std::nullopt;
  return ExpectedError{std::stoi(first.substr(tag.size(), colon1 - tag.size())),
                       std::stoi(first.substr(colon1 + 1, colon2 - colon1 - 1)), first.substr(colon2 + 2)};
}

// Calls `check(text, name, expected)` on each golden error file of `files`
// with the error its first line expects.
template <typename Check>
void ForEachGoldenErrorFile(const std::vector<std::filesystem::path>& files, Check check) {
  for (const std::filesystem::path& path : files) {
    SCOPED_TRACE(path.filename().string());
    const std::string text = testing::ReadTextFile(path);
    std::optional<ExpectedError> expected = ParseExpectedError(text);
    ASSERT_TRUE(expected.has_value()) << text.substr(0, text.find('\n'));
    check(text, path.filename().string(), *expected);
  }
}

// `rendered` starts with the expected diagnostic: "name:L:C: error: message",
// then the source line, then a caret under column C.
inline void ExpectDiagnostic(const std::string& rendered, const std::string& name, const ExpectedError& expected) {
  std::string prefix = name + ":" + std::to_string(expected.line) + ":" + std::to_string(expected.col) +
                       ": error: " + expected.message;
  EXPECT_EQ(rendered.rfind(prefix, 0), 0u) << rendered;
  size_t caret_line_end = rendered.find('\n', rendered.find('\n', rendered.find('\n') + 1) + 1);
  std::string first_diagnostic = rendered.substr(0, caret_line_end);
  std::string caret_line = "\n  " + std::string(static_cast<size_t>(expected.col - 1), ' ') + "^";
  EXPECT_TRUE(first_diagnostic.size() >= caret_line.size() &&
              first_diagnostic.compare(first_diagnostic.size() - caret_line.size(), caret_line.size(),
                                       caret_line) == 0)
      << rendered;
}

}  // namespace az
