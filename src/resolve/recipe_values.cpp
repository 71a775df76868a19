#include "resolve/recipe_values.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "util/strings.hpp"

namespace flashfit::resolve {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_lower(char c) {
  return c >= 'a' && c <= 'z';
}
bool is_alpha(char c) {
  return is_lower(c) || (c >= 'A' && c <= 'Z');
}

bool is_identifier(std::string_view text) {
  if (text.empty() || !(is_alpha(text.front()) || text.front() == '_')) return false;
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return is_alpha(c) || is_digit(c) || c == '_'; });
}

}  // namespace

std::optional<int> parse_small_int(std::string_view text) {
  if (text.empty() || text.size() > 4) return std::nullopt;
  int value = 0;
  for (char c : text) {
    if (!is_digit(c)) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

std::optional<std::pair<int, int>> parse_major_minor(std::string_view text) {
  const std::size_t dot = text.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  auto major = parse_small_int(text.substr(0, dot));
  auto minor = parse_small_int(text.substr(dot + 1));
  if (!major || !minor) return std::nullopt;
  return std::pair{*major, *minor};
}

std::optional<GpuArch> parse_gpu_arch(std::string_view text) {
  const std::size_t at = text.find('@');
  auto cc = parse_major_minor(text.substr(0, at));
  // sm_XY: one digit of minor; majors from 1 (sm_10) to 99 are representable.
  if (!cc || cc->first < 1 || cc->first > 99 || cc->second > 9) return std::nullopt;
  GpuArch arch{cc->first, cc->second, std::nullopt};
  if (at != std::string_view::npos) {
    auto cuda = parse_major_minor(text.substr(at + 1));
    if (!cuda || cuda->first < 1 || cuda->first > 99) return std::nullopt;
    arch.min_cuda = pkg::CudaVersion{cuda->first, cuda->second};
  }
  return arch;
}

std::optional<pkg::VariantScheme> parse_variant_scheme(std::string_view text) {
  for (auto scheme :
       {pkg::VariantScheme::none, pkg::VariantScheme::upstream, pkg::VariantScheme::community,
        pkg::VariantScheme::pyg, pkg::VariantScheme::rocm}) {
    if (pkg::to_string(scheme) == text) return scheme;
  }
  return std::nullopt;
}

std::optional<AbiRule> parse_abi_rule(std::string_view text) {
  for (auto rule : {AbiRule::label, AbiRule::pytorch_official, AbiRule::unknown}) {
    if (to_string(rule) == text) return rule;
  }
  return std::nullopt;
}

bool is_module_name(std::string_view text) {
  if (text.empty() || text.size() > 200) return false;
  for (std::string_view part : util::split(text, '.')) {
    if (!is_identifier(part)) return false;
  }
  return true;
}

bool is_source_name(std::string_view text) {
  if (text.empty() || text.size() > 64 || !is_lower(text.front()) || text.back() == '-')
    return false;
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return is_lower(c) || is_digit(c) || c == '-'; });
}

bool is_repository(std::string_view text) {
  const auto parts = util::split(text, '/');
  if (parts.size() != 2) return false;
  for (std::string_view part : parts) {
    if (part.empty() || part.size() > 100 || part == "." || part == "..") return false;
    const bool ok = std::all_of(part.begin(), part.end(), [](char c) {
      return is_alpha(c) || is_digit(c) || c == '-' || c == '_' || c == '.';
    });
    if (!ok) return false;
  }
  return true;
}

bool is_env_name(std::string_view text) {
  return text.size() <= 128 && is_identifier(text);
}

bool is_cuda_token(std::string_view text) {
  if (text.size() < 4 || text.size() > 6 || text.substr(0, 2) != "cu") return false;
  return std::all_of(text.begin() + 2, text.end(), is_digit);
}

std::optional<std::string> placeholder_problem(std::string_view text,
                                               std::initializer_list<std::string_view> allowed,
                                               std::string_view required_name) {
  bool found_required = required_name.empty();
  std::size_t pos = 0;
  while ((pos = text.find_first_of("{}", pos)) != std::string_view::npos) {
    if (text[pos] == '}') return fmt::format("unmatched '}}' at offset {}", pos);
    const std::size_t close = text.find('}', pos);
    if (close == std::string_view::npos) return fmt::format("unclosed '{{' at offset {}", pos);
    const std::string_view name = text.substr(pos + 1, close - pos - 1);
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      return fmt::format(
          "unknown placeholder {{{}}} (known: {})", util::printable(name, 40),
          util::join(std::vector<std::string>(allowed.begin(), allowed.end()), ", "));
    }
    if (name == required_name) found_required = true;
    pos = close + 1;
  }
  if (!found_required) return fmt::format("must contain {{{}}}", required_name);
  return std::nullopt;
}

}  // namespace flashfit::resolve
