#include "env/torch.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <fstream>
#include <system_error>

#include "binary/cxx_abi.hpp"
#include "binary/elf.hpp"
#include "util/strings.hpp"

namespace flashfit::env {

namespace fs = std::filesystem;

namespace {

// version.py is a few hundred bytes; anything past this is not torch's file.
constexpr std::size_t kMaxTextFile = std::size_t{1} << 20;

util::Result<std::string> read_small_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return util::input_error("cannot open", path.string());
  std::string text(kMaxTextFile + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return util::input_error("cannot read", path.string());
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxTextFile) {
    return util::input_error(fmt::format("larger than {} bytes", kMaxTextFile), path.string());
  }
  return text;
}

bool is_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);  // follows symlinks
}
bool is_dir(const fs::path& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

// Where a torch/lib entry really is: Debian's are symlinks into the
// multiarch directory, and a reader deserves the real file.
std::string resolved(const fs::path& path) {
  std::error_code ec;
  auto real = fs::canonical(path, ec);
  return ec || real == path ? path.string() : fmt::format("{} -> {}", path.string(), real.string());
}

template <class T>
Fact<T> unknown_from(const util::Error& error, std::string source) {
  std::string reason = error.context.empty() ? error.message : error.context + ": " + error.message;
  return Fact<T>::unknown(std::move(reason), std::move(source));
}

Fact<ToolkitBuild> toolkit_fact(const std::map<std::string, PyValue>& values,
                                const std::string& name, const std::string& source) {
  auto it = values.find(name);
  if (it == values.end()) {
    return Fact<ToolkitBuild>::unknown(fmt::format("no `{} = ...` assignment", name), source);
  }
  switch (it->second.kind) {
    case PyValue::Kind::none:
      return Fact<ToolkitBuild>::of(ToolkitBuild::none_built(), source);
    case PyValue::Kind::string:
      if (!it->second.text.empty()) {
        return Fact<ToolkitBuild>::of(ToolkitBuild::of(it->second.text), source);
      }
      break;
    case PyValue::Kind::other:
      break;
  }
  return Fact<ToolkitBuild>::unknown(fmt::format("`{}` is {}, not a version string or None", name,
                                                 util::printable(it->second.text, 60)),
                                     source);
}

void probe_version_py(const fs::path& package, TorchFacts& facts) {
  const fs::path file = package / "version.py";
  const std::string source = file.string();
  auto fail_all = [&](const util::Error& error) {
    facts.version_text = unknown_from<std::string>(error, source);
    facts.version = unknown_from<pkg::Version>(error, source);
    facts.cuda = unknown_from<ToolkitBuild>(error, source);
    facts.hip = unknown_from<ToolkitBuild>(error, source);
  };
  if (!is_file(file)) {
    fail_all(util::Error{util::ErrorKind::input, "no version.py in the torch package", source, {}});
    return;
  }
  auto text = read_small_file(file);
  if (!text) return fail_all(text.error());
  auto values = parse_version_py(*text);
  if (!values) return fail_all(std::move(values.error()).with_context(source));

  auto it = values->find("__version__");
  if (it == values->end() || it->second.kind != PyValue::Kind::string) {
    const std::string reason = it == values->end()
                                   ? "no `__version__ = '...'` assignment"
                                   : fmt::format("`__version__` is {}, not a string",
                                                 util::printable(it->second.text, 60));
    facts.version_text = Fact<std::string>::unknown(reason, source);
    facts.version = Fact<pkg::Version>::unknown(reason, source);
  } else {
    facts.version_text = Fact<std::string>::of(it->second.text, source);
    auto parsed = pkg::Version::parse(it->second.text);
    facts.version =
        parsed ? Fact<pkg::Version>::of(*parsed, source)
               : Fact<pkg::Version>::unknown(
                     fmt::format("`__version__` {} is not a PEP 440 version: {}",
                                 util::printable(it->second.text, 60), parsed.error().message),
                     source);
  }
  facts.cuda = toolkit_fact(*values, "cuda", source);
  facts.hip = toolkit_fact(*values, "hip", source);
}

// The ABI from libc10's probe symbols; libtorch_cpu only when libc10 cannot
// tell (a build that renamed or dropped the probes still exports thousands
// of std::string signatures there).
void probe_abi(const fs::path& lib_dir, TorchFacts& facts) {
  std::vector<std::string> reasons;
  for (const char* name : {"libc10.so", "libtorch_cpu.so"}) {
    const fs::path file = lib_dir / name;
    if (!is_file(file)) {
      reasons.push_back(fmt::format("{}: missing", file.string()));
      continue;
    }
    auto elf = binary::read_elf(file);
    if (!elf) {
      reasons.push_back(fmt::format("{}: {}", file.string(), elf.error().message));
      continue;
    }
    const auto evidence = binary::torch_cxx_abi(*elf);
    if (evidence.abi == binary::CxxAbi::unknown) {
      reasons.push_back(fmt::format("{}: {}", file.string(), evidence.reason));
      continue;
    }
    facts.cxx11_abi = Fact<bool>::of(
        evidence.abi == binary::CxxAbi::cxx11,
        fmt::format("{} ({}: {})", resolved(file), evidence.reason, evidence.sample));
    return;
  }
  facts.cxx11_abi = Fact<bool>::unknown(util::join(reasons, "; "), lib_dir.string());
}

void probe_pybind11(const fs::path& lib_dir, TorchFacts& facts) {
  const fs::path file = lib_dir / "libtorch_python.so";
  if (!is_file(file)) {
    facts.pybind11_internals_id =
        Fact<std::string>::unknown("no libtorch_python.so in torch/lib", file.string());
    return;
  }
  auto ids = binary::find_strings_with_prefix(file, "__pybind11_internals_v", 4);
  if (!ids) {
    facts.pybind11_internals_id = unknown_from<std::string>(ids.error(), file.string());
  } else if (ids->empty()) {
    facts.pybind11_internals_id = Fact<std::string>::unknown(
        "no __pybind11_internals_v* string in its read-only data", resolved(file));
  } else {
    facts.pybind11_internals_id = Fact<std::string>::of(ids->front(), resolved(file));
  }
}

// torch-<version>.dist-info/METADATA beside the package (pip), else Debian's
// torch-<version>.egg-info/requires.txt. With several stale dist-info
// directories, the one named after version.py's __version__ wins.
void probe_metadata(const fs::path& site, TorchFacts& facts) {
  std::vector<fs::path> dist_infos;
  std::vector<fs::path> egg_infos;
  std::error_code ec;
  for (fs::directory_iterator it(site, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!util::starts_with(name, "torch-")) continue;
    if (util::ends_with(name, ".dist-info")) dist_infos.push_back(it->path());
    if (util::ends_with(name, ".egg-info")) egg_infos.push_back(it->path());
  }
  std::sort(dist_infos.begin(), dist_infos.end());
  std::sort(egg_infos.begin(), egg_infos.end());
  auto pick = [&](const std::vector<fs::path>& dirs) -> std::optional<fs::path> {
    if (dirs.empty()) return std::nullopt;
    if (facts.version_text.known()) {
      for (const auto& dir : dirs) {
        if (dir.filename().string() == "torch-" + *facts.version_text + ".dist-info") return dir;
      }
    }
    return dirs.front();
  };
  if (auto dir = pick(dist_infos)) {
    const fs::path file = *dir / "METADATA";
    auto text = read_small_file(file);
    if (!text) {
      facts.cuda_runtime_packages =
          unknown_from<std::vector<CudaRuntimePackage>>(text.error(), file.string());
    } else {
      facts.cuda_runtime_packages = Fact<std::vector<CudaRuntimePackage>>::of(
          cuda_runtime_packages_from_metadata(*text), file.string());
    }
    return;
  }
  if (auto dir = pick(egg_infos)) {
    const fs::path file = *dir / "requires.txt";
    // No requires.txt is an egg without requirements (Debian's torch).
    auto text = is_file(file) ? read_small_file(file) : util::Result<std::string>(std::string());
    if (text) {
      facts.cuda_runtime_packages = Fact<std::vector<CudaRuntimePackage>>::of(
          cuda_runtime_packages_from_requires_txt(*text), file.string());
    } else {
      facts.cuda_runtime_packages =
          unknown_from<std::vector<CudaRuntimePackage>>(text.error(), file.string());
    }
    return;
  }
  facts.cuda_runtime_packages = Fact<std::vector<CudaRuntimePackage>>::unknown(
      "no torch-*.dist-info or torch-*.egg-info beside the package", site.string());
}

}  // namespace

TorchFacts probe_torch(const std::vector<fs::path>& site_dirs) {
  TorchFacts facts;
  std::optional<fs::path> site;
  for (const auto& dir : site_dirs) {
    const fs::path package = dir / "torch";
    if (is_file(package / "__init__.py") || is_file(package / "version.py")) {
      site = dir;
      break;
    }
  }
  if (!site) {
    std::vector<std::string> names;
    names.reserve(site_dirs.size());
    for (const auto& dir : site_dirs) names.push_back(dir.string());
    const std::string reason =
        fmt::format("torch is not installed in {}",
                    names.empty() ? "(no site directories)" : util::join(names, ", "));
    facts.package_dir = Fact<fs::path>::unknown(reason);
    facts.version_text = Fact<std::string>::unknown(reason);
    facts.version = Fact<pkg::Version>::unknown(reason);
    facts.cuda = Fact<ToolkitBuild>::unknown(reason);
    facts.hip = Fact<ToolkitBuild>::unknown(reason);
    facts.library_dir = Fact<fs::path>::unknown(reason);
    facts.cxx11_abi = Fact<bool>::unknown(reason);
    facts.pybind11_internals_id = Fact<std::string>::unknown(reason);
    facts.cuda_runtime_packages = Fact<std::vector<CudaRuntimePackage>>::unknown(reason);
    return facts;
  }
  const fs::path package = *site / "torch";
  facts.package_dir = Fact<fs::path>::of(package, site->string());
  probe_version_py(package, facts);

  const fs::path lib_dir = package / "lib";
  if (is_dir(lib_dir)) {
    facts.library_dir = Fact<fs::path>::of(lib_dir, package.string());
    probe_abi(lib_dir, facts);
    probe_pybind11(lib_dir, facts);
  } else {
    const std::string reason = "the torch package has no lib directory";
    facts.library_dir = Fact<fs::path>::unknown(reason, lib_dir.string());
    facts.cxx11_abi = Fact<bool>::unknown(reason, lib_dir.string());
    facts.pybind11_internals_id = Fact<std::string>::unknown(reason, lib_dir.string());
  }
  probe_metadata(*site, facts);
  return facts;
}

bool has_sdpa(const pkg::Version& torch) {
  const auto& release = torch.release();
  return !release.empty() && release.front() != "0" && release.front() != "1";
}

}  // namespace flashfit::env
