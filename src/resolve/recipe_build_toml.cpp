// parse_recipe's [build] table (docs/recipes.md): the knobs the build
// planner reads. Checked here so the planner can trust every value.
#include <fmt/core.h>

#include <algorithm>

#include "resolve/recipe_toml.hpp"
#include "resolve/recipe_values.hpp"
#include "util/strings.hpp"

namespace flashfit::resolve::detail {
namespace {

BuildKnobs::ArchToken parse_arch_token(TomlReader& reader, const toml::table& table,
                                       const std::string& path, const BuildKnobs& build) {
  BuildKnobs::ArchToken token;
  reader.check_keys(table, path, {"token", "min_cc", "max_cc", "min_nvcc"});
  token.token = reader.required(table, path, "token");
  if (!reader.ok()) return token;
  if (token.token.find(build.arch_separator) != std::string::npos ||
      token.token.find_first_of(" \t\n") != std::string::npos) {
    reader.fail(table.get("token"), path + ".token", "must not contain the separator or spaces");
  }
  for (const BuildKnobs::ArchToken& other : build.arch_tokens) {
    if (other.token == token.token) {
      reader.fail(table.get("token"), path + ".token",
                  fmt::format("duplicate token \"{}\"", util::printable(token.token)));
    }
  }
  if (table.get("min_cc") == nullptr || table.get("max_cc") == nullptr) {
    reader.fail(&table, path, "needs both min_cc and max_cc");
    return token;
  }
  token.min_cc = major_minor_text(reader, table, path, "min_cc", "8.0").value_or("");
  token.max_cc = major_minor_text(reader, table, path, "max_cc", "8.9").value_or("");
  token.min_nvcc = major_minor_text(reader, table, path, "min_nvcc", "12.8");
  if (!reader.ok()) return token;
  const auto low = parse_major_minor(token.min_cc);
  const auto high = parse_major_minor(token.max_cc);
  if (low->first != high->first || low->second > high->second) {
    reader.fail(table.get("max_cc"), path + ".max_cc",
                "must have min_cc's major and be at least min_cc (SASS runs within one major)");
  }
  return token;
}

std::optional<std::string> env_name(TomlReader& reader, const toml::table& table,
                                    std::string_view path, std::string_view key) {
  auto name = reader.string(table, path, key, "an environment variable name");
  if (name && !name->empty() && !is_env_name(*name)) {
    reader.fail(table.get(key), key_path(path, key),
                fmt::format("\"{}\" is not an environment variable name", util::printable(*name)));
    return std::nullopt;
  }
  return name;
}

// A figure from a measurement: positive and below `max`.
std::optional<double> positive_number(TomlReader& reader, const toml::table& table,
                                      const std::string& path, std::string_view key, double max,
                                      std::string_view unit) {
  auto value = reader.number(table, path, key);
  if (value && (*value <= 0 || *value > max)) {
    reader.fail(table.get(key), key_path(path, key),
                fmt::format("expected {} above 0 and at most {}", unit, max));
    return std::nullopt;
  }
  return value;
}

// A relative path or pattern inside the source tree: no "..", not absolute.
bool inside_tree(std::string_view pattern) {
  if (pattern.empty() || pattern.front() == '/') return false;
  for (std::string_view part : util::split(pattern, '/')) {
    if (part == "..") return false;
  }
  return true;
}

BuildKnobs::UnitKind parse_unit_kind(TomlReader& reader, const toml::table& table,
                                     const std::string& path, const BuildKnobs& build) {
  BuildKnobs::UnitKind kind;
  reader.check_keys(table, path, {"name", "match", "seconds", "peak_gib", "note"});
  kind.name = reader.required(table, path, "name");
  if (!reader.ok()) return kind;
  for (const BuildKnobs::UnitKind& other : build.unit_kinds) {
    if (other.name == kind.name)
      reader.fail(table.get("name"), path + ".name",
                  fmt::format("duplicate kind \"{}\"", util::printable(kind.name)));
  }
  if (auto patterns = reader.strings(table, path, "match", "a file-name pattern")) {
    for (const StringItem& item : *patterns) {
      if (item.value.empty() || item.value.find('/') != std::string::npos) {
        reader.fail(item.node, item.path, "a file-name pattern: not empty, no '/'");
        return kind;
      }
      kind.match.push_back(item.value);
    }
  }
  if (reader.ok() && kind.match.empty())
    reader.fail(&table, path, "needs at least one match pattern");
  kind.seconds = positive_number(reader, table, path, "seconds", 86400, "seconds").value_or(0);
  kind.peak_gib = positive_number(reader, table, path, "peak_gib", 4096, "GiB").value_or(0);
  if (reader.ok() && (kind.seconds == 0 || kind.peak_gib == 0))
    reader.fail(&table, path, "needs both seconds and peak_gib");
  kind.note = reader.string(table, path, "note").value_or("");
  return kind;
}

void parse_units(TomlReader& reader, const toml::table& table, BuildKnobs& build) {
  const std::string path = "build";
  if (!reader.ok()) return;
  build.extension = reader.string(table, path, "extension").value_or("");
  if (reader.ok() && !build.extension.empty() && !is_module_name(build.extension)) {
    reader.fail(
        table.get("extension"), "build.extension",
        fmt::format("\"{}\" is not a Python module name", util::printable(build.extension)));
  }
  if (auto globs =
          reader.strings(table, path, "sources", "a path pattern relative to the source root")) {
    for (const StringItem& item : *globs) {
      if (!inside_tree(item.value)) {
        reader.fail(item.node, item.path,
                    "a relative path inside the source tree (no '..', not absolute)");
        return;
      }
      build.source_globs.push_back(item.value);
    }
  }
  if (const toml::array* kinds = reader.table_array(table, path, "unit_kind")) {
    for (std::size_t i = 0; i < kinds->size() && reader.ok(); ++i) {
      build.unit_kinds.push_back(parse_unit_kind(reader, *kinds->get(i)->as_table(),
                                                 index_path("build.unit_kind", i), build));
    }
  }
  if (const toml::table* measured = reader.table(table, path, "measured")) {
    const std::string here = "build.measured";
    reader.check_keys(*measured, here, {"machine", "nvcc", "calibration_seconds", "reference"});
    BuildKnobs::Measurement m;
    m.machine = reader.required(*measured, here, "machine");
    m.nvcc = major_minor_text(reader, *measured, here, "nvcc", "13.0").value_or("");
    m.calibration_seconds =
        positive_number(reader, *measured, here, "calibration_seconds", 3600, "seconds")
            .value_or(0);
    m.reference = reader.string(*measured, here, "reference").value_or("");
    if (reader.ok()) build.measured = std::move(m);
  }
  if (reader.ok() && !build.unit_kinds.empty() && !build.measured) {
    reader.fail(&table, path,
                "unit kinds need [build.measured]: where their figures were measured");
  }
}

}  // namespace

std::optional<std::string> major_minor_text(TomlReader& reader, const toml::table& table,
                                            std::string_view path, std::string_view key,
                                            std::string_view example) {
  const std::string expected = fmt::format("a string like \"{}\"", example);
  auto text = reader.string(table, path, key, expected);
  if (!text) return std::nullopt;
  if (!parse_major_minor(*text)) {
    reader.fail(table.get(key), key_path(path, key),
                fmt::format("expected {}, got \"{}\"", expected, util::printable(*text)));
    return std::nullopt;
  }
  return *text;
}

void parse_build(TomlReader& reader, const toml::table& table, BuildKnobs& build) {
  const std::string path = "build";
  reader.check_keys(
      table, path,
      {"env", "arch_variable", "arch_separator", "arch_token", "default_archs", "jobs_variable",
       "threads_variable", "default_threads", "memory_per_thread_gib", "build_requires",
       "needs_cuda", "extension", "sources", "unit_kind", "measured"});
  if (const toml::table* env = reader.table(table, path, "env")) {
    for (auto&& [key, node] : *env) {
      const std::string here = key_path("build.env", key.str());
      if (!is_env_name(key.str())) {
        reader.fail(&node, here, "not an environment variable name");
        return;
      }
      auto value = reader.string(*env, "build.env", key.str());
      if (!value) return;
      build.env[std::string(key.str())] = *value;
    }
  }
  build.arch_variable = env_name(reader, table, path, "arch_variable").value_or("");
  build.arch_separator = reader.string(table, path, "arch_separator").value_or(";");
  if (reader.ok() && build.arch_separator.empty()) {
    reader.fail(table.get("arch_separator"), "build.arch_separator", "must not be empty");
  }
  if (const toml::array* tokens = reader.table_array(table, path, "arch_token")) {
    for (std::size_t i = 0; i < tokens->size() && reader.ok(); ++i) {
      build.arch_tokens.push_back(parse_arch_token(reader, *tokens->get(i)->as_table(),
                                                   index_path("build.arch_token", i), build));
    }
    if (reader.ok() && !tokens->empty() && build.arch_variable.empty()) {
      reader.fail(tokens, "build.arch_token", "arch tokens need build.arch_variable");
    }
  }
  if (auto archs = reader.strings(table, path, "default_archs", "an arch token")) {
    for (const StringItem& item : *archs) {
      const bool known =
          std::any_of(build.arch_tokens.begin(), build.arch_tokens.end(),
                      [&](const BuildKnobs::ArchToken& t) { return t.token == item.value; });
      if (!known) {
        reader.fail(item.node, item.path,
                    fmt::format("\"{}\" is not one of the [[build.arch_token]] tokens",
                                util::printable(item.value)));
        return;
      }
      build.default_archs.push_back(item.value);
    }
  }
  build.jobs_variable = env_name(reader, table, path, "jobs_variable").value_or("MAX_JOBS");
  build.threads_variable = env_name(reader, table, path, "threads_variable").value_or("");
  if (auto threads = reader.integer(table, path, "default_threads")) {
    if (*threads < 1 || *threads > 256) {
      reader.fail(table.get("default_threads"), "build.default_threads", "expected 1 to 256");
    } else {
      build.default_threads = static_cast<int>(*threads);
    }
  }
  if (auto gib = reader.number(table, path, "memory_per_thread_gib")) {
    if (*gib <= 0 || *gib > 4096) {
      reader.fail(table.get("memory_per_thread_gib"), "build.memory_per_thread_gib",
                  "expected a number of GiB above 0 and at most 4096");
    } else {
      build.memory_per_thread_gib = *gib;
    }
  }
  if (auto modules = reader.strings(table, path, "build_requires", "a module name")) {
    for (const StringItem& item : *modules) {
      if (!is_module_name(item.value)) {
        reader.fail(item.node, item.path,
                    fmt::format("\"{}\" is not a Python module name", util::printable(item.value)));
        return;
      }
      build.build_requires.push_back(item.value);
    }
  }
  if (auto needs_cuda = reader.boolean(table, path, "needs_cuda")) build.needs_cuda = *needs_cuda;
  parse_units(reader, table, build);
}

}  // namespace flashfit::resolve::detail
