#include "cli/build_report.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "net/progress.hpp"
#include "store/cache_entry_json.hpp"
#include "util/strings.hpp"

namespace flashfit::cli {
namespace {

using nlohmann::json;

std::string env_line(const build::BuildPlan& plan) {
  std::vector<std::string> parts;
  for (const auto& [name, value] : plan.env) parts.push_back(fmt::format("{}={}", name, value));
  return parts.empty() ? "(nothing set)" : util::join(parts, " ");
}

std::string key_text(const store::CacheEntry& e) {
  std::vector<std::string> parts{e.package + " " + e.version};
  const store::BuildRecord& r = e.record;
  if (r.torch) parts.push_back("torch " + r.torch->str());
  if (r.cuda) parts.push_back(r.cuda->cpu() ? "CPU torch" : "CUDA " + store::to_string(*r.cuda));
  if (r.cxx11_abi) parts.push_back(*r.cxx11_abi ? "C++11 ABI" : "pre-C++11 ABI");
  if (r.python) parts.push_back(*r.python);
  if (r.platform) parts.push_back(*r.platform);
  parts.push_back(r.archs.empty() ? "no GPU code" : "archs " + util::join(r.archs, ","));
  return util::join(parts, ", ");
}

json optional_json(const std::optional<std::string>& v) {
  return v ? json(*v) : json(nullptr);
}

json units_json(const build::BuildPlan& p) {
  json kinds = json::array();
  for (const build::UnitCost& c : p.unit_costs) {
    kinds.push_back({{"kind", c.kind},
                     {"cuda", c.cuda},
                     {"units", c.units},
                     {"seconds", c.seconds},
                     {"peak_bytes", c.peak_bytes},
                     {"measured", c.measured}});
  }
  return {{"basis", build::to_string(p.units_basis)},
          {"basis_text", build::describe(p.units_basis)},
          {"detail", p.units_detail},
          {"cuda", p.cuda_units},
          {"cxx", p.cxx_units},
          {"notes", p.units_notes},
          {"kinds", kinds},
          {"heaviest_kind", p.heaviest_kind.empty() ? json(nullptr) : json(p.heaviest_kind)},
          {"time_scale", p.time_scale},
          {"cost_basis", p.cost_basis},
          {"setup_requires", p.setup_requires}};
}

}  // namespace

std::string plan_text(const build::SourceTree& source, const std::string& package,
                      const build::BuildPlan& plan, const build::PreflightReport& preflight) {
  std::string out =
      fmt::format("build {}{} from {} ({})\n", package.empty() ? "the package" : package,
                  source.scan.version ? " " + *source.scan.version : std::string(),
                  util::printable(source.origin, 300), build::to_string(source.kind));
  out += fmt::format(
      "  units         {} .cu + {} C++ ({}: {}); the tree holds {} .cu, {} C/C++ files\n",
      plan.cuda_units, plan.cxx_units, build::describe(plan.units_basis), plan.units_detail,
      source.scan.cuda_files, source.scan.cpp_files);
  for (const std::string& note : plan.units_notes) out += "                " + note + "\n";
  if (plan.archs) {
    out += fmt::format(
        "  archs         {} ({}); the wheel will hold {}\n",
        !plan.archs->tokens.empty()    ? util::join(plan.archs->tokens, ";")
        : plan.archs->variable.empty() ? std::string("(setup.py's own)")
                                       : std::string("(torch's default)"),
        plan.archs->basis,
        plan.archs->sass.empty() ? "what torch picks" : util::join(plan.archs->sass, ", "));
  } else {
    out += "  archs         none (no CUDA code)\n";
  }
  out += fmt::format("  parallelism   {} job(s){} ({})\n", plan.jobs,
                     plan.cuda ? fmt::format(" x {} nvcc thread(s)", plan.threads) : std::string(),
                     plan.jobs_basis);
  out += fmt::format("  memory        budget {} ({}); ~{} per job; expected peak {}\n",
                     net::format_bytes(plan.budget_bytes), plan.budget_basis,
                     net::format_bytes(plan.per_job_bytes),
                     net::format_bytes(plan.expected_peak_bytes));
  if (plan.time_estimate) {
    out += fmt::format("  time          ~{} ({})\n",
                       net::format_duration(static_cast<double>(plan.time_estimate->count())),
                       plan.time_basis);
  }
  if (!plan.cost_basis.empty()) out += fmt::format("  unit costs    {}\n", plan.cost_basis);
  out += fmt::format("  disk          ~{}\n", net::format_bytes(plan.disk_estimate_bytes));
  out += "  environment   " + env_line(plan) + "\n";
  for (const std::string& w : plan.warnings) out += "  warning: " + w + "\n";
  out += "preflight:\n";
  for (const build::PreflightCheck& c : preflight.checks) {
    const char* mark = c.status == build::CheckStatus::failed    ? "FAILED "
                       : c.status == build::CheckStatus::warning ? "warning"
                       : c.status == build::CheckStatus::skipped ? "skipped"
                                                                 : "ok     ";
    out += fmt::format("  {} {:<15} {}\n", mark, c.id, c.message);
    if (!c.fix.empty() &&
        (c.status == build::CheckStatus::failed || c.status == build::CheckStatus::warning)) {
      out += fmt::format("          {:<15} fix: {}\n", "", c.fix);
    }
  }
  return out;
}

std::string build_outcome_text(const build::BuildOutcome& o, std::string_view install_flags) {
  std::string out;
  if (o.ok && o.stage == build::BuildStage::planned) return "\n(dry run: nothing was built)\n";
  if (o.ok && o.wheel) {
    const store::CacheEntry& e = o.wheel->entry;
    out += fmt::format("\nbuilt {}", e.filename);
    if (o.run) {
      out += fmt::format(" in {} (peak memory {}",
                         net::format_duration(static_cast<double>(o.run->elapsed.count()) / 1000.0),
                         net::format_bytes(o.run->peak_group_bytes));
      if (o.run->governor.pauses)
        out += fmt::format("; the governor paused compilers {} time(s)", o.run->governor.pauses);
      out += ")";
    }
    out += "\n";
    out += fmt::format("  inspect  {}\n", o.wheel->verdict.record.summary);
    out += fmt::format("  cached   {}\n", e.path.string());
    out += fmt::format("  key      {}\n", key_text(e));
    if (e.record.toolkit) out += fmt::format("  toolkit  {}\n", *e.record.toolkit);
    if (!o.log_path.empty()) out += fmt::format("  log      {}\n", o.log_path.string());
    if (o.kept_temp) out += fmt::format("  temp     {} (kept)\n", o.kept_temp->string());
    out += fmt::format("next: flashfit install {}{} (takes it from the cache)\n", o.package,
                       install_flags);
    return out;
  }
  out += fmt::format(
      "\nbuild {}: {}\n",
      o.stage == build::BuildStage::preflight ? "stopped before compiling" : "failed", o.failure);
  if (o.diagnosis) {
    out += fmt::format("diagnosis [{}]: {}\n  fix: {}\n", o.diagnosis->id, o.diagnosis->summary,
                       o.diagnosis->fix);
    for (const std::string& l : o.diagnosis->evidence) out += "  | " + l + "\n";
  }
  if (!o.failure_lines.empty()) {
    out += "last lines that matter:\n";
    for (const std::string& l : o.failure_lines) out += "  " + l + "\n";
  }
  if (!o.log_path.empty()) out += fmt::format("full log: {}\n", o.log_path.string());
  if (o.kept_temp) out += fmt::format("temp dir kept: {}\n", o.kept_temp->string());
  return out;
}

json build_json(const std::string& spec, const build::BuildOutcome& o) {
  json out{{"spec", spec},
           {"package", o.package},
           {"stage", build::to_string(o.stage)},
           {"ok", o.ok},
           {"failure", o.failure.empty() ? json(nullptr) : json(o.failure)},
           {"recipe", o.recipe ? json(o.recipe->name) : json(nullptr)}};
  if (o.source) {
    const auto& s = *o.source;
    out["source"] = {{"kind", build::to_string(s.kind)},
                     {"origin", s.origin},
                     {"root", s.root.string()},
                     {"sha256", optional_json(s.archive_sha256)},
                     {"name", optional_json(s.scan.name)},
                     {"version", optional_json(s.scan.version)},
                     {"cuda_files", s.scan.cuda_files},
                     {"cpp_files", s.scan.cpp_files}};
  } else {
    out["source"] = nullptr;
  }
  if (o.plan) {
    const auto& p = *o.plan;
    json env = json::array();
    for (const auto& [name, value] : p.env) env.push_back({{"name", name}, {"value", value}});
    json archs = nullptr;
    if (p.archs)
      archs = {{"tokens", p.archs->tokens},
               {"variable", p.archs->variable},
               {"basis", p.archs->basis},
               {"sass", p.archs->sass},
               {"unserved_gpus", p.archs->unserved_gpus}};
    out["plan"] = {
        {"cuda", p.cuda},
        {"archs", archs},
        {"jobs", p.jobs},
        {"jobs_basis", p.jobs_basis},
        {"threads", p.threads},
        {"budget_bytes", p.budget_bytes},
        {"budget_basis", p.budget_basis},
        {"reserve_bytes", p.reserve_bytes},
        {"per_job_bytes", p.per_job_bytes},
        {"per_worker_bytes", p.per_worker_bytes},
        {"expected_peak_bytes", p.expected_peak_bytes},
        {"time_estimate_s", p.time_estimate ? json(p.time_estimate->count()) : json(nullptr)},
        {"time_basis", p.time_basis},
        {"disk_estimate_bytes", p.disk_estimate_bytes},
        {"env", env},
        {"units", units_json(p)},
        {"warnings", p.warnings}};
  } else {
    out["plan"] = nullptr;
  }
  json checks = json::array();
  if (o.preflight) {
    for (const auto& c : o.preflight->checks) {
      checks.push_back({{"id", c.id},
                        {"status", build::to_string(c.status)},
                        {"message", c.message},
                        {"fix", c.fix.empty() ? json(nullptr) : json(c.fix)}});
    }
  }
  out["preflight"] = checks;
  if (o.run) {
    const auto& r = *o.run;
    out["run"] = {{"exit_code", r.exit_code},
                  {"term_signal", r.term_signal},
                  {"timed_out", r.timed_out},
                  {"elapsed_s", static_cast<double>(r.elapsed.count()) / 1000.0},
                  {"peak_group_bytes", r.peak_group_bytes},
                  {"output_lines", r.lines},
                  {"governor",
                   {{"pauses", r.governor.pauses},
                    {"resumes", r.governor.resumes},
                    {"max_paused", r.governor.max_paused},
                    {"samples", r.governor.samples}}}};
  } else {
    out["run"] = nullptr;
  }
  out["diagnosis"] = o.diagnosis ? json{{"id", o.diagnosis->id},
                                        {"summary", o.diagnosis->summary},
                                        {"fix", o.diagnosis->fix},
                                        {"evidence", o.diagnosis->evidence}}
                                 : json(nullptr);
  out["failure_lines"] = o.failure_lines;
  if (o.wheel) {
    const auto& e = o.wheel->entry;
    const json stored = store::entry_json(e);  // the fields as entry.json writes them
    out["wheel"] = {{"filename", e.filename},
                    {"path", e.path.string()},
                    {"sha256", e.sha256},
                    {"size", e.size},
                    {"archs", stored["archs"]},
                    {"toolkit", stored["toolkit"]},
                    {"inspect",
                     {{"compatible", o.wheel->verdict.record.compatible},
                      {"summary", o.wheel->verdict.record.summary},
                      {"environment", o.wheel->verdict.record.environment}}},
                    {"key",
                     {{"package", e.package},
                      {"version", e.version},
                      {"torch", stored["torch"]},
                      {"cuda", stored["cuda"]},
                      {"cxx11_abi", stored["cxx11_abi"]},
                      {"python", stored["python"]},
                      {"platform", stored["platform"]},
                      {"archs", stored["archs"]}}}};
  } else {
    out["wheel"] = nullptr;
  }
  out["log"] = o.log_path.empty() ? json(nullptr) : json(o.log_path.string());
  out["kept_temp"] = o.kept_temp ? json(o.kept_temp->string()) : json(nullptr);
  return out;
}

workflow::BuildSinks build_sinks(bool json) {
  workflow::BuildSinks sinks;
  sinks.progress_bar = net::stderr_wants_bar();
  sinks.say = [](std::string_view line) { note(line); };
  if (json) return sinks;
  // Not a note: -q keeps what the toolkit choice did to the build.
  sinks.toolkit = [](std::string_view line) {
    std::fprintf(stderr, "flashfit: %.*s\n", static_cast<int>(line.size()), line.data());
  };
  sinks.on_planned = [](const build::SourceTree& source, const build::BuildPlan& plan,
                        const build::PreflightReport& preflight) {
    // Shown before anything compiles; the name comes from the source when known.
    std::string package = source.scan.name.value_or("");  // setup.py alone does not say it
    write_stdout(plan_text(source, package, plan, preflight));
  };
  return sinks;
}

}  // namespace flashfit::cli
