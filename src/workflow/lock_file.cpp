// flashfit lock's file: the environment key as a header, the locked lines,
// the header parsed back and compared.
#include "workflow/lock_file.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <set>

#include "util/strings.hpp"

namespace flashfit::workflow {
namespace {

constexpr std::string_view kFormatLine = "# flashfit-lock: 1";
constexpr std::string_view kUnknown = "unknown";
constexpr std::size_t kMaxValue = 200;
constexpr std::size_t kMaxHeaderLines = 64;

struct FactField {
  std::string_view name;
  std::optional<std::string> LockKey::*field;
};
constexpr std::array<FactField, 6> kFacts = {{
    {"python", &LockKey::python},
    {"platform", &LockKey::platform},
    {"torch", &LockKey::torch},
    {"cuda", &LockKey::cuda},
    {"cxx11-abi", &LockKey::cxx11_abi},
    {"gpu-archs", &LockKey::gpu_archs},
}};

bool value_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '+' || c == ',' || c == '-';
}

std::string shown(const std::optional<std::string>& value) {
  return value ? *value : std::string(kUnknown);
}

std::string hex_digits(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

void render_line(std::string& out, const LockedLine& line) {
  out += fmt::format("# {} {} ({})\n", line.name, line.version, line.origin);
  if (!line.sha256) {
    out += "# no sha256 is known for this file: --hash left out, pip will not check its bytes\n";
    out += fmt::format("{} @ {}\n", line.name, line.url);
    return;
  }
  out += fmt::format("{} @ {} --hash=sha256:{}\n", line.name, line.url, hex_digits(*line.sha256));
}

}  // namespace

LockKey lock_key_from(const resolve::ResolveTarget& target) {
  LockKey key;
  if (target.tags && target.tags->size() > 0) {
    key.python = target.tags->tags().front().interpreter;
    key.platform = target.tags->tags().front().platform;
  }
  if (target.torch) {
    key.torch = target.torch->str();
  } else if (!target.torch_installed) {
    key.torch = "none";
  }
  if (target.torch_rocm) {
    key.cuda = "rocm";
  } else if (target.torch_cuda) {
    key.cuda = *target.torch_cuda ? (*target.torch_cuda)->str() : std::string("cpu");
  } else if (!target.torch_installed && !target.torch) {
    key.cuda = "none";
  }
  if (target.cxx11_abi) {
    key.cxx11_abi = *target.cxx11_abi ? "true" : "false";
  } else if (!target.torch_installed && !target.torch) {
    key.cxx11_abi = "none";  // no torch: no ABI to match
  }
  if (target.gpus) {
    std::set<std::string> archs;
    for (const auto& cc : *target.gpus) archs.insert(fmt::format("sm_{}{}", cc.major, cc.minor));
    key.gpu_archs =
        archs.empty() ? std::string("none") : util::join({archs.begin(), archs.end()}, ",");
  }
  return key;
}

std::string render_lock(const LockDocument& document) {
  std::string out(kFormatLine);
  out += "\n";
  for (const auto& fact : kFacts) {
    out += fmt::format("# {}: {}\n", fact.name, shown(document.key.*fact.field));
  }
  out +=
      "# Written by `flashfit lock` for the environment above; `flashfit lock --check FILE` "
      "says whether it still fits.\n";
  for (const auto& note : document.notes) out += fmt::format("# note: {}\n", note);
  if (!document.flashfit.empty()) {
    out += "\n# compiled packages: the variant flashfit picked for this environment\n";
    for (const auto& line : document.flashfit) render_line(out, line);
  }
  if (!document.installer.empty()) {
    out += "\n# the other lines: the installer's own resolution\n";
    for (const auto& line : document.installer) render_line(out, line);
  }
  return out;
}

util::Result<LockKey> parse_lock_header(std::string_view text, std::string_view origin) {
  const std::string file(origin);
  auto where = [&](std::size_t line) { return fmt::format("{}:{}", file, line); };
  if (text.find('\0') != std::string_view::npos) {
    return util::input_error("not a lock file: it holds NUL bytes", file);
  }
  std::vector<std::string_view> lines = util::split(text, '\n');
  if (lines.empty() || util::trim(lines.front()) != kFormatLine) {
    if (!lines.empty() && util::starts_with(util::trim(lines.front()), "# flashfit-lock:")) {
      return util::input_error(
          fmt::format("unknown lock format '{}' (this flashfit reads version 1)",
                      util::printable(util::trim(util::trim(lines.front()).substr(16)), 40)),
          where(1));
    }
    return util::input_error(
        fmt::format("not a flashfit lock: its first line is not '{}'", kFormatLine), where(1),
        "write one with `flashfit lock -o FILE`");
  }
  LockKey key;
  std::array<bool, kFacts.size()> seen{};
  for (std::size_t i = 1; i < lines.size() && i < kMaxHeaderLines; ++i) {
    std::string_view line = lines[i];
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!util::starts_with(line, "# ")) break;
    const std::string_view body = line.substr(2);
    const auto colon = body.find(": ");
    if (colon == std::string_view::npos) break;  // the header's prose ends the facts
    const std::string_view name = body.substr(0, colon);
    const std::string_view value = util::trim(body.substr(colon + 2));
    const auto fact = std::find_if(kFacts.begin(), kFacts.end(),
                                   [&](const FactField& f) { return f.name == name; });
    if (fact == kFacts.end()) {
      if (name == "note") break;
      return util::input_error(
          fmt::format("unknown fact '{}' in the lock's header", util::printable(name, 40)),
          where(i + 1));
    }
    const auto index = static_cast<std::size_t>(fact - kFacts.begin());
    if (seen[index]) {
      return util::input_error(fmt::format("'{}' is named twice in the lock's header", name),
                               where(i + 1));
    }
    seen[index] = true;
    if (value.empty() || value.size() > kMaxValue ||
        !std::all_of(value.begin(), value.end(), value_char)) {
      return util::input_error(
          fmt::format("'{}' has a malformed value (letters, digits and . _ + , - only, at most {})",
                      name, kMaxValue),
          where(i + 1));
    }
    if (value != kUnknown) key.*(fact->field) = std::string(value);
  }
  for (std::size_t i = 0; i < kFacts.size(); ++i) {
    if (!seen[i]) {
      return util::input_error(fmt::format("the lock's header does not name '{}'", kFacts[i].name),
                               file);
    }
  }
  return key;
}

std::string KeyDifference::describe() const {
  return fmt::format("{}: locked {}, here {}", fact, locked, here);
}

std::vector<KeyDifference> compare_keys(const LockKey& locked, const LockKey& here) {
  std::vector<KeyDifference> out;
  for (const auto& fact : kFacts) {
    const auto& a = locked.*fact.field;
    const auto& b = here.*fact.field;
    if (a != b) out.push_back({std::string(fact.name), shown(a), shown(b)});
  }
  return out;
}

std::string as_url(const std::string& url_or_path) {
  if (url_or_path.empty() || url_or_path.front() != '/') return url_or_path;
  std::string out = "file://";
  for (const unsigned char c : url_or_path) {
    if (value_char(static_cast<char>(c)) && c != '+' && c != ',') {
      out += static_cast<char>(c);
    } else if (c == '/' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

}  // namespace flashfit::workflow
