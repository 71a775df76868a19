#include "cli/environment_json.hpp"

#include "util/build_info.hpp"
#include "util/strings.hpp"

namespace flashfit::cli {
namespace {

using nlohmann::json;

template <class T, class ToJson>
json fact(const env::Fact<T>& f, ToJson to_json) {
  return fact_json(f, to_json);
}

template <class T>
json fact(const env::Fact<T>& f) {
  return fact(f, [](const T& v) { return json(v); });
}

json path_fact(const env::Fact<std::filesystem::path>& f) {
  return fact(f, [](const std::filesystem::path& p) { return json(p.string()); });
}

json machine_json(const env::MachineFacts& m) {
  json disks = json::array();
  for (const auto& d : m.disks) {
    disks.push_back({{"dir", d.dir.string()}, {"space", fact(d.space, [](const env::DiskSpace& s) {
                                                 return json{
                                                     {"measured_at", s.measured_at.string()},
                                                     {"free_bytes", s.free_bytes},
                                                     {"total_bytes", s.total_bytes}};
                                               })}});
  }
  return {{"os", fact(m.os)},
          {"kernel", fact(m.kernel)},
          {"arch", fact(m.arch)},
          {"libc", fact(m.libc,
                        [](const env::LibcInfo& l) {
                          return json{{"name", l.name}, {"version", l.version}};
                        })},
          {"cpu_count", fact(m.cpu_count)},
          {"memory_total_bytes", fact(m.memory_total_bytes)},
          {"memory_available_bytes", fact(m.memory_available_bytes)},
          {"disks", disks},
          {"warnings", m.warnings}};
}

json python_json(const env::PythonFacts& p) {
  return {{"interpreter", fact(p.interpreter,
                               [](const env::Interpreter& i) {
                                 return json{{"executable", i.executable},
                                             {"realpath", i.realpath},
                                             {"found_by", i.choice.found_by},
                                             {"from_cache", i.from_cache},
                                             {"implementation", i.implementation},
                                             {"version", i.version_str()},
                                             {"abiflags", i.abiflags},
                                             {"free_threaded", i.tag_facts.gil_disabled},
                                             {"soabi", i.soabi ? json(*i.soabi) : json(nullptr)},
                                             {"ext_suffix",
                                              i.ext_suffix ? json(*i.ext_suffix) : json(nullptr)},
                                             {"prefix", i.prefix},
                                             {"base_prefix", i.base_prefix},
                                             {"in_venv", i.in_venv},
                                             {"site_dirs", i.site_dirs},
                                             {"has_pip", i.has_pip}};
                               })},
          {"version", fact(p.version, [](const env::MajorMinor& v) { return json(v.str()); })},
          {"uv", path_fact(p.uv)}};
}

json toolkit_build(const env::ToolkitBuild& b) {
  return b.none() ? json("none") : json(*b.version);
}

json torch_json(const env::TorchFacts& t) {
  return {{"package_dir", path_fact(t.package_dir)},
          {"version", fact(t.version_text)},
          {"cuda", fact(t.cuda, toolkit_build)},
          {"hip", fact(t.hip, toolkit_build)},
          {"cxx11_abi", fact(t.cxx11_abi)},
          {"pybind11_internals_id", fact(t.pybind11_internals_id)},
          {"cuda_runtime_packages", fact(t.cuda_runtime_packages,
                                         [](const std::vector<env::CudaRuntimePackage>& ps) {
                                           json out = json::array();
                                           for (const auto& p : ps) out.push_back(p.requirement);
                                           return out;
                                         })},
          {"library_dir", path_fact(t.library_dir)}};
}

json gpu_json(const env::GpuFacts& g) {
  return {
      {"presence", std::string(env::to_string(g.presence))},
      {"summary", g.summary},
      {"driver_version", fact(g.driver_version)},
      {"driver_cuda", fact(g.driver_cuda, [](const pkg::CudaVersion& c) { return json(c.str()); })},
      {"gpus", fact(g.gpus, [](const std::vector<env::GpuDevice>& devices) {
         json out = json::array();
         for (const auto& d : devices) {
           out.push_back(
               {{"index", d.index},
                {"name", fact(d.name)},
                {"compute_capability",
                 fact(d.capability, [](const env::ComputeCapability& c) { return json(c.str()); })},
                {"memory_bytes", fact(d.total_memory)}});
         }
         return out;
       })}};
}

// Machine-readable ids are kebab-case ("too-new"), unlike the report's words.
std::string verdict_id(env::HostCompilerVerdict verdict) {
  std::string id = env::to_string(verdict);
  for (auto& c : id) {
    if (c == ' ') c = '-';
  }
  return id;
}

json toolkit_json(const env::ToolkitFacts& t) {
  return {{"nvcc", path_fact(t.nvcc)},
          {"cuda_home", path_fact(t.cuda_home)},
          {"cuda_version",
           fact(t.cuda_version, [](const env::NvccVersion& v) { return json(v.text); })},
          {"host_compiler", path_fact(t.host_compiler)},
          {"host_compiler_version",
           fact(t.host_compiler_id,
                [](const env::CompilerId& c) {
                  return json{{"kind", env::to_string(c.kind)}, {"version", c.version}};
                })},
          {"host_compiler_max_major", fact(t.host_compiler_max_major)},
          {"host_compiler_check",
           {{"verdict", verdict_id(t.host_compiler_check.verdict)},
            {"reason", t.host_compiler_check.reason}}},
          {"ninja", path_fact(t.ninja)},
          {"ninja_version", fact(t.ninja_version)}};
}

// Facts carry bytes from files, paths, environment variables and libraries,
// which need not be UTF-8, and dump() throws on those. Invalid sequences become
// U+FFFD here, so every caller can dump() the report.
void make_utf8(json& j) {
  if (j.is_string()) {
    if (!util::is_ascii(j.get_ref<const std::string&>())) {
      j = json::parse(j.dump(-1, ' ', false, json::error_handler_t::replace));
    }
  } else if (j.is_structured()) {
    for (auto& item : j) make_utf8(item);
  }
}

}  // namespace

nlohmann::json environment_json(const env::Environment& env) {
  json out{{"flashfit_version", util::kVersion},   {"what_if", env.what_if.describe()},
           {"machine", machine_json(env.machine)}, {"python", python_json(env.python)},
           {"torch", torch_json(env.torch)},       {"gpu", gpu_json(env.gpu)},
           {"toolkit", toolkit_json(env.toolkit)}};
  make_utf8(out);
  return out;
}

nlohmann::json findings_json(const std::vector<env::Finding>& findings) {
  json out = json::array();
  for (const auto& f : findings) {
    out.push_back({{"id", f.id},
                   {"severity", std::string(env::to_string(f.severity))},
                   {"message", f.message},
                   {"fix", f.fix}});
  }
  make_utf8(out);
  return out;
}

}  // namespace flashfit::cli
