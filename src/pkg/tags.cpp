#include "pkg/tags.hpp"

#include <algorithm>
#include <functional>
#include <string_view>
#include <utility>

#include "util/strings.hpp"

// Mirrors packaging 21.3's tags.py, _manylinux.py and _musllinux.py (and pip
// 23.x's compatibility_tags.get_supported) step by step, so that a difference
// found by the differential test can be traced to one rule. Strings are built
// raw and lower-cased only when they become tags, because packaging compares
// raw strings ("none" in abis, "linux_x86_64" for the 32-bit mapping) and only
// Tag() lower-cases. Lower-casing is ASCII-only, unlike Python's str.lower():
// real facts (sysconfig platforms, implementation names) are ASCII.

namespace flashfit::pkg {
namespace {

using PyVersion = std::pair<int, int>;

std::string version_nodot(int major, int minor) {
  return std::to_string(major) + std::to_string(minor);
}

// packaging's _normalize_string: sysconfig platforms and SOABI become tag text.
std::string normalize(std::string_view text) {
  std::string out(text);
  std::replace(out.begin(), out.end(), '.', '_');
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

// Python's str.replace(old, new): every occurrence, left to right.
std::string replace_all(std::string_view text, std::string_view old_text,
                        std::string_view new_text) {
  std::string out;
  std::size_t start = 0;
  while (true) {
    const auto pos = text.find(old_text, start);
    if (pos == std::string_view::npos) break;
    out.append(text.substr(start, pos - start));
    out.append(new_text);
    start = pos + old_text.size();
  }
  out.append(text.substr(start));
  return out;
}

// INTERPRETER_SHORT_NAMES; unknown names are kept as they are (case included).
std::string interpreter_name(const std::string& implementation) {
  if (implementation == "python") return "py";
  if (implementation == "cpython") return "cp";
  if (implementation == "pypy") return "pp";
  if (implementation == "ironpython") return "ip";
  if (implementation == "jython") return "jy";
  return implementation;
}

// packaging's interpreter_version(): the config var wins when it is non-empty.
std::string interpreter_version(const InterpreterTagFacts& facts) {
  if (facts.py_version_nodot && !facts.py_version_nodot->empty()) return *facts.py_version_nodot;
  return version_nodot(facts.python_major, facts.python_minor);
}

bool is_free_threaded(const InterpreterTagFacts& facts) {
  return facts.gil_disabled &&
         PyVersion{facts.python_major, facts.python_minor} >= PyVersion{3, 13};
}

// _cpython_abis, plus the free-threaded `t` flag of packaging >= 24.0.
std::vector<std::string> cpython_abis(const InterpreterTagFacts& facts) {
  const PyVersion version{facts.python_major, facts.python_minor};
  const auto nodot = version_nodot(facts.python_major, facts.python_minor);
  // Windows never sets Py_DEBUG, hence the fallbacks when it is unset.
  const bool debug = facts.py_debug.has_value()
                         ? *facts.py_debug
                         : (facts.has_gettotalrefcount || facts.has_d_pyd_suffix);
  const std::string threading = is_free_threaded(facts) ? "t" : "";
  const std::string debug_flag = debug ? "d" : "";
  if (version < PyVersion{3, 8}) {
    const bool pymalloc = !facts.with_pymalloc.has_value() || *facts.with_pymalloc;
    bool ucs4 = false;
    if (version < PyVersion{3, 3}) {
      ucs4 = facts.py_unicode_size.has_value() ? *facts.py_unicode_size == 4
                                               : facts.max_unicode_is_ucs4;
    }
    return {"cp" + nodot + threading + debug_flag + (pymalloc ? "m" : "") + (ucs4 ? "u" : "")};
  }
  if (debug) {
    // From 3.8 a debug build also loads release-build extensions.
    return {"cp" + nodot + threading + debug_flag, "cp" + nodot + threading};
  }
  return {"cp" + nodot + threading};
}

bool abi3_applies(const InterpreterTagFacts& facts) {
  // Free-threaded builds cannot load abi3 extensions (packaging >= 24.0).
  return PyVersion{facts.python_major, facts.python_minor} >= PyVersion{3, 2} &&
         !is_free_threaded(facts);
}

// _manylinux._have_compatible_abi: 32-bit arm and x86 depend on how the
// interpreter binary itself was built, not on the kernel.
bool have_compatible_abi(const InterpreterTagFacts& facts, std::string_view arch) {
  if (arch == "armv7l") return facts.executable_is_armhf;
  if (arch == "i686") return facts.executable_is_i686;
  return arch == "x86_64" || arch == "aarch64" || arch == "ppc64" || arch == "ppc64le" ||
         arch == "s390x";
}

// The legacy names of PEP 513/571/599, listed right after their glibc.
std::string_view legacy_manylinux(LibcVersion version) {
  if (version == LibcVersion{2, 17}) return "manylinux2014";
  if (version == LibcVersion{2, 12}) return "manylinux2010";
  if (version == LibcVersion{2, 5}) return "manylinux1";
  return {};
}

// _manylinux.platform_tags: every glibc from the running one down to the
// oldest the architecture ever had a manylinux for.
void add_manylinux(const InterpreterTagFacts& facts, const std::string& linux,
                   std::string_view arch, std::vector<std::string>& out) {
  if (!have_compatible_abi(facts, arch)) return;
  // x86 had manylinux1 (glibc 2.5); other architectures start at manylinux2014 (2.17).
  const LibcVersion too_old =
      (arch == "x86_64" || arch == "i686") ? LibcVersion{2, 4} : LibcVersion{2, 16};
  // Without glibc, packaging uses (-1, -1), which yields nothing below.
  const LibcVersion current = facts.glibc.value_or(LibcVersion{-1, -1});
  // glibc promises compatibility across majors; packaging assumes an older
  // major ended at minor 50 (its _LAST_GLIBC_MINOR default).
  std::vector<LibcVersion> maxima{current};
  for (int major = current.major - 1; major > 1; --major) maxima.push_back({major, 50});

  const auto vetoed = [&](LibcVersion version) {
    return std::find(facts.manylinux_vetoed.begin(), facts.manylinux_vetoed.end(), version) !=
           facts.manylinux_vetoed.end();
  };
  for (const auto& maximum : maxima) {
    const int min_minor = maximum.major == too_old.major ? too_old.minor : -1;
    for (int minor = maximum.minor; minor > min_minor; --minor) {
      const LibcVersion version{maximum.major, minor};
      // A `_manylinux` veto applies to the version, so to both names of it.
      if (vetoed(version)) continue;
      out.push_back(replace_all(
          linux, "linux",
          "manylinux_" + std::to_string(version.major) + "_" + std::to_string(version.minor)));
      const auto legacy = legacy_manylinux(version);
      if (!legacy.empty()) out.push_back(replace_all(linux, "linux", legacy));
    }
  }
}

// _musllinux.platform_tags: every musl minor of the running major, down to 0.
void add_musllinux(const InterpreterTagFacts& facts, std::string_view arch,
                   std::vector<std::string>& out) {
  if (!facts.musl) return;
  for (int minor = facts.musl->minor; minor >= 0; --minor) {
    out.push_back("musllinux_" + std::to_string(facts.musl->major) + "_" + std::to_string(minor) +
                  "_" + std::string(arch));
  }
}

// tags.platform_tags(), lower-cased as the tags will be.
std::vector<std::string> platform_tags(const InterpreterTagFacts& facts) {
  std::vector<std::string> platforms;
  if (facts.system == "Linux") {
    auto linux = normalize(facts.platform);
    // A 32-bit interpreter on a 64-bit kernel reports the kernel's machine.
    if (facts.is_32bit) {
      if (linux == "linux_x86_64") {
        linux = "linux_i686";
      } else if (linux == "linux_aarch64") {
        linux = "linux_armv7l";
      }
    }
    // packaging raises when there is no '_' (never for a real sysconfig
    // platform); an empty architecture is the closest harmless reading.
    const auto underscore = linux.find('_');
    const std::string arch = underscore == std::string::npos ? "" : linux.substr(underscore + 1);
    add_manylinux(facts, linux, arch, platforms);
    add_musllinux(facts, arch, platforms);
    platforms.push_back(linux);
  } else {
    // packaging's _generic_platforms; exact for Windows, an approximation for macOS.
    platforms.push_back(normalize(facts.platform));
  }
  for (auto& platform : platforms) platform = util::ascii_lower(platform);
  return platforms;
}

class TagList {
 public:
  explicit TagList(std::size_t expected) { tags_.reserve(expected); }
  void add(const std::string& interpreter, const std::string& abi, const std::string& platform) {
    tags_.push_back(Tag{interpreter, abi, platform});
  }
  void add_all(const std::string& interpreter, const std::string& abi,
               const std::vector<std::string>& platforms) {
    for (const auto& platform : platforms) add(interpreter, abi, platform);
  }
  std::vector<Tag> take() && { return std::move(tags_); }

 private:
  std::vector<Tag> tags_;
};

// tags.cpython_tags
void add_cpython_tags(const InterpreterTagFacts& facts, const std::vector<std::string>& platforms,
                      TagList& out) {
  const std::string interpreter = "cp" + version_nodot(facts.python_major, facts.python_minor);
  for (const auto& abi : cpython_abis(facts))
    out.add_all(interpreter, util::ascii_lower(abi), platforms);
  const bool abi3 = abi3_applies(facts);
  if (abi3) out.add_all(interpreter, "abi3", platforms);
  out.add_all(interpreter, "none", platforms);
  if (abi3) {
    // abi3 extensions built for an older minor keep working.
    for (int minor = facts.python_minor - 1; minor > 1; --minor) {
      out.add_all("cp" + version_nodot(facts.python_major, minor), "abi3", platforms);
    }
  }
}

// tags.generic_tags, for every implementation but CPython.
void add_generic_tags(const InterpreterTagFacts& facts, const std::vector<std::string>& platforms,
                      TagList& out) {
  const auto interpreter =
      util::ascii_lower(interpreter_name(facts.implementation) + interpreter_version(facts));
  std::vector<std::string> abis;
  if (facts.soabi && !facts.soabi->empty()) abis.push_back(normalize(*facts.soabi));
  if (std::find(abis.begin(), abis.end(), "none") == abis.end()) abis.emplace_back("none");
  for (const auto& abi : abis) out.add_all(interpreter, util::ascii_lower(abi), platforms);
}

// tags._py_interpreter_range: py311, py3, py310, ..., py30.
std::vector<std::string> py_interpreter_range(int major, int minor) {
  std::vector<std::string> versions{"py" + version_nodot(major, minor),
                                    "py" + std::to_string(major)};
  for (int older = minor - 1; older >= 0; --older)
    versions.push_back("py" + version_nodot(major, older));
  return versions;
}

// tags.compatible_tags: pure-Python wheels, then platform-independent ones.
void add_compatible_tags(const InterpreterTagFacts& facts, const std::string& interpreter,
                         const std::vector<std::string>& platforms, TagList& out) {
  const auto versions = py_interpreter_range(facts.python_major, facts.python_minor);
  for (const auto& version : versions) out.add_all(version, "none", platforms);
  if (!interpreter.empty()) out.add(util::ascii_lower(interpreter), "none", "any");
  for (const auto& version : versions) out.add(version, "none", "any");
}

}  // namespace

namespace {
// "2_28_x86_64" -> (2.28, "x86_64"): two decimal numbers and a non-empty rest.
std::optional<std::pair<LibcVersion, std::string>> libc_and_arch(std::string_view text) {
  int numbers[2] = {0, 0};
  for (int& number : numbers) {
    std::size_t digits = 0;
    while (digits < text.size() && digits < 4 && text[digits] >= '0' && text[digits] <= '9') {
      number = number * 10 + (text[digits] - '0');
      ++digits;
    }
    if (digits == 0 || digits == text.size() || text[digits] != '_') return std::nullopt;
    text.remove_prefix(digits + 1);
  }
  if (text.empty()) return std::nullopt;
  return std::pair{LibcVersion{numbers[0], numbers[1]}, std::string(text)};
}
}  // namespace

std::optional<LinuxPlatform> parse_linux_platform(std::string_view platform) {
  using Kind = LinuxPlatform::Kind;
  for (LibcVersion legacy : {LibcVersion{2, 5}, LibcVersion{2, 12}, LibcVersion{2, 17}}) {
    const std::string prefix = std::string(legacy_manylinux(legacy)) + "_";
    if (util::starts_with(platform, prefix) && platform.size() > prefix.size())
      return LinuxPlatform{Kind::manylinux, legacy, std::string(platform.substr(prefix.size()))};
  }
  for (auto [prefix, kind] : {std::pair{std::string_view("manylinux_"), Kind::manylinux},
                              std::pair{std::string_view("musllinux_"), Kind::musllinux}}) {
    if (!util::starts_with(platform, prefix)) continue;
    auto parsed = libc_and_arch(platform.substr(prefix.size()));
    if (!parsed) return std::nullopt;
    return LinuxPlatform{kind, parsed->first, std::move(parsed->second)};
  }
  if (util::starts_with(platform, "linux_") && platform.size() > 6)
    return LinuxPlatform{Kind::plain, std::nullopt, std::string(platform.substr(6))};
  return std::nullopt;
}

std::vector<Tag> supported_tags(const InterpreterTagFacts& facts, TagRules rules) {
  const auto platforms = platform_tags(facts);
  const auto short_name = interpreter_name(facts.implementation);
  const auto minors = static_cast<std::size_t>(std::max(facts.python_minor, 0));
  TagList out(platforms.size() * (2 * minors + 6) + minors + 4);

  if (short_name == "cp") {
    add_cpython_tags(facts, platforms, out);
  } else {
    add_generic_tags(facts, platforms, out);
  }

  std::string interpreter;
  if (rules == TagRules::pip_packaging_21_3) {
    // pip passes its own interpreter (name + py_version_nodot) to compatible_tags.
    interpreter = short_name + interpreter_version(facts);
  } else if (short_name == "pp") {
    interpreter = "pp3";  // sys_tags' special case for PyPy
  }
  add_compatible_tags(facts, interpreter, platforms, out);
  return std::move(out).take();
}

namespace {

std::size_t tag_hash(const Tag& tag) {
  const std::hash<std::string_view> hash;
  std::size_t seed = hash(tag.interpreter);
  for (std::string_view part : {std::string_view(tag.abi), std::string_view(tag.platform)}) {
    seed ^=
        hash(part) + static_cast<std::size_t>(0x9e3779b97f4a7c15ULL) + (seed << 6) + (seed >> 2);
  }
  return seed;
}

}  // namespace

SupportedTags::SupportedTags(std::vector<Tag> ordered) : tags_(std::move(ordered)) {
  // At most half full, so probe runs stay short.
  std::size_t capacity = 8;
  while (capacity < 2 * tags_.size()) capacity *= 2;
  slots_.assign(capacity, 0);
  const std::size_t mask = capacity - 1;
  for (std::size_t i = 0; i < tags_.size(); ++i) {
    for (std::size_t slot = tag_hash(tags_[i]) & mask;; slot = (slot + 1) & mask) {
      if (slots_[slot] == 0) {
        slots_[slot] = static_cast<std::uint32_t>(i + 1);
        break;
      }
      // A duplicate keeps its first index, as list.index() does.
      if (tags_[slots_[slot] - 1] == tags_[i]) break;
    }
  }
}

std::optional<std::size_t> SupportedTags::rank(const Tag& tag) const {
  if (slots_.empty()) return std::nullopt;  // only after a move
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t slot = tag_hash(tag) & mask; slots_[slot] != 0; slot = (slot + 1) & mask) {
    if (tags_[slots_[slot] - 1] == tag) return slots_[slot] - 1;
  }
  return std::nullopt;
}

std::optional<std::size_t> SupportedTags::best_rank(const std::vector<Tag>& wheel_tags) const {
  std::optional<std::size_t> best;
  for (const auto& tag : wheel_tags) {
    const auto found = rank(tag);
    if (found && (!best || *found < *best)) best = found;
  }
  return best;
}

}  // namespace flashfit::pkg
