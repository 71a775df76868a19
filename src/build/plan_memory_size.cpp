// --memory-budget's value: a size with an optional binary unit. Kept apart
// from the planner because it is a parser and gets hostile input in tests.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "build/plan.hpp"
#include "util/strings.hpp"

namespace flashfit::build {
namespace {

std::optional<std::uint64_t> unit_multiplier(std::string_view unit) {
  const std::string u = util::ascii_lower(unit);
  // GB and MB are read as binary too: a memory budget in decimal units is
  // never what anyone means, and refusing them would only annoy.
  if (u.empty() || u == "b") return 1;
  if (u == "k" || u == "kb" || u == "kib") return std::uint64_t{1} << 10;
  if (u == "m" || u == "mb" || u == "mib") return std::uint64_t{1} << 20;
  if (u == "g" || u == "gb" || u == "gib") return std::uint64_t{1} << 30;
  if (u == "t" || u == "tb" || u == "tib") return std::uint64_t{1} << 40;
  return std::nullopt;
}

}  // namespace

util::Result<std::uint64_t> parse_memory_size(std::string_view text) {
  const std::string shown = util::printable(text, 60);
  auto bad = [&](const std::string& why) {
    return util::fail(util::ErrorKind::usage,
                      fmt::format("\"{}\" is not a memory size: {}", shown, why), "--memory-budget",
                      "for example 16G, 1.5GiB, 800M or 123456 (bytes)");
  };
  const std::string_view s = util::trim(text);
  std::size_t i = 0;
  std::string whole, fraction;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') whole += s[i++];
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') fraction += s[i++];
    if (fraction.empty()) return bad("a digit must follow the decimal point");
  }
  if (whole.empty() && fraction.empty())
    return bad("expected a number, then an optional unit (K, M, G, T)");
  const std::string_view unit = util::trim(s.substr(i));
  const auto multiplier = unit_multiplier(unit);
  if (!multiplier)
    return bad(fmt::format("unknown unit \"{}\" (K, M, G, T, optionally KiB, MiB, ...)",
                           util::printable(unit, 20)));

  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t value = 0;
  for (char c : whole) {
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (kMax - digit) / 10) return bad("too large");
    value = value * 10 + digit;
  }
  if (value > kMax / *multiplier) return bad("too large");
  value *= *multiplier;
  if (!fraction.empty()) {
    if (*multiplier == 1) return bad("bytes are whole numbers");
    // Digits past the 15th cannot change the byte count of any sane size;
    // summed by hand, as std::stod would follow the locale's decimal point.
    double part = 0;
    double scale = 0.1;
    for (std::size_t k = 0; k < fraction.size() && k < 15; ++k, scale /= 10)
      part += (fraction[k] - '0') * scale;
    part *= static_cast<double>(*multiplier);
    const auto extra = static_cast<std::uint64_t>(std::floor(part));
    if (value > kMax - extra) return bad("too large");
    value += extra;
  }
  if (value == 0) return bad("must be more than zero bytes");
  return value;
}

}  // namespace flashfit::build
