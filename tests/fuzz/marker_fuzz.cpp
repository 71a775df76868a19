// PEP 508 markers: str() parses back to an equal marker, and evaluating the
// reparsed marker gives the same answer (or the same failure).
#include "fuzz_common.hpp"
#include "pkg/marker.hpp"

namespace {
flashfit::pkg::MarkerEnvironment environment() {
  flashfit::pkg::MarkerEnvironment env;
  env.implementation_name = "cpython";
  env.implementation_version = "3.11.2";
  env.os_name = "posix";
  env.platform_machine = "x86_64";
  env.platform_python_implementation = "CPython";
  env.platform_release = "6.1.0-18-amd64";
  env.platform_system = "Linux";
  env.platform_version = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1";
  env.python_full_version = "3.11.2";
  env.python_version = "3.11";
  env.sys_platform = "linux";
  env.extra = "cuda";
  return env;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using flashfit::pkg::Marker;
  static const auto env = environment();
  const auto text = flashfit::fuzz::as_text(data, size);
  auto marker = Marker::parse(text);
  if (!marker) {
    FUZZ_CHECK(!marker.error().message.empty(), "an error without a message");
    return 0;
  }
  // str() prints what packaging 23.0 prints, faults included (docs/
  // packaging-standards.md): a value holding '"' is printed inside '"' (no
  // longer parseable), and a group of one group loses its parentheses, so
  // "a and ((b or c))" prints as "a and b or c"; a value holding '\' is
  // printed as it is, unescaped, so reading the print decodes its escapes
  // once more (packaging 23.0 does the same: each str(Marker(str(m))) of
  // `extra == 'a\\\\f'` loses a level). Beyond those, str() parses back, and
  // printing is a fixpoint from the first reprint on.
  const std::string printed = marker->str();
  // Escapes decoded again (a trailing '\' may not even read back): nothing
  // more to compare.
  if (printed.find('\\') != std::string::npos) return 0;
  // A line break or NUL decoded from an escape (`'a\rb'`, `'1.\0'`) is
  // printed raw, where no quoted value may hold one: packaging 23.0's str()
  // gives the same print and its Marker() refuses it the same way
  // ("unterminated string literal", "source code string cannot contain null
  // bytes").
  if (printed.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) return 0;
  auto again = Marker::parse(printed);
  // Only a value can hold '"', and only when the input had one or an escape
  // that decodes to one (`\x22`).
  if (text.find_first_of("\"\\") == std::string_view::npos) {
    FUZZ_CHECK(again.has_value(), "str() does not parse: " + printed);
  }
  if (!again) return 0;
  const std::string reprinted = again->str();
  auto third = Marker::parse(reprinted);
  FUZZ_CHECK(third.has_value(), "a reprint does not parse: " + reprinted);
  FUZZ_CHECK(third->str() == reprinted,
             "printing is no fixpoint: " + reprinted + " -> " + third->str());
  const auto first = again->evaluate(env);
  const auto second = third->evaluate(env);
  FUZZ_CHECK(first.has_value() == second.has_value(), "evaluation fails once: " + reprinted);
  if (first) FUZZ_CHECK(*first == *second, "evaluation differs: " + reprinted);
  const auto empty = marker->evaluate({});  // every variable unknown: an answer or an error
  (void)empty;
  return 0;
}
