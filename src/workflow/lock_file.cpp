// flashfit lock's file: the environment key as a header, the locked lines,
// the header parsed back and compared.
#include "workflow/lock_file.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <set>

#include "pkg/name.hpp"
#include "pkg/tag.hpp"
#include "pkg/version.hpp"
#include "util/strings.hpp"

namespace flashfit::workflow {
namespace {

constexpr std::string_view kFormatLine = "# flashfit-lock: 1";
constexpr std::string_view kUnknown = "unknown";
constexpr std::size_t kMaxValue = 200;
constexpr std::size_t kMaxHeaderLines = 64;
// The two sections' headings: render_lock writes them, parse_lock reads by them.
constexpr std::string_view kFlashfitSection =
    "# compiled packages: the variant flashfit picked for this environment";
constexpr std::string_view kInstallerSection = "# the other lines: the installer's own resolution";
constexpr std::string_view kHashOption = "--hash=sha256:";

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

// The interpreter of the best tag, with the free-threaded flag its ABI
// carries ("cp313t" from cp313-cp313t, also cp313-cp313td): a 3.13t loads
// none of a 3.13's extensions, so the two are other environments. Other ABI
// flags (a debug "d", 3.7's "m") leave the tag as it was.
std::string python_fact(const pkg::Tag& best) {
  const bool free_threaded = util::starts_with(best.abi, best.interpreter) &&
                             best.abi.find('t', best.interpreter.size()) != std::string::npos;
  return free_threaded ? best.interpreter + "t" : best.interpreter;
}

}  // namespace

LockKey lock_key_from(const resolve::ResolveTarget& target) {
  LockKey key;
  if (target.tags && target.tags->size() > 0) {
    key.python = python_fact(target.tags->tags().front());
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
    out += fmt::format("\n{}\n", kFlashfitSection);
    for (const auto& line : document.flashfit) render_line(out, line);
  }
  if (!document.installer.empty()) {
    out += fmt::format("\n{}\n", kInstallerSection);
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
  const bool unknown = locked == kUnknown || here == kUnknown;
  // What makes an unknown fact known: where it is unknown, and how.
  const char* fix = locked == kUnknown
                        ? " (an unknown fact never matches: lock again where it can be read)"
                        : " (an unknown fact never matches: make it readable here, e.g. a torch "
                          "that imports, or `flashfit doctor` for why it is not)";
  return fmt::format("{}: locked {}, here {}{}", fact, locked, here, unknown ? fix : "");
}

std::vector<std::string> unknown_facts(const LockKey& key) {
  std::vector<std::string> out;
  for (const auto& fact : kFacts) {
    if (!(key.*fact.field)) out.emplace_back(fact.name);
  }
  return out;
}

std::vector<KeyDifference> compare_keys(const LockKey& locked, const LockKey& here) {
  std::vector<KeyDifference> out;
  for (const auto& fact : kFacts) {
    const auto& a = locked.*fact.field;
    const auto& b = here.*fact.field;
    // Unknown on both sides proves nothing: the lock's torch and this one may
    // be any two, so the fit is not shown and the fact differs.
    if (!a || !b || *a != *b) out.push_back({std::string(fact.name), shown(a), shown(b)});
  }
  return out;
}

std::optional<std::string> torch_other_than_key(const LockKey& key, std::string_view name,
                                                std::string_view version,
                                                const std::optional<std::string>& installed) {
  if (pkg::canonicalize_name(name) != "torch") return std::nullopt;
  // Compared as lock_key_from writes it: "2.8.0+cu128" and "2.8.0+CU128" are one torch.
  const auto parsed = pkg::Version::parse(version);
  if (parsed && key.torch && *key.torch == parsed->str()) return std::nullopt;
  // A distribution version without a label names the build whose version.py
  // adds one (PyPI's "2.8.0" is "2.8.0+cu128" in the key). Where the installed
  // distribution is known it must be that one: "2.8.0" from an index is not
  // the installed "2.8.0+cu126" (the key's CUDA 12.6), whose release it shares.
  if (parsed && !parsed->has_local() && key.torch) {
    if (installed) {
      const auto here = pkg::Version::parse(*installed);
      if (here && *here == *parsed) return std::nullopt;
    } else {
      const auto keyed = pkg::Version::parse(*key.torch);
      if (keyed && keyed->public_str() == parsed->public_str()) return std::nullopt;
    }
  }
  return parsed ? parsed->str() : std::string(version);
}

std::string lock_file_name(const LockKey& key, LockFormat format) {
  // One prefix per fact keeps the name readable and two keys apart even where
  // values could read alike ("none" torch vs "none" GPUs).
  constexpr std::array<std::string_view, kFacts.size()> kPrefix = {"",     "",    "torch",
                                                                   "cuda", "abi", "gpu"};
  const bool pylock = format == LockFormat::pylock;
  std::string out = pylock ? "pylock." : "requirements";
  for (std::size_t i = 0; i < kFacts.size(); ++i) {
    std::string value = shown(key.*kFacts[i].field);
    std::replace(value.begin(), value.end(), '+', '_');
    // PEP 751's <name> holds no '.': there both separators become '_'.
    std::replace(value.begin(), value.end(), ',', pylock ? '_' : '.');
    if (pylock) std::replace(value.begin(), value.end(), '.', '_');
    out += fmt::format("{}{}{}", i == 0 && pylock ? "" : "-", kPrefix[i], value);
  }
  return out + (pylock ? ".toml" : ".txt");
}

bool is_pylock_name(std::string_view file_name) {
  if (file_name == "pylock.toml") return true;
  constexpr std::string_view kPrefixName = "pylock.";
  constexpr std::string_view kSuffix = ".toml";
  if (file_name.size() <= kPrefixName.size() + kSuffix.size() ||
      !util::starts_with(file_name, kPrefixName) || !util::ends_with(file_name, kSuffix)) {
    return false;
  }
  const std::string_view name =
      file_name.substr(kPrefixName.size(), file_name.size() - kPrefixName.size() - kSuffix.size());
  return name.find('.') == std::string_view::npos && name.find('/') == std::string_view::npos;
}

std::vector<std::pair<std::string, std::optional<std::string>>> key_facts(const LockKey& key) {
  std::vector<std::pair<std::string, std::optional<std::string>>> out;
  out.reserve(kFacts.size());
  for (const auto& fact : kFacts) out.emplace_back(std::string(fact.name), key.*fact.field);
  return out;
}

util::Result<void> set_key_fact(LockKey& key, std::string_view name,
                                const std::optional<std::string>& value) {
  const auto fact = std::find_if(kFacts.begin(), kFacts.end(),
                                 [&](const FactField& f) { return f.name == name; });
  if (fact == kFacts.end()) {
    return util::input_error(
        fmt::format("unknown fact '{}' in a lock key", util::printable(name, 40)));
  }
  if (value && (value->empty() || value->size() > kMaxValue || *value == kUnknown ||
                !std::all_of(value->begin(), value->end(), value_char))) {
    return util::input_error(
        fmt::format("'{}' has a malformed value (letters, digits and . _ + , - only, at most {})",
                    name, kMaxValue));
  }
  key.*(fact->field) = value;
  return {};
}

namespace {

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

bool hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

// `name @ URL [--hash=sha256:HEX]`, as render_line writes it.
util::Result<LockedLine> parse_locked_line(std::string_view text, const std::string& where) {
  auto bad = [&](std::string why) {
    return util::input_error(
        fmt::format("not a locked line ({}): '{}'", why, util::printable(text, 120)), where);
  };
  const auto at = text.find(" @ ");
  if (at == std::string_view::npos) return bad("expected 'name @ URL --hash=sha256:HEX'");
  LockedLine line;
  line.name = std::string(text.substr(0, at));
  if (line.name.empty() || line.name.size() > 200 ||
      !std::all_of(line.name.begin(), line.name.end(), name_char)) {
    return bad("a malformed package name");
  }
  std::vector<std::string_view> rest;
  for (std::string_view word : util::split(text.substr(at + 3), ' ')) {
    if (!word.empty()) rest.push_back(word);
  }
  if (rest.empty()) return bad("no URL");
  line.url = std::string(rest.front());
  if (!util::starts_with(line.url, "https://") && !util::starts_with(line.url, "http://") &&
      !util::starts_with(line.url, "file://")) {
    return bad("the URL is not http(s):// or file://");
  }
  if (line.url.size() > 4096 || !std::all_of(line.url.begin(), line.url.end(), [](char c) {
        return static_cast<unsigned char>(c) > 0x20 && static_cast<unsigned char>(c) < 0x7f;
      })) {
    return bad("the URL holds characters a URL cannot");
  }
  for (std::size_t i = 1; i < rest.size(); ++i) {
    if (!util::starts_with(rest[i], kHashOption)) {
      return bad(fmt::format("'{}' is not --hash=sha256:HEX", util::printable(rest[i], 40)));
    }
    const std::string hex = hex_digits(rest[i].substr(kHashOption.size()));
    if (hex.size() != 64 || !std::all_of(hex.begin(), hex.end(), hex_digit)) {
      return bad("the sha256 is not 64 hex digits");
    }
    if (line.sha256) return bad("two hashes");
    line.sha256 = hex;
  }
  return line;
}

}  // namespace

util::Result<ParsedLock> parse_lock(std::string_view text, std::string_view origin) {
  auto key = parse_lock_header(text, origin);
  if (!key) return tl::unexpected(key.error());
  ParsedLock out;
  out.document.key = std::move(*key);
  enum class Section { header, flashfit, installer } section = Section::header;
  std::set<std::string> names;
  // The comment above a line: "# NAME VERSION (ORIGIN)".
  std::optional<std::pair<std::string, std::string>> described;
  const std::vector<std::string_view> lines = util::split(text, '\n');
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string where = fmt::format("{}:{}", origin, i + 1);
    if (util::trim(line).empty()) {
      described.reset();
      continue;
    }
    if (line == kFlashfitSection || line == kInstallerSection) {
      const Section next = line == kFlashfitSection ? Section::flashfit : Section::installer;
      if (section == next || (section == Section::installer && next == Section::flashfit)) {
        return util::input_error("a section of the lock is repeated or out of order", where);
      }
      section = next;
      described.reset();
      continue;
    }
    if (util::starts_with(line, "#")) {
      if (util::starts_with(line, "# note: ") && section == Section::header) {
        out.document.notes.emplace_back(line.substr(8));
      }
      // The first comment of a line's block names it (a warning may follow).
      const std::vector<std::string_view> words = util::split(line.substr(1), ' ');
      if (!described && words.size() >= 3 && words[0].empty()) {
        described.emplace(std::string(words[1]), std::string(words[2]));
      }
      continue;
    }
    if (section == Section::header) {
      return util::input_error(
          "a locked line outside the lock's two sections (compiled packages, the other lines)",
          where);
    }
    auto parsed = parse_locked_line(line, where);
    if (!parsed) return tl::unexpected(parsed.error());
    if (!names.insert(pkg::canonicalize_name(parsed->name)).second) {
      return util::input_error(fmt::format("{} is locked twice", parsed->name), where);
    }
    parsed->origin = section == Section::flashfit ? "flashfit" : "installer";
    if (described && described->first == parsed->name) parsed->version = described->second;
    described.reset();
    if (section == Section::flashfit) {
      out.document.flashfit.push_back(std::move(*parsed));
      out.flashfit_where.push_back(where);
    } else {
      out.document.installer.push_back(std::move(*parsed));
      out.installer_where.push_back(where);
    }
  }
  return out;
}

std::string portable_url(const std::string& pick_url,
                         const std::vector<std::string>& fetched_from) {
  for (const std::string& url : fetched_from) {
    if (util::starts_with(url, "https://") || util::starts_with(url, "http://")) return url;
  }
  return fetched_from.empty() ? pick_url : fetched_from.front();
}

std::string as_url(const std::string& url_or_path) {
  if (url_or_path.empty() || url_or_path.front() != '/') return url_or_path;
  std::string out = "file://";
  for (const unsigned char c : url_or_path) {
    // Kept as they are: the value characters a path segment may hold, and '/' '~'.
    if ((value_char(static_cast<char>(c)) && c != '+' && c != ',') || c == '/' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

}  // namespace flashfit::workflow
