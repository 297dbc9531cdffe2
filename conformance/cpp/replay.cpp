// Reference replayer: turns the line protocol of PROTOCOL.md into calls on the
// C++ flexbuffers::Builder (Debian libflatbuffers-dev) and prints the finished
// buffers as lowercase hex, so golden bytes come from the reference builder
// and not from our own code.
//
// Two kinds of failure are kept apart on purpose:
// - a line the protocol does not allow (bad token, unknown op, an op outside a
//   case, a slot that was never marked, an unbalanced start/end) prints
//   `error LINE: MESSAGE` on stdout and exits 2;
// - a well-formed line whose call the builder itself rejects trips the
//   builder's own assertion and aborts, which is why this file refuses to
//   compile with NDEBUG.

#ifdef NDEBUG
#error "replay.cpp must be built with assertions on (do not define NDEBUG)"
#endif

#include <flatbuffers/flexbuffers.h>

#include <cassert>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace {

[[noreturn]] void Fail(size_t line, const std::string &message) {
  std::cout << "error " << line << ": " << message << '\n' << std::flush;
  std::exit(2);
}

// Splits on single spaces; an empty token means a doubled, leading or
// trailing space, which the protocol does not allow.
std::vector<std::string> Tokens(const std::string &text, size_t line) {
  if (text.empty()) Fail(line, "empty line");
  if (text.find('\r') != std::string::npos)
    Fail(line, "carriage return in line (lines end with \\n only)");
  std::vector<std::string> out;
  size_t begin = 0;
  for (;;) {
    size_t end = text.find(' ', begin);
    std::string token =
        text.substr(begin, end == std::string::npos ? end : end - begin);
    if (token.empty()) Fail(line, "tokens must be separated by single spaces");
    out.push_back(token);
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return out;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Canonical unsigned decimal: digits only, no sign, no leading zero.
uint64_t ParseU64(const std::string &s, size_t line) {
  if (s.empty()) Fail(line, "empty integer");
  if (s.size() > 1 && s[0] == '0')
    Fail(line, "leading zero in integer '" + s + "'");
  uint64_t value = 0;
  for (char c : s) {
    if (!IsDigit(c)) Fail(line, "not a decimal integer: '" + s + "'");
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10)
      Fail(line, "integer out of range for u64: '" + s + "'");
    value = value * 10 + digit;
  }
  return value;
}

// Canonical signed decimal: optional '-', no '+', no leading zero, no "-0".
int64_t ParseI64(const std::string &s, size_t line) {
  bool negative = !s.empty() && s[0] == '-';
  std::string digits = negative ? s.substr(1) : s;
  if (digits.empty() || !IsDigit(digits[0]))
    Fail(line, "not a decimal integer: '" + s + "'");
  uint64_t magnitude = ParseU64(digits, line);
  if (negative) {
    if (magnitude == 0) Fail(line, "negative zero integer '" + s + "'");
    uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1;
    if (magnitude > limit)
      Fail(line, "integer out of range for i64: '" + s + "'");
    // Two's complement negation in unsigned arithmetic, so INT64_MIN is fine.
    return static_cast<int64_t>(~magnitude + 1);
  }
  if (magnitude >
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    Fail(line, "integer out of range for i64: '" + s + "'");
  return static_cast<int64_t>(magnitude);
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Exactly `digits` lowercase hex digits, as the IEEE-754 bit pattern.
uint64_t ParseBits(const std::string &s, size_t digits, size_t line) {
  if (s.size() != digits)
    Fail(line, "float bits must be " + std::to_string(digits) +
                   " lowercase hex digits: '" + s + "'");
  uint64_t bits = 0;
  for (char c : s) {
    int d = HexDigit(c);
    if (d < 0) Fail(line, "not lowercase hex: '" + s + "'");
    bits = (bits << 4) | static_cast<uint64_t>(d);
  }
  return bits;
}

float ParseF32(const std::string &s, size_t line) {
  uint32_t bits = static_cast<uint32_t>(ParseBits(s, 8, line));
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

double ParseF64(const std::string &s, size_t line) {
  uint64_t bits = ParseBits(s, 16, line);
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// Byte string: lowercase hex, `-` for empty. Returned in a std::string
// because Key() and String() copy len + 1 bytes, so the data must be followed
// by a NUL, which std::string guarantees.
std::string ParseBytes(const std::string &s, size_t line) {
  if (s == "-") return std::string();
  if (s.size() % 2 != 0) Fail(line, "odd number of hex digits: '" + s + "'");
  std::string out;
  out.reserve(s.size() / 2);
  for (size_t i = 0; i < s.size(); i += 2) {
    int hi = HexDigit(s[i]);
    int lo = HexDigit(s[i + 1]);
    if (hi < 0 || lo < 0) Fail(line, "not lowercase hex: '" + s + "'");
    out.push_back(static_cast<char>((hi << 4) | lo));
  }
  return out;
}

bool ParseBool(const std::string &s, size_t line) {
  if (s == "0") return false;
  if (s == "1") return true;
  Fail(line, "bool must be 0 or 1: '" + s + "'");
}

void ExpectArgs(const std::vector<std::string> &t, size_t n, size_t line) {
  if (t.size() != n + 1)
    Fail(line, "'" + t[0] + "' takes " + std::to_string(n) + " argument" +
                   (n == 1 ? "" : "s") + ", got " +
                   std::to_string(t.size() - 1));
}

// Element values of scalar_vector / fixed_vector, range-checked into T.
template<typename T>
std::vector<T> SignedElems(const std::vector<std::string> &t, size_t line) {
  std::vector<T> out;
  for (size_t i = 3; i < t.size(); i++) {
    int64_t v = ParseI64(t[i], line);
    if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max())
      Fail(line, "value " + t[i] + " does not fit in " +
                     std::to_string(sizeof(T)) + " signed byte(s)");
    out.push_back(static_cast<T>(v));
  }
  return out;
}

template<typename T>
std::vector<T> UnsignedElems(const std::vector<std::string> &t, size_t line) {
  std::vector<T> out;
  for (size_t i = 3; i < t.size(); i++) {
    uint64_t v = ParseU64(t[i], line);
    if (v > std::numeric_limits<T>::max())
      Fail(line, "value " + t[i] + " does not fit in " +
                     std::to_string(sizeof(T)) + " unsigned byte(s)");
    out.push_back(static_cast<T>(v));
  }
  return out;
}

// elems is const so data() is `const T *` and size() an rvalue: that selects
// Vector(const T *, size_t) rather than the functor form Vector(F, T &state).
template<typename T>
void Emit(flexbuffers::Builder &b, const std::vector<T> &elems, bool fixed) {
  if (fixed) {
    b.FixedTypedVector(elems.data(), elems.size());
  } else {
    b.Vector(elems.data(), elems.size());
  }
}

// `scalar_vector` and `fixed_vector`: KIND WIDTH V...
void ScalarVector(flexbuffers::Builder &b, const std::vector<std::string> &t,
                  bool fixed, size_t line) {
  if (t.size() < 3) Fail(line, "'" + t[0] + "' needs KIND and WIDTH");
  const std::string &kind = t[1];
  uint64_t width = ParseU64(t[2], line);
  size_t count = t.size() - 3;
  if (fixed && (count < 2 || count > 4))
    Fail(line, "fixed_vector takes 2 to 4 values, got " +
                   std::to_string(count));
  if (kind == "int") {
    switch (width) {
      case 1: return Emit(b, SignedElems<int8_t>(t, line), fixed);
      case 2: return Emit(b, SignedElems<int16_t>(t, line), fixed);
      case 4: return Emit(b, SignedElems<int32_t>(t, line), fixed);
      case 8: return Emit(b, SignedElems<int64_t>(t, line), fixed);
    }
    Fail(line, "int width must be 1, 2, 4 or 8");
  }
  if (kind == "uint") {
    switch (width) {
      case 1: return Emit(b, UnsignedElems<uint8_t>(t, line), fixed);
      case 2: return Emit(b, UnsignedElems<uint16_t>(t, line), fixed);
      case 4: return Emit(b, UnsignedElems<uint32_t>(t, line), fixed);
      case 8: return Emit(b, UnsignedElems<uint64_t>(t, line), fixed);
    }
    Fail(line, "uint width must be 1, 2, 4 or 8");
  }
  if (kind == "float") {
    if (width == 4) {
      std::vector<float> elems;
      for (size_t i = 3; i < t.size(); i++) elems.push_back(ParseF32(t[i], line));
      return Emit(b, elems, fixed);
    }
    if (width == 8) {
      std::vector<double> elems;
      for (size_t i = 3; i < t.size(); i++) elems.push_back(ParseF64(t[i], line));
      return Emit(b, elems, fixed);
    }
    Fail(line, "float width must be 4 or 8");
  }
  if (kind == "bool") {
    // A fixed vector of bools has no wire type (ToTypedVector would assert).
    if (fixed) Fail(line, "fixed_vector KIND must be int, uint or float");
    if (width != 1) Fail(line, "bool width must be 1");
    // std::vector<bool> is packed and has no data(), so use a real array.
    std::unique_ptr<bool[]> elems(new bool[count == 0 ? 1 : count]);
    for (size_t i = 0; i < count; i++) elems[i] = ParseBool(t[i + 3], line);
    // A const pointer and an rvalue length: with `bool *` and an lvalue
    // size_t, overload resolution picks the functor form Vector(F, T &state).
    const bool *data = elems.get();
    b.Vector(data, static_cast<size_t>(count));
    return;
  }
  Fail(line, "unknown vector KIND '" + kind + "'");
}

struct OpenContainer {
  size_t start;
  bool is_map;
  size_t line;
};

// Everything that belongs to one `case ... finish`.
struct Case {
  explicit Case(int flags, size_t line)
      : builder(new flexbuffers::Builder(
            256, static_cast<flexbuffers::BuilderFlag>(flags))),
        start_line(line) {}
  std::unique_ptr<flexbuffers::Builder> builder;
  std::vector<OpenContainer> open;
  std::vector<flexbuffers::Builder::Value> slots;
  // Mirror of the builder's private value-stack size, so LastValue() is never
  // called on an empty stack (undefined behaviour, not an assertion).
  size_t depth = 0;
  size_t start_line;
};

void PrintHex(const std::vector<uint8_t> &buf) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(buf.size() * 2 + 1);
  for (uint8_t byte : buf) {
    out.push_back(kDigits[byte >> 4]);
    out.push_back(kDigits[byte & 15]);
  }
  out.push_back('\n');
  // Flush per case so earlier cases survive a later assertion abort.
  std::cout << out << std::flush;
}

// Applies one line of a case. Returns true when the line was `finish`.
bool Apply(Case &c, const std::vector<std::string> &t, size_t line) {
  flexbuffers::Builder &b = *c.builder;
  const std::string &op = t[0];
  if (op == "null") {
    ExpectArgs(t, 0, line);
    b.Null();
  } else if (op == "bool") {
    ExpectArgs(t, 1, line);
    b.Bool(ParseBool(t[1], line));
  } else if (op == "int") {
    ExpectArgs(t, 1, line);
    b.Int(ParseI64(t[1], line));
  } else if (op == "uint") {
    ExpectArgs(t, 1, line);
    b.UInt(ParseU64(t[1], line));
  } else if (op == "float") {
    ExpectArgs(t, 1, line);
    b.Float(ParseF32(t[1], line));
  } else if (op == "double") {
    ExpectArgs(t, 1, line);
    b.Double(ParseF64(t[1], line));
  } else if (op == "key") {
    ExpectArgs(t, 1, line);
    std::string bytes = ParseBytes(t[1], line);
    b.Key(bytes.c_str(), bytes.size());
  } else if (op == "string") {
    ExpectArgs(t, 1, line);
    std::string bytes = ParseBytes(t[1], line);
    b.String(bytes.c_str(), bytes.size());
  } else if (op == "blob") {
    ExpectArgs(t, 1, line);
    std::string bytes = ParseBytes(t[1], line);
    b.Blob(bytes.data(), bytes.size());
  } else if (op == "indirect_int") {
    ExpectArgs(t, 1, line);
    b.IndirectInt(ParseI64(t[1], line));
  } else if (op == "indirect_uint") {
    ExpectArgs(t, 1, line);
    b.IndirectUInt(ParseU64(t[1], line));
  } else if (op == "indirect_float") {
    ExpectArgs(t, 1, line);
    b.IndirectFloat(ParseF32(t[1], line));
  } else if (op == "indirect_double") {
    ExpectArgs(t, 1, line);
    double x = ParseF64(t[1], line);
    // Recorded deviation (upstream issue 8340): IndirectDouble picks a 4-byte
    // slot for an f32-exact value but writes the low half of the double into
    // it. Write the f32 instead; the condition is exactly WidthF's.
    if (static_cast<double>(static_cast<float>(x)) == x) {
      b.IndirectFloat(static_cast<float>(x));
    } else {
      b.IndirectDouble(x);
    }
  } else if (op == "start_map" || op == "start_vector") {
    ExpectArgs(t, 0, line);
    bool is_map = op == "start_map";
    size_t start = is_map ? b.StartMap() : b.StartVector();
    assert(start == c.depth);
    c.open.push_back(OpenContainer{start, is_map, line});
    return false;  // pushes nothing
  } else if (op == "end_map") {
    ExpectArgs(t, 0, line);
    if (c.open.empty()) Fail(line, "end_map without start_map");
    if (!c.open.back().is_map)
      Fail(line, "end_map closes the start_vector of line " +
                     std::to_string(c.open.back().line));
    size_t start = c.open.back().start;
    c.open.pop_back();
    b.EndMap(start);
    c.depth = start + 1;
    return false;
  } else if (op == "end_vector") {
    ExpectArgs(t, 2, line);
    bool typed = ParseBool(t[1], line);
    bool fixed = ParseBool(t[2], line);
    if (c.open.empty()) Fail(line, "end_vector without start_vector");
    if (c.open.back().is_map)
      Fail(line, "end_vector closes the start_map of line " +
                     std::to_string(c.open.back().line));
    size_t start = c.open.back().start;
    c.open.pop_back();
    b.EndVector(start, typed, fixed);
    c.depth = start + 1;
    return false;
  } else if (op == "scalar_vector") {
    ScalarVector(b, t, false, line);
  } else if (op == "fixed_vector") {
    ScalarVector(b, t, true, line);
  } else if (op == "force_min_width") {
    ExpectArgs(t, 1, line);
    uint64_t w = ParseU64(t[1], line);
    flexbuffers::BitWidth bw;
    switch (w) {
      case 1: bw = flexbuffers::BIT_WIDTH_8; break;
      case 2: bw = flexbuffers::BIT_WIDTH_16; break;
      case 4: bw = flexbuffers::BIT_WIDTH_32; break;
      case 8: bw = flexbuffers::BIT_WIDTH_64; break;
      default: Fail(line, "force_min_width takes 1, 2, 4 or 8");
    }
    b.ForceMinimumBitWidth(bw);
    return false;  // pushes nothing
  } else if (op == "mark") {
    ExpectArgs(t, 0, line);
    if (c.depth == 0) Fail(line, "mark with no value to remember");
    c.slots.push_back(b.LastValue());
    return false;  // pushes nothing
  } else if (op == "reuse") {
    ExpectArgs(t, 1, line);
    uint64_t slot = ParseU64(t[1], line);
    if (slot >= c.slots.size())
      Fail(line, "reuse of slot " + t[1] + " but only " +
                     std::to_string(c.slots.size()) + " marked in this case");
    b.ReuseValue(c.slots[slot]);
  } else if (op == "finish") {
    ExpectArgs(t, 0, line);
    if (!c.open.empty())
      Fail(line, "finish with the container of line " +
                     std::to_string(c.open.back().line) + " still open");
    // A stack of other than one value is for Finish() itself to reject.
    b.Finish();
    PrintHex(b.GetBuffer());
    return true;
  } else if (op == "case") {
    Fail(line, "case inside the unfinished case of line " +
                   std::to_string(c.start_line));
  } else {
    Fail(line, "unknown operation '" + op + "'");
  }
  c.depth++;  // every remaining operation pushes exactly one value
  return false;
}

}  // namespace

int main() {
  std::ios::sync_with_stdio(false);
  std::unique_ptr<Case> current;
  std::string text;
  size_t line = 0;
  while (std::getline(std::cin, text)) {
    line++;
    std::vector<std::string> t = Tokens(text, line);
    if (!current) {
      if (t[0] != "case") Fail(line, "'" + t[0] + "' outside a case");
      ExpectArgs(t, 1, line);
      uint64_t flags = ParseU64(t[1], line);
      if (flags > 7) Fail(line, "case FLAGS must be 0..7");
      current.reset(new Case(static_cast<int>(flags), line));
      continue;
    }
    if (Apply(*current, t, line)) current.reset();
  }
  if (current)
    Fail(current->start_line, "input ended before this case's finish");
  return 0;
}
