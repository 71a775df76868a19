#include "cli/resolve_report.hpp"

#include <fmt/format.h>

#include "cli/colour.hpp"
#include "cli/environment_json.hpp"
#include "util/strings.hpp"

namespace flashfit::cli {
namespace {

using nlohmann::json;

constexpr std::size_t nearest_shown = 8;

json environment_facts(const env::Environment& env) {
  json gpus = fact_json(env.gpu.gpus, [](const std::vector<env::GpuDevice>& list) {
    json out = json::array();
    for (const env::GpuDevice& g : list) {
      out.push_back({{"name", g.name.known() ? json(*g.name) : json(nullptr)},
                     {"compute_capability",
                      g.capability.known() ? json(g.capability->str()) : json(nullptr)}});
    }
    return out;
  });
  return {
      {"python",
       fact_json(env.python.version, [](const env::MajorMinor& v) { return json(v.str()); })},
      {"interpreter", fact_json(env.python.interpreter,
                                [](const env::Interpreter& i) { return json(i.executable); })},
      {"arch", fact_json(env.machine.arch, [](const std::string& a) { return json(a); })},
      {"libc", fact_json(env.machine.libc,
                         [](const env::LibcInfo& l) { return json(l.name + " " + l.version); })},
      {"torch", fact_json(env.torch.version, [](const pkg::Version& v) { return json(v.str()); })},
      {"torch_cuda", fact_json(env.torch.cuda,
                               [](const env::ToolkitBuild& b) {
                                 return b.none() ? json("none") : json(*b.version);
                               })},
      {"cxx11_abi", fact_json(env.torch.cxx11_abi, [](bool b) { return json(b); })},
      {"gpus", gpus},
      {"overrides", env.what_if.describe()},
  };
}

json assumptions_json(const resolve::Judged& j) {
  json out = json::array();
  for (const resolve::Assumption& a : j.assumptions) {
    out.push_back({{"fact", a.fact}, {"message", a.message}, {"flag", a.flag}});
  }
  return out;
}

const char* verdict(const resolve::Judged& j) {
  return j.certain() ? "compatible" : j.compatible() ? "uncertain" : "rejected";
}

json candidate_json(const resolve::Judged& j) {
  json reasons = json::array();
  for (const resolve::Reason& r : j.reasons)
    reasons.push_back({{"code", to_string(r.code)}, {"message", r.message}});
  json out{{"filename", j.candidate->filename},
           {"version", j.wheel->version.public_str()},
           {"url", j.candidate->url},
           {"source", j.candidate->source},
           {"verdict", verdict(j)},
           {"reasons", reasons},
           {"notes", j.notes},
           {"certain", j.certain()},
           {"assumptions", assumptions_json(j)},
           {"variant", {{"scheme", to_string(j.variant.scheme)}, {"label", j.variant.raw}}},
           {"cxx11_abi", j.cxx11_abi ? json(*j.cxx11_abi) : json(nullptr)}};
  if (!j.abi_basis.empty()) out["abi_basis"] = j.abi_basis;
  if (!j.candidate->release_tag.empty()) out["release_tag"] = j.candidate->release_tag;
  if (!j.candidate->evidence.empty()) out["evidence"] = j.candidate->evidence;
  if (j.candidate->sha256) out["sha256"] = *j.candidate->sha256;
  return out;
}

std::string env_line(const env::Environment& env) {
  std::vector<std::string> parts;
  parts.push_back(env.python.version.known() ? "Python " + env.python.version->str()
                                             : "Python unknown");
  if (env.torch.version.known()) {
    std::string cuda = env.torch.cuda.known()
                           ? (env.torch.cuda->none() ? "CPU" : "CUDA " + *env.torch.cuda->version)
                           : "CUDA unknown";
    std::string abi = env.torch.cxx11_abi.known()
                          ? (*env.torch.cxx11_abi ? ", C++11 ABI" : ", pre-C++11 ABI")
                          : "";
    if (env.torch.cxx11_abi.known() && util::starts_with(env.torch.cxx11_abi.source, "derived"))
      abi += " derived";
    parts.push_back(fmt::format("torch {} ({}{})", env.torch.version->str(), cuda, abi));
  } else {
    parts.push_back("no torch");
  }
  std::string platform = env.machine.arch.known() ? *env.machine.arch : "unknown arch";
  if (env.machine.libc.known())
    platform += " " + env.machine.libc->name + " " + env.machine.libc->version;
  parts.push_back(platform);
  if (env.gpu.gpus.known()) {
    std::vector<std::string> ccs;
    for (const auto& g : *env.gpu.gpus)
      ccs.push_back(g.capability.known() ? g.capability->str() : "?");
    parts.push_back(ccs.empty() ? "no GPU" : "GPUs " + util::join(ccs, ", "));
  } else {
    parts.push_back("GPUs unknown");
  }
  std::string line = util::join(parts, ", ");
  if (env.what_if.any()) line += " [what-if: " + util::join(env.what_if.describe(), " ") + "]";
  if (env.torch.cxx11_abi.known() && util::starts_with(env.torch.cxx11_abi.source, "derived")) {
    line += "\ntorch's C++11 ABI " + env.torch.cxx11_abi.source + " (--cxx11-abi overrides)";
  }
  return line;
}

void candidate_text(std::string& out, const resolve::Judged& j) {
  out += fmt::format("  {}  [{}{}]\n", j.candidate->filename, j.candidate->source,
                     j.candidate->release_tag.empty() ? "" : " " + j.candidate->release_tag);
  for (const resolve::Reason& r : j.reasons)
    out += fmt::format("      {}: {}\n", to_string(r.code), r.message);
}

}  // namespace

std::string resolve_text(const ResolveReport& report) {
  const resolve::Resolution& r = report.resolution;
  std::string out = fmt::format("{} for {}\n", r.request.text, env_line(report.environment));
  std::size_t compatible = r.compatible_count();
  std::size_t certain = r.certain_count();
  std::size_t rejected = r.candidates.size() - compatible;
  if (r.selected) {
    const resolve::Judged& j = r.candidates[*r.selected];
    out += fmt::format(
        "\n{} {}\n  version: {}\n  source:  {}{}\n  url:     {}\n", paint(Paint::good, "selected:"),
        paint(Paint::strong, j.candidate->filename), j.wheel->version.public_str(),
        j.candidate->source,
        j.candidate->release_tag.empty() ? "" : " (release " + j.candidate->release_tag + ")",
        j.candidate->url);
    if (j.candidate->sha256) out += "  sha256:  " + *j.candidate->sha256 + "\n";
    for (const std::string& n : j.notes) out += "  note: " + n + "\n";
    if (!j.certain()) {
      out += "  uncertain: no wheel fits for certain; this one fits only if\n";
      for (const resolve::Assumption& a : j.assumptions) {
        out += fmt::format("    - {} (give {})\n", a.message, a.flag);
      }
    }
  } else {
    out += "\n" + paint(Paint::bad, "no wheel fits this environment.") + "\n";
  }
  out += fmt::format(
      "\n{} wheel(s) considered: {} compatible, {}{} rejected.\n", r.candidates.size(), certain,
      compatible == certain ? "" : fmt::format("{} uncertain, ", compatible - certain), rejected);
  std::size_t shown = 0;
  bool header = false;
  for (const resolve::Judged& j : r.candidates) {
    if (j.compatible() && !report.all) continue;
    if (!report.all && shown == nearest_shown) break;
    if (!header) {
      out +=
          report.all ? "\nevery candidate:\n" : "\nnearest rejected (--all for every candidate):\n";
      header = true;
    }
    if (j.compatible()) {
      out += fmt::format("  {}  [{}] {}\n", j.candidate->filename, j.candidate->source, verdict(j));
    } else {
      candidate_text(out, j);
    }
    ++shown;
  }
  if (report.config_effects && !report.config_effects->empty()) {
    out += "\nyour config changed this answer:\n";
    for (const resolve::ConfigEffect& e : *report.config_effects)
      out += fmt::format("  {}: {}: {}\n", e.file, e.setting, e.effect);
  }
  if (!r.suggestions.empty()) {
    out += "\nwhat would make a wheel fit:\n";
    int n = 1;
    for (const resolve::Suggestion& s : r.suggestions) {
      out += fmt::format("  {}. [{}] {}\n", n++, resolve::to_string(s.kind), s.message);
      if (s.command) out += "       $ " + *s.command + "\n";
    }
  }
  return out;
}

json resolve_json(const ResolveReport& report) {
  const resolve::Resolution& r = report.resolution;
  json selected = nullptr;
  if (r.selected) {
    const resolve::Judged& j = r.candidates[*r.selected];
    selected = {{"filename", j.candidate->filename},
                {"version", j.wheel->version.public_str()},
                {"url", j.candidate->url},
                {"source", j.candidate->source}};
    if (j.candidate->sha256) selected["sha256"] = *j.candidate->sha256;
    if (!j.candidate->release_tag.empty()) selected["release_tag"] = j.candidate->release_tag;
    selected["certain"] = j.certain();
    selected["assumptions"] = assumptions_json(j);
  }
  json candidates = json::array();
  for (const resolve::Judged& j : r.candidates) candidates.push_back(candidate_json(j));
  json suggestions = json::array();
  for (const resolve::Suggestion& s : r.suggestions) {
    json item{{"kind", resolve::to_string(s.kind)}, {"message", s.message}};
    if (s.command) item["command"] = *s.command;
    suggestions.push_back(item);
  }
  json sources = json::array();
  for (const resolve::SourceReport& s : report.sources) {
    sources.push_back({{"name", s.plan.name},
                       {"role", to_string(s.plan.role)},
                       {"location", s.plan.location},
                       {"enabled", s.plan.enabled},
                       {"priority", s.plan.priority},
                       {"wheels", s.wheels},
                       {"status", s.status}});
  }
  json config_effects = json::array();
  if (report.config_effects) {
    for (const resolve::ConfigEffect& e : *report.config_effects)
      config_effects.push_back({{"file", e.file}, {"setting", e.setting}, {"effect", e.effect}});
  }
  return {{"requirement", r.request.text},
          {"config_effects", config_effects},
          {"package",
           {{"name", r.request.name},
            {"recipe", report.recipe ? json(report.recipe->origin) : json(nullptr)}}},
          {"environment", environment_facts(report.environment)},
          {"sources", sources},
          {"selected", selected},
          {"candidates", candidates},
          {"suggestions", suggestions},
          {"warnings", r.warnings}};
}

}  // namespace flashfit::cli
