#include "support/text_scanner.h"

#include <cstdio>

namespace az {

bool IsIdentStartChar(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsDigitChar(char c) { return c >= '0' && c <= '9'; }
bool IsIdentChar(char c) { return IsIdentStartChar(c) || IsDigitChar(c); }

int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string DescribeByte(char c) {
  auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x20 && byte < 0x7f) return std::string("'") + c + "'";
  char buf[8];
  std::snprintf(buf, sizeof(buf), "0x%02x", byte);
  return buf;
}

void TextScanner::Advance() {
  if (AtEnd()) return;
  if (text_[pos_] == '\n') {
    ++line_;
    col_ = 1;
  } else {
    ++col_;
  }
  ++pos_;
}

void TextScanner::SkipSpaceAndComments() {
  while (!AtEnd()) {
    char c = Peek();
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      Advance();
    } else if (c == '/' && Peek(1) == '/') {
      while (!AtEnd() && Peek() != '\n') Advance();
    } else {
      return;
    }
  }
}

bool TextScanner::ScanQuotedString(std::string* value, ScanError* error, Escapes escapes) {
  int line = line_;
  int col = col_;
  auto fail = [&](int at_line, int at_col, std::string message) {
    *error = {at_line, at_col, std::move(message)};
    return false;
  };
  Advance();  // the opening quote
  value->clear();
  while (true) {
    if (AtEnd() || Peek() == '\n') return fail(line, col, "unterminated string");
    char c = Peek();
    if (c == '"') break;
    if (c == '\\') {
      int escape_line = line_;
      int escape_col = col_;
      Advance();
      char e = Peek();
      if (e == '"' || e == '\\') {
        *value += e;
      } else if (e == 'n') {
        *value += '\n';
      } else if (e == 't') {
        *value += '\t';
      } else if (escapes == Escapes::kPrinter && e == 'x') {
        int high = HexDigitValue(Peek(1));
        int low = high < 0 ? -1 : HexDigitValue(Peek(2));
        if (low < 0) return fail(escape_line, escape_col, "\\x must be followed by two hex digits");
        Advance();
        Advance();
        *value += static_cast<char>(high * 16 + low);
      } else if (escapes == Escapes::kMlir && HexDigitValue(e) >= 0 && HexDigitValue(Peek(1)) >= 0) {
        *value += static_cast<char>(HexDigitValue(e) * 16 + HexDigitValue(Peek(1)));
        Advance();
      } else {
        if (AtEnd() || e == '\n') return fail(line, col, "unterminated string");
        const bool printable = static_cast<unsigned char>(e) >= 0x20 && static_cast<unsigned char>(e) < 0x7f;
        std::string what = escapes == Escapes::kPrinter && printable ? "'\\" + std::string(1, e) + "'"
                                                                      : "\\ followed by " + DescribeByte(e);
        return fail(escape_line, escape_col, "unknown escape sequence " + what);
      }
      Advance();
      continue;
    }
    if (escapes == Escapes::kPrinter && static_cast<unsigned char>(c) < 0x20 && c != '\t') {
      return fail(line_, col_, "control character " + DescribeByte(c) + " in a string; write it as \\xHH");
    }
    *value += c;
    Advance();
  }
  Advance();  // the closing quote
  return true;
}

}  // namespace az
