// Reading the targets of `flashfit inspect` and running the checks over them.

#include "binary/inspect.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <system_error>

#include "binary/wheel_zip.hpp"
#include "pkg/name.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"

namespace flashfit::binary {

namespace {

std::string base_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// The version definitions of the libraries the module needs versions from,
// read from where the loader would find them.
std::vector<DefinedVersions> defined_versions(const ModuleReport& module) {
  std::vector<DefinedVersions> out;
  for (const VersionNeed& need : module.elf.version_needs) {
    auto it = std::find_if(module.resolved.begin(), module.resolved.end(),
                           [&](const NeededLibrary& lib) { return lib.name == need.file; });
    if (it == module.resolved.end() || !it->path) continue;
    auto elf = read_elf(*it->path);
    if (!elf) continue;  // unreadable: needed-libraries shows the path; nothing to compare
    out.push_back({need.file, std::move(elf->version_definitions)});
  }
  return out;
}

// One file of an installed *.dist-info directory, bounded in size.
util::Result<std::string> read_dist_info_file(const std::filesystem::path& dist_info,
                                              const char* name, std::size_t max_mb) {
  auto text = util::read_small_file(dist_info / name, max_mb << 20);
  if (!text) {
    return util::input_error(
        fmt::format("cannot read {} (missing, unreadable or over {} MB)", name, max_mb),
        dist_info.string());
  }
  return std::move(*text);
}

// Removes the temporary files a wheel inspection extracted.
struct TempFiles {
  std::vector<std::filesystem::path> paths;
  ~TempFiles() {
    for (const auto& p : paths) ::unlink(p.c_str());
  }
};

}  // namespace

util::Result<ModuleReport> inspect_module(const std::filesystem::path& file, std::string member,
                                          const std::filesystem::path& origin_dir,
                                          const LoadHost& host,
                                          const std::vector<std::string>& bundled) {
  auto elf = read_elf(file);
  if (!elf) {
    util::Error error = std::move(elf.error());
    error.context = member;
    return tl::unexpected(std::move(error));
  }
  auto fatbins = read_fatbins(file);
  if (!fatbins) {
    util::Error error = std::move(fatbins.error());
    error.context = member;
    return tl::unexpected(std::move(error));
  }
  ModuleReport module;
  module.member = std::move(member);
  module.file = file;
  module.elf = std::move(*elf);
  module.abi = classify_cxx_abi(module.elf.undefined_symbols);
  if (module.abi.abi == CxxAbi::unknown && module.abi.new_count + module.abi.old_count == 0) {
    module.abi = classify_cxx_abi(module.elf.defined_symbols);
  }
  module.fatbin = std::move(fatbins->entries);
  if (auto ids = find_strings_with_prefix(file, "__pybind11_internals_v", 4);
      ids && !ids->empty()) {
    module.pybind11_id = ids->front();
  }
  module.resolved = resolve_needed(module.elf, origin_dir, host.search);
  // A wheel's own libraries (auditwheel's <pkg>.libs/) are not installed yet;
  // the loader finds them once they are.
  for (NeededLibrary& lib : module.resolved) {
    if (lib.via != FoundVia::not_found || lib.path)
      continue;  // a path: ld.so stopped at a bad file
    auto it = std::find_if(bundled.begin(), bundled.end(),
                           [&](const std::string& m) { return base_name(m) == lib.name; });
    if (it == bundled.end()) continue;
    lib.via = FoundVia::bundled;
    lib.detail = fmt::format("shipped in the wheel as {}", *it);
  }

  module.checks.push_back(check_module_platform(module, host));
  module.checks.push_back(check_needed_libraries(module, host));
  module.checks.push_back(check_symbol_versions(module, defined_versions(module), host));
  module.checks.push_back(check_torch(module, host));
  module.checks.push_back(check_pybind11(module, host));
  module.checks.push_back(check_kernel_images(module, host));
  return module;
}

util::Result<InspectReport> inspect_wheel(const std::filesystem::path& path, const LoadHost& host,
                                          const InspectOptions& options) {
  auto wheel = open_wheel(path, options.limits);
  if (!wheel) return tl::unexpected(std::move(wheel.error()));
  return inspect_opened_wheel(*wheel, host, options);
}

util::Result<InspectReport> inspect_opened_wheel(const Wheel& wheel, const LoadHost& host,
                                                 const InspectOptions& options) {
  const std::filesystem::path& path = wheel.path();
  InspectReport report;
  report.kind = TargetKind::wheel;
  report.path = path;
  report.name = wheel.metadata().name;
  report.version = wheel.metadata().version;
  report.tags = wheel.filename().tags;

  std::vector<std::string> modules;
  for (const WheelMember* m : wheel.extension_modules()) modules.push_back(m->name);
  auto verified = wheel.verify_records_extracting(modules, options.temp_dir);
  if (!verified) return tl::unexpected(std::move(verified.error()));
  TempFiles temps;
  for (const auto& entry : verified->extracted) temps.paths.push_back(entry.second);

  report.checks.push_back(check_record(verified->problems));
  report.checks.push_back(check_wheel_contents(wheel, host.required_modules));
  report.checks.push_back(check_wheel_tags(
      wheel.wheel_fields().tags.empty() ? report.tags : wheel.wheel_fields().tags, host));

  std::vector<std::string> members;
  for (const WheelMember& m : wheel.members()) members.push_back(m.name);
  const std::filesystem::path install_dir = host.install_dir.value_or(options.temp_dir);
  for (const auto& [member, file] : verified->extracted) {
    const std::filesystem::path origin = (install_dir / member).parent_path();
    auto module = inspect_module(file, member, origin, host, members);
    if (!module) return tl::unexpected(std::move(module.error()));
    module->file = path / member;  // the temporary file is gone after this call
    report.modules.push_back(std::move(*module));
  }
  return report;
}

util::Result<InspectReport> inspect_library(const std::filesystem::path& library,
                                            const LoadHost& host) {
  InspectReport report;
  report.kind = TargetKind::library;
  report.path = library;
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(library, ec);
  auto module =
      inspect_module(library, library.string(), (ec ? library : absolute).parent_path(), host);
  if (!module) return tl::unexpected(std::move(module.error()));
  report.modules.push_back(std::move(*module));
  return report;
}

namespace {

namespace fs = std::filesystem;

// The shared objects an installed distribution put in its site directory
// (paths relative to it), and how they were found.
struct InstalledObjects {
  std::vector<std::string> paths;
  std::optional<Check> how;  // a note when no file list exists
};

// Regular *.so files under a top-level package (symlinks are other packages'
// libraries: Debian's torch/lib/*.so point into /usr/lib), and <name>.*.so beside it.
void scan_top_level(const fs::path& site, const std::string& top, std::vector<std::string>& out) {
  std::error_code ec;
  for (fs::directory_iterator it(site, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (util::starts_with(name, top + ".") && util::ends_with(name, ".so") &&
        it->is_regular_file(ec)) {
      out.push_back(name);
    }
  }
  std::vector<std::string> found;
  for (fs::recursive_directory_iterator it(site / top, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->is_symlink(ec) || !it->is_regular_file(ec)) continue;
    if (util::ends_with(it->path().filename().string(), ".so")) {
      found.push_back(it->path().lexically_relative(site).string());
    }
  }
  std::sort(found.begin(), found.end());
  out.insert(out.end(), found.begin(), found.end());
}

// An egg-info (setuptools / distutils, e.g. Debian's python3-torch): its
// installed-files.txt when there is one (paths relative to the egg-info),
// else the compiled modules under the top-level packages top_level.txt names
// (or the distribution's own name), said in a note: the list is derived.
util::Result<InstalledObjects> egg_info_objects(const fs::path& egg_info, const std::string& name) {
  InstalledObjects out;
  const fs::path site = egg_info.parent_path();
  std::error_code ec;
  const bool directory = fs::is_directory(egg_info, ec);
  if (directory && fs::exists(egg_info / "installed-files.txt", ec)) {
    auto text = read_dist_info_file(egg_info, "installed-files.txt", 64);
    if (!text) return tl::unexpected(std::move(text.error()));
    for (std::string_view line : util::split(*text, '\n')) {
      const std::string path((util::trim(line)));
      if (path.empty() || !util::ends_with(path, ".so")) continue;
      const fs::path relative = (egg_info / path).lexically_normal().lexically_relative(site);
      if (!relative.empty() && unsafe_member_name_reason(relative.string()).empty())
        out.paths.push_back(relative);
    }
    return out;
  }
  std::vector<std::string> tops;
  if (directory && fs::exists(egg_info / "top_level.txt", ec)) {
    auto text = read_dist_info_file(egg_info, "top_level.txt", 1);
    if (!text) return tl::unexpected(std::move(text.error()));
    for (std::string_view line : util::split(*text, '\n')) {
      const std::string top((util::trim(line)));
      if (!top.empty() && unsafe_member_name_reason(top).empty() &&
          top.find('/') == std::string::npos) {
        tops.push_back(top);
      }
    }
  }
  Check how;
  how.id = "files";
  how.status = CheckStatus::note;
  if (tops.empty()) {
    std::string guess = pkg::canonicalize_name(name);
    std::replace(guess.begin(), guess.end(), '-', '_');
    tops.push_back(guess);
    how.status = CheckStatus::warn;
    how.summary = fmt::format(
        "no list of installed files and no top_level.txt: only the package '{}' "
        "(the distribution's name) was searched for compiled modules",
        guess);
  } else {
    how.summary = fmt::format(
        "no list of installed files (an egg-info without installed-files.txt): the "
        "compiled modules under its top-level packages ({}) were checked",
        util::join(tops, ", "));
  }
  for (const std::string& top : tops) scan_top_level(site, top, out.paths);
  out.how = std::move(how);
  return out;
}

}  // namespace

util::Result<InspectReport> inspect_installed(const std::filesystem::path& dist_info,
                                              const LoadHost& host) {
  InspectReport report;
  report.kind = TargetKind::installed;
  report.path = dist_info;
  const bool egg_info = util::ends_with(dist_info.filename().string(), ".egg-info");
  std::error_code ec;
  // PKG-INFO inside an egg-info directory; an egg-info file is PKG-INFO itself.
  util::Result<std::string> metadata_text =
      !egg_info ? read_dist_info_file(dist_info, "METADATA", 16)
      : fs::is_directory(dist_info, ec)
          ? read_dist_info_file(dist_info, "PKG-INFO", 16)
          : read_dist_info_file(dist_info.parent_path(), dist_info.filename().c_str(), 16);
  if (!metadata_text) return tl::unexpected(std::move(metadata_text.error()));
  auto metadata = parse_metadata_headers(*metadata_text);
  if (!metadata) return tl::unexpected(std::move(metadata.error()));
  report.name = metadata->name;
  report.version = metadata->version;

  std::vector<std::string> objects;
  if (egg_info) {
    auto found = egg_info_objects(dist_info, report.name);
    if (!found) return tl::unexpected(std::move(found.error()));
    objects = std::move(found->paths);
    if (found->how) report.checks.push_back(std::move(*found->how));
  } else {
    auto record_text = read_dist_info_file(dist_info, "RECORD", 64);
    if (!record_text) return tl::unexpected(std::move(record_text.error()));
    auto record = parse_record(*record_text);
    if (!record) return tl::unexpected(std::move(record.error()));
    for (const RecordRow& row : *record) objects.push_back(row.path);
  }

  // RECORD paths are relative to the site directory, the dist-info's parent;
  // pip writes ../../bin/x for scripts, never for modules, so those are skipped.
  const std::filesystem::path site = dist_info.parent_path();
  for (const std::string& path : objects) {
    if (!util::ends_with(path, ".so") || !unsafe_member_name_reason(path).empty()) continue;
    const std::filesystem::path file = site / path;
    auto module = inspect_module(file, path, file.parent_path(), host);
    if (!module) return tl::unexpected(std::move(module.error()));
    report.modules.push_back(std::move(*module));
  }
  if (report.modules.empty()) {
    Check c;
    c.id = "wheel";
    c.status = CheckStatus::note;
    c.summary = "no compiled modules installed: a pure-Python distribution";
    for (const RequiredModule& required : host.required_modules) {
      if (pkg::canonicalize_name(report.name) != required.distribution) continue;
      c.status = CheckStatus::fail;
      c.summary = fmt::format("{} is installed without its compiled module {}",
                              required.distribution, required.module);
      c.fix = "reinstall a binary wheel for this environment (`flashfit install`), or build it";
    }
    report.checks.push_back(std::move(c));
  }
  return report;
}

}  // namespace flashfit::binary
