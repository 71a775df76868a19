// Why a filter and not a different setup.py: the sdist is built as its
// author wrote it; only the targets nvcc is asked for change.
#include "build/nvcc_filter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "util/strings.hpp"

namespace flashfit::build {
namespace {

using util::ErrorKind;

// "sm_80" / "compute_90a" -> 90; nullopt for other shapes.
std::optional<unsigned> target_number(std::string_view text) {
  const auto us = text.find('_');
  if (us == std::string_view::npos) return std::nullopt;
  const std::string_view head = text.substr(0, us);
  if (head != "sm" && head != "compute" && head != "lto") return std::nullopt;
  unsigned n = 0;
  std::size_t digits = 0;
  std::size_t i = us + 1;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && digits < 4;
       ++i, ++digits)
    n = n * 10 + static_cast<unsigned>(text[i] - '0');
  if (digits < 2) return std::nullopt;
  for (; i < text.size(); ++i)
    if (!std::isalpha(static_cast<unsigned char>(text[i]))) return std::nullopt;  // 90a, 100f
  return n;
}

// "arch=compute_80,code=sm_80" -> 80 (the arch= part decides).
std::optional<unsigned> gencode_number(std::string_view value) {
  if (value.rfind("arch=", 0) != 0) return std::nullopt;
  const auto comma = value.find(',');
  if (comma == std::string_view::npos || value.substr(comma + 1).rfind("code=", 0) != 0)
    return std::nullopt;
  return target_number(value.substr(5, comma - 5));
}

util::Error bad(const std::string& what) {
  return util::Error{ErrorKind::input, what, "nvcc arguments", ""};
}

}  // namespace

util::Result<NvccFiltered> filter_nvcc_args(const std::vector<std::string>& args,
                                            const NvccFilter& filter) {
  NvccFiltered out;
  std::size_t kept_targets = 0;
  const unsigned cap = std::max(1U, filter.max_threads);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    // A flag and its value, as "-flag value" or "-flag=value".
    auto split = [&](std::initializer_list<std::string_view> names)
        -> std::optional<std::pair<std::string, bool>> {
      for (std::string_view n : names) {
        if (a == n) {
          if (i + 1 >= args.size()) return std::pair{std::string(), false};
          return std::pair{args[i + 1], true};
        }
        if (a.size() > n.size() && a.rfind(n, 0) == 0 && a[n.size()] == '=')
          return std::pair{a.substr(n.size() + 1), false};
      }
      return std::nullopt;
    };
    const bool is_gencode = a == "-gencode" || a == "--generate-code" ||
                            a.rfind("-gencode=", 0) == 0 || a.rfind("--generate-code=", 0) == 0;
    const bool is_arch = a == "-arch" || a == "--gpu-architecture" || a.rfind("-arch=", 0) == 0 ||
                         a.rfind("--gpu-architecture=", 0) == 0;
    const bool is_threads = a == "--threads" || a == "-t" || a.rfind("--threads=", 0) == 0;
    if (is_gencode || is_arch || is_threads) {
      auto flag = is_gencode ? split({"-gencode", "--generate-code"})
                  : is_arch  ? split({"-arch", "--gpu-architecture"})
                             : split({"--threads", "-t"});
      if (!flag || (flag->first.empty() && !flag->second))
        return tl::unexpected(bad(fmt::format("{} has no value", util::printable(a, 40))));
      const std::string value = flag->first;
      if (flag->second) ++i;
      if (is_threads) {
        unsigned n = 0;
        const bool digits = !value.empty() && value.size() <= 4 &&
                            std::all_of(value.begin(), value.end(), [](char c) {
                              return std::isdigit(static_cast<unsigned char>(c));
                            });
        if (!digits)
          return tl::unexpected(
              bad(fmt::format("--threads {} is not a count", util::printable(value, 40))));
        for (char c : value) n = n * 10 + static_cast<unsigned>(c - '0');
        // 0 means "all CPUs" to nvcc: capped like any count over the plan.
        out.args.push_back("--threads");
        out.args.push_back(std::to_string(n == 0 ? cap : std::min(n, cap)));
        continue;
      }
      const auto number = is_gencode ? gencode_number(value) : target_number(value);
      if (!number)
        return tl::unexpected(
            bad(fmt::format("{} {} is not a GPU target", is_gencode ? "-gencode" : "-arch",
                            util::printable(value, 60))));
      if (filter.archs.count(*number) == 0) {
        out.dropped.push_back(value);
        continue;
      }
      ++kept_targets;
      out.args.push_back(is_gencode ? "-gencode" : "-arch");
      out.args.push_back(value);
      continue;
    }
    out.args.push_back(a);
  }
  if (kept_targets == 0 && !out.dropped.empty()) {
    return tl::unexpected(bad(fmt::format("none of the targets ({}) is among the requested archs",
                                          util::join(out.dropped, ", "))));
  }
  return out;
}

}  // namespace flashfit::build
