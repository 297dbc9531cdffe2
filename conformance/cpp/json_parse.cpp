// Reference JSON parser: reads one JSON document per line (its UTF-8 bytes as
// lowercase hex, `-` for none), parses it with the C++ reference's JSON
// parser into a FlexBuffer (`flatbuffers::Parser::ParseFlexBuffer`, which
// drives a `flexbuffers::Builder` with the default flags, keys shared), and
// prints one line per document: the finished buffer as lowercase hex, or
// `rejected MESSAGE` when the parser refuses the text. A line that is not hex
// prints `error LINE: MESSAGE` and exits 2. See PROTOCOL.md.

#include <flatbuffers/flexbuffers.h>
#include <flatbuffers/idl.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

namespace {

[[noreturn]] void Fail(size_t line, const std::string &message) {
  std::cout << "error " << line << ": " << message << '\n' << std::flush;
  std::exit(2);
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::string FromHex(const std::string &hex, size_t line) {
  if (hex == "-") return std::string();
  if (hex.empty() || hex.size() % 2 != 0) Fail(line, "odd or empty hex");
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = HexDigit(hex[i]), lo = HexDigit(hex[i + 1]);
    if (hi < 0 || lo < 0) Fail(line, "not lowercase hex");
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

}  // namespace

int main() {
  std::ios::sync_with_stdio(false);
  static const char kDigits[] = "0123456789abcdef";
  std::string hex;
  size_t line = 0;
  while (std::getline(std::cin, hex)) {
    line++;
    std::string text = FromHex(hex, line);
    flatbuffers::Parser parser;
    flexbuffers::Builder builder;  // BUILDER_FLAG_SHARE_KEYS, as flatc uses
    if (!parser.ParseFlexBuffer(text.c_str(), nullptr, &builder)) {
      std::string message = parser.error_;
      for (char &c : message)
        if (c == '\n' || c == '\r') c = ' ';
      std::cout << "rejected " << message << '\n';
      continue;
    }
    const std::vector<uint8_t> &buf = builder.GetBuffer();
    std::string out;
    out.reserve(buf.size() * 2);
    for (uint8_t b : buf) {
      out.push_back(kDigits[b >> 4]);
      out.push_back(kDigits[b & 15]);
    }
    std::cout << out << '\n';
  }
  std::cout << std::flush;
  return 0;
}
