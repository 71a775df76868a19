#include "cli/environment_text.hpp"

#include <fmt/format.h>

#include "cli/colour.hpp"
#include "util/strings.hpp"

namespace flashfit::cli {
namespace {

std::string gib(std::uint64_t bytes) {
  return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
}

// One report line: "  label          value  (source)". Unknown facts say why;
// what-if facts are marked so nobody mistakes them for this machine.
class Section {
 public:
  Section(std::string& out, const char* title) : out_(out) { out_ += fmt::format("{}\n", title); }

  template <class T, class Show>
  void fact(const char* label, const env::Fact<T>& f, Show show) {
    if (f.known()) {
      line(label, show(*f.value), f.source, f.overridden);
    } else {
      line(label, "unknown: " + f.unknown_reason, f.source, false);
    }
  }
  template <class T>
  void fact(const char* label, const env::Fact<T>& f) {
    fact(label, f, [](const T& v) { return fmt::format("{}", v); });
  }
  void line(const char* label, const std::string& value, const std::string& source = {},
            bool overridden = false) {
    // Facts come from files, drivers and other programs: escape control bytes
    // so nothing they contain can drive the terminal.
    std::string text = fmt::format("  {:<15}{}", label, util::printable(value, 4096));
    if (overridden) {
      text += "  [what-if " + util::printable(source) + "]";
    } else if (!source.empty() && source.size() <= 60 && text.size() + source.size() < 110) {
      text += "  (" + util::printable(source) + ")";
    } else if (!source.empty()) {
      text += fmt::format("\n  {:<15}  from {}", "", util::printable(source, 4096));
    }
    out_ += text + "\n";
  }

 private:
  std::string& out_;
};

std::string path_str(const std::filesystem::path& p) {
  return p.string();
}

void machine_section(std::string& out, const env::MachineFacts& m) {
  Section s(out, "machine");
  s.fact("os", m.os);
  s.fact("kernel", m.kernel);
  s.fact("arch", m.arch);
  s.fact("libc", m.libc, [](const env::LibcInfo& l) { return l.name + " " + l.version; });
  s.fact("cpus", m.cpu_count);
  s.fact("memory", m.memory_total_bytes, gib);
  s.fact("available", m.memory_available_bytes, gib);
  for (const auto& d : m.disks) {
    s.fact("free disk", d.space, [&](const env::DiskSpace& space) {
      return gib(space.free_bytes) + " at " + d.dir.string();
    });
  }
}

void python_section(std::string& out, const env::PythonFacts& p) {
  Section s(out, "python");
  s.fact("interpreter", p.interpreter, [](const env::Interpreter& i) {
    std::string text = i.executable + " (" + i.implementation + " " + i.version_str();
    if (i.tag_facts.gil_disabled) text += ", free-threaded";
    if (i.abiflags.find('d') != std::string::npos) text += ", debug";
    return text + ")";
  });
  s.fact("version", p.version, [](const env::MajorMinor& v) { return v.str(); });
  if (p.interpreter.known()) {
    const auto& i = *p.interpreter;
    s.line("venv", i.in_venv ? "yes (" + i.prefix + ")" : "no");
    s.line("soabi", i.soabi.value_or("none"));
    for (const auto& dir : i.site_dirs) s.line("site dir", dir);
    s.line("pip", i.has_pip ? "yes" : "no");
  }
  s.fact("uv", p.uv, path_str);
}

void torch_section(std::string& out, const env::TorchFacts& t) {
  Section s(out, "torch");
  if (!t.installed() && !t.version.overridden) {
    s.line("torch", "not installed: " + t.package_dir.unknown_reason);
    return;
  }
  s.fact("version", t.version_text);
  auto build = [](const char* none_text) {
    return [none_text](const env::ToolkitBuild& b) {
      return b.none() ? std::string(none_text) : *b.version;
    };
  };
  s.fact("cuda", t.cuda, build("none (CPU build)"));
  if (t.hip.known() && !t.hip->none()) s.fact("hip", t.hip, build("none"));
  s.fact("C++11 ABI", t.cxx11_abi, [](bool abi) { return std::string(abi ? "TRUE" : "FALSE"); });
  s.fact("pybind11 id", t.pybind11_internals_id);
  s.fact("cuda packages", t.cuda_runtime_packages,
         [](const std::vector<env::CudaRuntimePackage>& ps) {
           if (ps.empty()) return std::string("none");
           std::string text;
           for (const auto& p : ps) text += (text.empty() ? "" : ", ") + p.name;
           return text;
         });
  s.fact("library dir", t.library_dir, path_str);
}

void gpu_section(std::string& out, const env::GpuFacts& g) {
  Section s(out, "GPU and driver");
  s.line("summary", g.summary);
  s.fact("driver", g.driver_version);
  s.fact("driver CUDA", g.driver_cuda, [](const pkg::CudaVersion& c) { return c.str(); });
  if (g.gpus.known()) {
    for (const auto& d : *g.gpus) {
      const std::string cc = d.capability.known() ? d.capability->str() : "unknown";
      const std::string mem = d.total_memory.known() ? ", " + gib(*d.total_memory) : "";
      s.line("gpu",
             fmt::format("{}: {} (compute capability {}{})", d.index,
                         d.name.value.value_or("unknown name"), cc, mem),
             d.capability.source, d.capability.overridden);
    }
  }
}

void toolkit_section(std::string& out, const env::ToolkitFacts& t) {
  Section s(out, "toolkit");
  s.fact("nvcc", t.nvcc, path_str);
  s.fact("nvcc CUDA", t.cuda_version, [](const env::NvccVersion& v) { return v.text; });
  s.fact("CUDA_HOME", t.cuda_home, path_str);
  s.fact("host compiler", t.host_compiler, path_str);
  s.fact("compiler", t.host_compiler_id, [&](const env::CompilerId& c) {
    return fmt::format("{} {} ({}: {})", env::to_string(c.kind), c.version,
                       env::to_string(t.host_compiler_check.verdict), t.host_compiler_check.reason);
  });
  s.fact("ninja", t.ninja, path_str);
}

}  // namespace

std::string environment_text(const env::Environment& env) {
  std::string out;
  if (env.what_if.any()) {
    std::string flags;
    for (const auto& f : env.what_if.describe()) flags += (flags.empty() ? "" : " ") + f;
    out += "what-if: " + flags + "\n\n";
  }
  machine_section(out, env.machine);
  out += "\n";
  python_section(out, env.python);
  out += "\n";
  torch_section(out, env.torch);
  out += "\n";
  gpu_section(out, env.gpu);
  out += "\n";
  toolkit_section(out, env.toolkit);
  return out;
}

std::string findings_text(const std::vector<env::Finding>& findings) {
  if (findings.empty())
    return "findings\n  none: this environment is ready for flash-attn wheels\n";
  std::string out = "findings\n";
  for (const auto& f : findings) {
    const std::string severity = fmt::format("{:<8}", env::to_string(f.severity));
    out += fmt::format("  {} {}: {}\n",
                       f.severity == env::Severity::problem   ? paint(Paint::bad, severity)
                       : f.severity == env::Severity::warning ? paint(Paint::warn, severity)
                                                              : severity,
                       f.id, f.message);
    if (!f.fix.empty()) out += fmt::format("  {:<8} fix: {}\n", "", f.fix);
  }
  return out;
}

}  // namespace flashfit::cli
