#pragma once
// A streaming JSON writer whose output is byte-identical to nlohmann's
// dump(2) (ensure_ascii off). resolve --json --all prints thousands of
// candidates: building them as a nlohmann tree first (a map and a string
// allocation per key) cost more than the resolution itself (bench/README.md).
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace flashfit::cli {

class PrettyJson {
 public:
  // Appends to `out`; `depth` is the indentation level the first value starts at
  // (a value written inside an object of a dump(2) at that depth).
  explicit PrettyJson(std::string& out, int depth = 0) : out_(out), depth_(depth) {}

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  // A member's key; the next value written is its value.
  void key(std::string_view name);
  void value(std::string_view text);
  void value(const char* text) { value(std::string_view(text)); }
  void value(bool flag);
  void null();
  // Any nlohmann value, through its own dumper (numbers, small parts).
  void any(const nlohmann::json& value);

 private:
  void open(char bracket);
  void close(char bracket);
  void before_value();       // the separator and indentation an array element needs
  void newline(bool comma);  // [","] "\n" and the indentation of this depth
  void escaped(std::string_view text);

  std::string& out_;
  int depth_;
  // Per open container: no member written yet (an empty one prints as {} or []).
  std::vector<char> empty_;  // not vector<bool>: read and written once per value
  bool after_key_ = false;
};

}  // namespace flashfit::cli
