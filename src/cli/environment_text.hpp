#pragma once
// The Environment and findings as the readable doctor report.

#include <string>
#include <vector>

#include "env/environment.hpp"
#include "env/findings.hpp"

namespace flashfit::cli {

std::string environment_text(const env::Environment& env);
std::string findings_text(const std::vector<env::Finding>& findings);

}  // namespace flashfit::cli
