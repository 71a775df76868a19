#include "cli/resolve_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

#include "cli/colour.hpp"
#include "cli/environment_json.hpp"
#include "cli/pretty_json.hpp"
#include "util/strings.hpp"

namespace flashfit::cli {
namespace {

using nlohmann::json;

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

// Keys in the order nlohmann's dump gives them (sorted), so the streamed
// candidates read like the rest of the object.
void write_candidate(PrettyJson& w, const resolve::Judged& j) {
  w.begin_object();
  if (!j.abi_basis.empty()) {
    w.key("abi_basis");
    w.value(j.abi_basis);
  }
  w.key("assumptions");
  w.begin_array();
  for (const resolve::Assumption& a : j.assumptions) {
    w.begin_object();
    w.key("fact");
    w.value(a.fact);
    w.key("flag");
    w.value(a.flag);
    w.key("message");
    w.value(a.message);
    w.end_object();
  }
  w.end_array();
  w.key("certain");
  w.value(j.certain());
  w.key("cxx11_abi");
  if (j.cxx11_abi) {
    w.value(*j.cxx11_abi);
  } else {
    w.null();
  }
  if (!j.candidate->evidence.empty()) {
    w.key("evidence");
    w.value(j.candidate->evidence);
  }
  w.key("filename");
  w.value(j.candidate->filename);
  w.key("notes");
  w.begin_array();
  for (const std::string& n : j.notes) w.value(n);
  w.end_array();
  w.key("reasons");
  w.begin_array();
  for (const resolve::Reason& r : j.reasons) {
    w.begin_object();
    w.key("code");
    w.value(to_string(r.code));
    w.key("message");
    w.value(r.message);
    w.end_object();
  }
  w.end_array();
  if (!j.candidate->release_tag.empty()) {
    w.key("release_tag");
    w.value(j.candidate->release_tag);
  }
  if (j.candidate->sha256) {
    w.key("sha256");
    w.value(*j.candidate->sha256);
  }
  w.key("source");
  w.value(j.candidate->source);
  w.key("url");
  w.value(j.candidate->url);
  w.key("variant");
  w.begin_object();
  w.key("label");
  w.value(j.variant.raw);
  w.key("scheme");
  w.value(to_string(j.variant.scheme));
  w.end_object();
  w.key("verdict");
  w.value(verdict(j));
  w.key("version");
  w.value(j.wheel->version.public_str());
  w.end_object();
}

std::string env_line(const env::Environment& env) {
  std::vector<std::string> parts;
  parts.push_back(env.python.version.known() ? "Python " + env.python.version->str()
                                             : "Python unknown");
  if (env.torch.version.known()) {
    const bool rocm = env.torch.hip.known() && !env.torch.hip->none();
    std::string cuda = !env.torch.cuda.known()   ? "CUDA unknown"
                       : !env.torch.cuda->none() ? "CUDA " + *env.torch.cuda->version
                       : rocm                    ? "ROCm " + *env.torch.hip->version
                                                 : "CPU";
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

std::vector<std::pair<resolve::ReasonCode, std::size_t>> rejections_by_reason(
    const resolve::Resolution& resolution) {
  // Counted per code (a code is an enum's small number: a bit of a word), then listed.
  static_assert(static_cast<unsigned>(resolve::ReasonCode::missing) < 64);
  std::array<std::size_t, 64> per_code{};
  for (const resolve::Judged& j : resolution.candidates) {
    // A candidate counts once per code (two GPUs give two gpu-arch reasons).
    std::uint64_t seen = 0;
    for (const resolve::Reason& reason : j.reasons)
      seen |= std::uint64_t{1} << static_cast<unsigned>(reason.code);
    for (; seen != 0; seen &= seen - 1)
      ++per_code[static_cast<std::size_t>(std::countr_zero(seen))];
  }
  std::vector<std::pair<resolve::ReasonCode, std::size_t>> counts;
  for (std::size_t code = 0; code < per_code.size(); ++code) {
    if (per_code[code] != 0)
      counts.emplace_back(static_cast<resolve::ReasonCode>(code), per_code[code]);
  }
  // Most frequent first; ties in the codes' declaration order, so the output is stable.
  std::stable_sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  return counts;
}

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
  auto by_reason = rejections_by_reason(r);
  if (!by_reason.empty()) {
    std::vector<std::string> parts;
    parts.reserve(by_reason.size());
    for (const auto& [code, count] : by_reason)
      parts.push_back(fmt::format("{} {}", resolve::to_string(code), count));
    out += "rejections by reason: " + util::join(parts, ", ") + "\n";
  }
  std::size_t shown = 0;
  bool header = false;
  for (const resolve::Judged& j : r.candidates) {
    if (j.compatible() && !report.all) continue;
    if (!report.all && shown == kResolveNearestShown) break;
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

std::string resolve_json(const ResolveReport& report) {
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
  // What the text shows unless --all: the pick and the nearest rejections
  // (the only ones whose reasons carry messages; see resolve.cpp). Streamed
  // into the dumped object's "candidates": null below.
  std::string candidates;
  PrettyJson writer(candidates, 1);
  writer.begin_array();
  std::size_t rejected_shown = 0;
  for (std::size_t i = 0; i < r.candidates.size(); ++i) {
    const resolve::Judged& j = r.candidates[i];
    if (!report.all) {
      if (j.compatible() && i != r.selected) continue;
      if (!j.compatible() && rejected_shown++ == kResolveNearestShown) break;
    }
    write_candidate(writer, j);
  }
  writer.end_array();
  std::size_t compatible = r.compatible_count();
  std::size_t certain = r.certain_count();
  json counts{{"considered", r.candidates.size()},
              {"compatible", certain},
              {"uncertain", compatible - certain},
              {"rejected", r.candidates.size() - compatible}};
  json by_reason = json::object();
  for (const auto& [code, count] : rejections_by_reason(r))
    by_reason[std::string(resolve::to_string(code))] = count;
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
  json out{{"requirement", r.request.text},
           {"config_effects", config_effects},
           {"package",
            {{"name", r.request.name},
             {"recipe", report.recipe ? json(report.recipe->origin) : json(nullptr)}}},
           {"environment", environment_facts(report.environment)},
           {"sources", sources},
           {"selected", selected},
           {"counts", counts},
           {"rejections_by_reason", by_reason},
           {"all_candidates", report.all},
           {"candidates", nullptr},
           {"suggestions", suggestions},
           {"warnings", r.warnings}};
  std::string text = out.dump(2);
  // The only key at the top level's indentation (nested keys are deeper).
  constexpr std::string_view kSlot = "\n  \"candidates\": null";
  std::size_t at = text.find(kSlot);
  text.replace(at + kSlot.size() - 4, 4, candidates);
  return text + "\n";
}

}  // namespace flashfit::cli
