// Evaluator for tags_cases.py: one JSON case per stdin line, answering
// "<count> <sha256 of the newline-joined tag list> <best rank or -1>".

#include <array>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "line_evaluator.hpp"
#include "pkg/tag.hpp"
#include "pkg/tags.hpp"
#include "util/sha256.hpp"

namespace {

using flashfit::pkg::InterpreterTagFacts;
using flashfit::pkg::LibcVersion;
using Json = nlohmann::json;

// Python truthiness of a JSON config value (null, 0/1, true/false).
std::optional<bool> optional_truth(const Json& value) {
  if (value.is_null()) return std::nullopt;
  if (value.is_boolean()) return value.get<bool>();
  return value.get<long long>() != 0;
}

std::optional<LibcVersion> libc(const Json& value) {
  if (value.is_null()) return std::nullopt;
  return LibcVersion{value.at(0).get<int>(), value.at(1).get<int>()};
}

InterpreterTagFacts facts_from(const Json& json) {
  InterpreterTagFacts facts;
  facts.implementation = json.at("impl").get<std::string>();
  facts.python_major = json.at("major").get<int>();
  facts.python_minor = json.at("minor").get<int>();
  if (!json.at("nodot").is_null()) facts.py_version_nodot = json.at("nodot").get<std::string>();
  facts.py_debug = optional_truth(json.at("debug"));
  facts.has_gettotalrefcount = json.at("refcount").get<bool>();
  facts.has_d_pyd_suffix = json.at("d_pyd").get<bool>();
  facts.with_pymalloc = optional_truth(json.at("pymalloc"));
  if (!json.at("unicode_size").is_null())
    facts.py_unicode_size = json.at("unicode_size").get<int>();
  facts.max_unicode_is_ucs4 = json.at("ucs4").get<bool>();
  facts.gil_disabled = optional_truth(json.at("gil")).value_or(false);
  if (!json.at("soabi").is_null()) facts.soabi = json.at("soabi").get<std::string>();
  facts.system = json.at("system").get<std::string>();
  facts.platform = json.at("platform").get<std::string>();
  facts.is_32bit = json.at("is_32bit").get<bool>();
  facts.glibc = libc(json.at("glibc"));
  facts.musl = libc(json.at("musl"));
  facts.executable_is_armhf = json.at("armhf").get<bool>();
  facts.executable_is_i686 = json.at("i686").get<bool>();
  for (const auto& version : json.at("vetoed")) facts.manylinux_vetoed.push_back(*libc(version));
  return facts;
}

std::string answer(const std::string& line) {
  const auto json = Json::parse(line);
  const auto rules = json.at("rules").get<std::string>() == "pip"
                         ? flashfit::pkg::TagRules::pip_packaging_21_3
                         : flashfit::pkg::TagRules::packaging_21_3_sys_tags;
  const flashfit::pkg::SupportedTags supported(
      flashfit::pkg::supported_tags(facts_from(json.at("facts")), rules));
  flashfit::util::Sha256 sha;
  for (std::size_t i = 0; i < supported.size(); ++i) {
    sha.update(i == 0 ? supported.tags()[i].str() : "\n" + supported.tags()[i].str());
  }
  const auto wheel = flashfit::pkg::parse_tag_set(json.at("wheel").get<std::string>());
  if (!wheel) return "error: " + wheel.error().message;
  const auto rank = supported.best_rank(*wheel);
  return std::to_string(supported.size()) + " " + flashfit::util::to_hex(sha.finish()) + " " +
         (rank ? std::to_string(*rank) : "-1");
}

}  // namespace

int main() {
  return run_line_evaluator(answer);
}
