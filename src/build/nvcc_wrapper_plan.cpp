#include "build/nvcc_wrapper_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "build/nvcc_targets.hpp"
#include "util/strings.hpp"

namespace flashfit::build {
namespace {

using util::ErrorKind;

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

// "80", "8.0", "sm_80", "12.0" -> 80 / 120; nullopt otherwise.
std::optional<unsigned> arch_number(std::string text) {
  if (util::starts_with(util::ascii_lower(text), "sm_")) text = text.substr(3);
  if (const auto dot = text.find('.'); dot != std::string::npos) {
    const std::string major = text.substr(0, dot);
    const std::string minor = text.substr(dot + 1);
    if (!all_digits(major) || major.size() > 2 || minor.size() != 1 || !all_digits(minor))
      return std::nullopt;
    const unsigned n =
        static_cast<unsigned>(std::stoul(major)) * 10 + static_cast<unsigned>(minor[0] - '0');
    return n >= 10 ? std::optional<unsigned>(n) : std::nullopt;
  }
  if (text.size() < 2 || text.size() > 3 || !all_digits(text) || text[0] == '0')
    return std::nullopt;
  return static_cast<unsigned>(std::stoul(text));
}

// Single quotes unless the text is plainly safe for /bin/sh.
std::string shell_word(const std::string& text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("_./,=+-:@%").find(c) != std::string_view::npos;
  });
  if (plain) return text;
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::string pytorch_nvcc_unsupported(const env::TorchFacts& torch) {
  if (!torch.version.known()) {
    return fmt::format(
        "torch's version is unknown ({}), and only torch >= {}.{} reads PYTORCH_NVCC",
        torch.version.unknown_reason, kPytorchNvccMajor, kPytorchNvccMinor);
  }
  const auto& release = torch.version->release();
  const int major = release.empty() ? 0 : std::stoi(release[0]);
  const int minor = release.size() < 2 ? 0 : std::stoi(release[1]);
  if (major > kPytorchNvccMajor || (major == kPytorchNvccMajor && minor >= kPytorchNvccMinor))
    return "";
  return fmt::format(
      "torch {}'s cpp_extension ignores PYTORCH_NVCC (read from torch {}.{} on), so flashfit's "
      "nvcc wrapper cannot filter setup.py's -gencode list",
      torch.version->str(), kPytorchNvccMajor, kPytorchNvccMinor);
}

util::Result<std::set<unsigned>> wrapper_arch_numbers(const std::vector<std::string>& archs) {
  std::set<unsigned> out;
  for (const std::string& entry : archs) {
    std::string piece;
    for (char c : entry + ",") {
      if (c != ',' && c != ';' && !std::isspace(static_cast<unsigned char>(c))) {
        piece += c;
        continue;
      }
      if (piece.empty()) continue;
      const auto n = arch_number(piece);
      if (!n) {
        return util::fail(
            ErrorKind::usage,
            fmt::format("{} is not a GPU arch (like 80, 8.0 or sm_80)", util::printable(piece, 40)),
            "--archs", "pass --archs 80,90");
      }
      out.insert(*n);
      piece.clear();
    }
  }
  if (out.empty()) return util::fail(ErrorKind::usage, "no archs given", "--archs");
  return out;
}

ServedArchs serve_archs(const std::vector<std::string>& targets, const std::set<unsigned>& archs) {
  ServedArchs out;
  for (unsigned wanted : archs) {
    const env::ComputeCapability cc{static_cast<int>(wanted / 10), static_cast<int>(wanted % 10)};
    std::optional<NvccTarget> best;
    for (const std::string& text : targets) {
      const auto t = parse_nvcc_target(text);
      if (!t || !target_runs_on(*t, cc)) continue;
      // SASS over PTX (no JIT), then the newest.
      if (!best || std::pair{!t->ptx, t->number} > std::pair{!best->ptx, best->number}) best = t;
    }
    if (best) {
      out.numbers.insert(best->number);
    } else {
      out.unserved.push_back(wanted);
    }
  }
  for (const std::string& text : targets) {
    const auto t = parse_nvcc_target(text);
    if (t && out.numbers.count(t->number)) out.targets.push_back(text);
  }
  return out;
}

util::Result<std::string> nvcc_wrapper_command(const std::string& flashfit_exe,
                                               const std::set<unsigned>& archs,
                                               unsigned max_threads, const std::string& real_nvcc) {
  for (const std::string* path : {&flashfit_exe, &real_nvcc}) {
    if (path->empty() || path->front() != '/' ||
        path->find_first_of(std::string_view("$\n\r\0", 4)) != std::string::npos) {
      return util::fail(ErrorKind::input,
                        fmt::format("{} cannot be written into torch's build.ninja (not absolute, "
                                    "or holds $ or a line break)",
                                    util::printable(*path, 120)),
                        "nvcc wrapper");
    }
  }
  std::vector<std::string> numbers;
  numbers.reserve(archs.size());
  for (unsigned a : archs) numbers.push_back(std::to_string(a));
  return fmt::format("{} nvcc-wrap --archs {} --max-threads {} --nvcc {} --",
                     shell_word(flashfit_exe), util::join(numbers, ","), std::max(1U, max_threads),
                     shell_word(real_nvcc));
}

}  // namespace flashfit::build
