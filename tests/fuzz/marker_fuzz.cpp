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
  const std::string printed = marker->str();
  auto again = Marker::parse(printed);
  FUZZ_CHECK(again.has_value(), "str() does not parse: " + printed);
  FUZZ_CHECK(*again == *marker, "str() is not stable: " + printed + " -> " + again->str());
  const auto first = marker->evaluate(env);
  const auto second = again->evaluate(env);
  FUZZ_CHECK(first.has_value() == second.has_value(), "evaluation fails once: " + printed);
  if (first) FUZZ_CHECK(*first == *second, "evaluation differs: " + printed);
  const auto empty = marker->evaluate({});  // every variable unknown: an answer or an error
  (void)empty;
  return 0;
}
