#pragma once
// The Environment and findings as JSON (schema: docs/json.md, "doctor").

#include <nlohmann/json.hpp>

#include "env/environment.hpp"
#include "env/findings.hpp"

namespace flashfit::cli {

// Every fact has the same shape: value (null when unknown), source, overridden,
// and unknown_reason when unknown.
template <class T, class ToJson>
nlohmann::json fact_json(const env::Fact<T>& f, ToJson to_json) {
  nlohmann::json out{
      {"value", f.known() ? nlohmann::json(to_json(*f.value)) : nlohmann::json(nullptr)},
      {"source", f.source},
      {"overridden", f.overridden}};
  if (!f.known()) out["unknown_reason"] = f.unknown_reason;
  return out;
}

nlohmann::json environment_json(const env::Environment& env);
nlohmann::json findings_json(const std::vector<env::Finding>& findings);

}  // namespace flashfit::cli
