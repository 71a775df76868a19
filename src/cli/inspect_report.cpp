#include "cli/inspect_report.hpp"

#include <fmt/core.h>

#include "cli/colour.hpp"
#include "util/strings.hpp"

namespace flashfit::cli {

namespace {

using binary::Check;
using binary::CheckStatus;
using nlohmann::json;

json null_if_empty(const std::string& text) {
  return text.empty() ? json(nullptr) : json(text);
}

json check_json(const Check& check, const std::string* module) {
  return {{"check", check.id},
          {"status", std::string(to_string(check.status))},
          {"summary", check.summary},
          {"details", check.details},
          {"fix", null_if_empty(check.fix)},
          {"module", module ? json(*module) : json(nullptr)}};
}

std::string kind_name(binary::FatbinKind kind) {
  switch (kind) {
    case binary::FatbinKind::ptx:
      return "ptx";
    case binary::FatbinKind::cubin:
      return "sass";
    case binary::FatbinKind::lto_ir:
      return "lto-ir";
    case binary::FatbinKind::unknown:
      break;
  }
  return "unknown";
}

std::string kernel_source(binary::KernelSource source) {
  switch (source) {
    case binary::KernelSource::sass:
      return "sass";
    case binary::KernelSource::ptx_jit:
      return "ptx-jit";
    case binary::KernelSource::none:
      break;
  }
  return "none";
}

json module_json(const binary::ModuleReport& m) {
  json needed = json::array();
  for (const auto& lib : m.resolved) {
    needed.push_back({{"name", lib.name},
                      {"found", lib.via != binary::FoundVia::not_found},
                      {"via", std::string(to_string(lib.via))},
                      {"path", lib.path ? json(lib.path->string()) : json(nullptr)},
                      {"detail", null_if_empty(lib.detail)}});
  }
  json version_needs = json::object();
  for (const auto& need : m.elf.version_needs) version_needs[need.file] = need.versions;
  json torch = nullptr;
  if (m.torch) {
    json missing = json::array();
    for (const auto& s : m.torch->missing) {
      missing.push_back({{"symbol", s.symbol}, {"demangled", s.demangled}});
    }
    torch = {{"checked", m.torch->checked},
             {"missing", missing},
             {"diagnosis", m.torch->diagnosis == binary::SymbolDiagnosis::none
                               ? json(nullptr)
                               : json(std::string(to_string(m.torch->diagnosis)))},
             {"explanation", null_if_empty(m.torch->explanation)}};
  }
  json images = json::array();
  for (const auto& e : m.fatbin) {
    images.push_back({{"name", e.name()},
                      {"kind", kind_name(e.kind)},
                      {"arch", e.arch},
                      {"ptx_isa", e.ptx_isa_version ? json(*e.ptx_isa_version) : json(nullptr)}});
  }
  json gpus = json::array();
  for (const auto& k : m.kernels) {
    gpus.push_back({{"gpu", k.gpu.label},
                    {"capability", fmt::format("{}.{}", k.gpu.major, k.gpu.minor)},
                    {"source", kernel_source(k.verdict.source)},
                    {"image", k.verdict.entry ? json(k.verdict.entry->name()) : json(nullptr)},
                    {"driver_ok", k.verdict.driver_ok ? json(*k.verdict.driver_ok) : json(nullptr)},
                    {"warning", null_if_empty(k.verdict.warning)}});
  }
  const auto glibc = m.elf.max_needed_version("GLIBC_");
  const auto glibcxx = m.elf.max_needed_version("GLIBCXX_");
  return {{"member", m.member},
          {"machine", m.elf.machine_name()},
          {"cxx11_abi", std::string(to_string(m.abi.abi))},
          {"needed", needed},
          {"rpath", m.elf.rpath},
          {"runpath", m.elf.runpath},
          {"version_needs", version_needs},
          {"max_glibc", glibc ? json(*glibc) : json(nullptr)},
          {"max_glibcxx", glibcxx ? json(*glibcxx) : json(nullptr)},
          {"torch_symbols", torch},
          {"pybind11_internals_id", m.pybind11_id ? json(*m.pybind11_id) : json(nullptr)},
          {"cuda", {{"images", images}, {"gpus", gpus}}}};
}

std::string marker(CheckStatus status) {
  switch (status) {
    case CheckStatus::pass:
      return paint(Paint::good, "ok  ");
    case CheckStatus::note:
      return "note";
    case CheckStatus::warn:
      return paint(Paint::warn, "WARN");
    case CheckStatus::fail:
      return paint(Paint::bad, "FAIL");
    case CheckStatus::skip:
      return "skip";
  }
  return "skip";
}

std::string target_line(const binary::InspectReport& report) {
  const std::string what = report.name.empty() ? report.path.filename().string()
                                               : fmt::format("{} {}", report.name, report.version);
  return fmt::format("{} ({} {})", what, to_string(report.kind), report.path.string());
}

std::string environment_line(const env::Environment& env) {
  std::vector<std::string> parts;
  if (env.python.interpreter.known()) {
    parts.push_back(fmt::format("Python {} ({})",
                                env.python.version.known() ? env.python.version->str()
                                                           : env.python.interpreter->version_str(),
                                env.python.interpreter->executable));
  }
  if (env.torch.version_text.known()) {
    parts.push_back(fmt::format("torch {}", *env.torch.version_text));
  } else {
    parts.push_back("no torch");
  }
  if (env.gpu.gpus.known()) {
    parts.push_back(env.gpu.gpus->empty() ? std::string("no GPU")
                                          : fmt::format("{} GPU(s)", env.gpu.gpus->size()));
  }
  const auto what_if = env.what_if.describe();
  if (!what_if.empty()) parts.push_back("what-if " + util::join(what_if, " "));
  return util::join(parts, ", ");
}

struct Row {
  const Check* check;
  const std::string* module;
};

}  // namespace

json inspect_json(const binary::InspectReport& report, const env::Environment& env) {
  json checks = json::array();
  for (const Check& c : report.checks) checks.push_back(check_json(c, nullptr));
  json modules = json::array();
  for (const auto& m : report.modules) {
    for (const Check& c : m.checks) checks.push_back(check_json(c, &m.member));
    modules.push_back(module_json(m));
  }
  json tags = json::array();
  for (const auto& t : report.tags) tags.push_back(t.str());
  const bool ok = report.compatible();
  return {{"schema", 1},
          {"target",
           {{"kind", std::string(to_string(report.kind))},
            {"path", report.path.string()},
            {"name", null_if_empty(report.name)},
            {"version", null_if_empty(report.version)},
            {"tags", tags}}},
          {"compatible", ok},
          {"verdict", ok ? "compatible" : "incompatible"},
          {"environment", environment_line(env)},
          {"what_if", env.what_if.describe()},
          {"checks", checks},
          {"modules", modules}};
}

std::string inspect_text(const binary::InspectReport& report, const env::Environment& env) {
  std::vector<Row> rows;
  for (const Check& c : report.checks) rows.push_back({&c, nullptr});
  for (const auto& m : report.modules) {
    for (const Check& c : m.checks) rows.push_back({&c, &m.member});
  }
  std::size_t failed = 0, warned = 0;
  for (const Row& r : rows) {
    failed += r.check->status == CheckStatus::fail ? 1 : 0;
    warned += r.check->status == CheckStatus::warn ? 1 : 0;
  }
  std::string out;
  if (failed == 0) {
    out += fmt::format("{}: {}{}\n", paint(Paint::good, "compatible"), target_line(report),
                       warned ? fmt::format(" ({} warning(s))", warned) : "");
  } else {
    out += fmt::format("{}: {} ({} check(s) failed)\n", paint(Paint::bad, "incompatible"),
                       target_line(report), failed);
  }
  out += fmt::format("  against: {}\n", environment_line(env));
  if (report.modules.empty()) out += "  no compiled modules\n";

  // Failures and warnings in full, then the rest one line each.
  auto heading = [](const Row& r) {
    return r.module ? fmt::format("{} [{}]", r.check->id, *r.module) : r.check->id;
  };
  for (CheckStatus wanted : {CheckStatus::fail, CheckStatus::warn}) {
    for (const Row& r : rows) {
      if (r.check->status != wanted) continue;
      out += fmt::format("\n{} {}: {}\n", marker(wanted), heading(r), r.check->summary);
      for (const auto& d : r.check->details) out += fmt::format("       {}\n", d);
      if (!r.check->fix.empty()) out += fmt::format("     fix: {}\n", r.check->fix);
    }
  }
  out += "\n";
  for (const Row& r : rows) {
    if (r.check->status == CheckStatus::fail || r.check->status == CheckStatus::warn) continue;
    out += fmt::format("{} {}: {}\n", marker(r.check->status), heading(r), r.check->summary);
  }
  return out;
}

}  // namespace flashfit::cli
