#include "env/interpreter.hpp"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "env/asdf_shim.hpp"
#include "env/interpreter_cache.hpp"
#include "env/interpreter_script.hpp"
#include "env/pyenv_shim.hpp"
#include "util/files.hpp"
#include "util/process.hpp"
#include "util/strings.hpp"

namespace flashfit::env {
namespace {

using nlohmann::json;
using util::ErrorKind;

constexpr auto kQueryTimeout = std::chrono::seconds(30);

// The query runs with "/" as its working directory, so a relative path
// ("./python", a relative $VIRTUAL_ENV or PATH entry) must be made absolute
// first. Only "." parts are dropped: unlike "..", they never change the meaning.
std::string absolute_program(const std::string& program) {
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(program, ec);
  if (ec) return program;
  std::filesystem::path out;
  for (const auto& part : absolute) {
    if (part != ".") out /= part;
  }
  return out.string();
}

util::Result<InterpreterChoice> named_program(const std::string& program, std::string found_by,
                                              const std::optional<std::string>& path_env) {
  if (program.find('/') != std::string::npos) {
    if (!util::is_executable_file(program)) {
      return util::input_error("no executable interpreter at '" + util::printable(program) + "'",
                               found_by, "pass --python with the path of a Python 3 interpreter");
    }
    return InterpreterChoice{absolute_program(program), std::move(found_by)};
  }
  // No PATH at all means execvp's default, not the current directory.
  if (auto found = util::find_on_path(program, path_env.value_or("/bin:/usr/bin"))) {
    return InterpreterChoice{absolute_program(found->string()), std::move(found_by)};
  }
  return util::input_error("'" + util::printable(program) + "' is not on PATH", found_by,
                           "pass --python with the path of a Python 3 interpreter");
}

// Typed reads from the script's answer; a wrong type reads as absent, and
// required facts are checked by the caller, so hostile JSON cannot throw.
std::optional<std::string> str_at(const json& obj, const char* key) {
  if (!obj.is_object()) return std::nullopt;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::optional<bool> bool_at(const json& obj, const char* key) {
  if (!obj.is_object()) return std::nullopt;
  auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  if (it->is_boolean()) return it->get<bool>();
  if (it->is_number_integer()) return it->get<long long>() != 0;
  return std::nullopt;
}

std::optional<long long> int_at(const json& obj, const char* key) {
  if (!obj.is_object()) return std::nullopt;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<long long>();
}

const json& object_at(const json& obj, const char* key) {
  static const json empty_object = json::object();
  if (!obj.is_object()) return empty_object;
  auto it = obj.find(key);
  return it != obj.end() && it->is_object() ? *it : empty_object;
}

// config vars are None, ints or strings; Python truthiness of a string is "non-empty".
std::optional<bool> truthy_config_var(const json& vars, const char* key) {
  if (!vars.is_object()) return std::nullopt;
  auto it = vars.find(key);
  if (it == vars.end() || it->is_null()) return std::nullopt;
  if (it->is_number_integer()) return it->get<long long>() != 0;
  if (it->is_string()) return !it->get<std::string>().empty();
  if (it->is_boolean()) return it->get<bool>();
  return std::nullopt;
}

std::optional<std::string> config_var_text(const json& vars, const char* key) {
  if (!vars.is_object()) return std::nullopt;
  auto it = vars.find(key);
  if (it == vars.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<long long>());
  return std::nullopt;
}

// "2.36" -> {2, 36}; packaging reads the leading "major.minor" digits. The
// tag list holds every libc version below this one (51 per older major), so
// an implausible answer ("9999.0": 127 million tags) reads as absent.
std::optional<pkg::LibcVersion> libc_version(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  const auto parts = util::split(*text, '.');
  if (parts.size() < 2) return std::nullopt;
  auto leading_int = [](std::string_view s) -> std::optional<int> {
    int value = 0;
    std::size_t digits = 0;
    while (digits < s.size() && digits < 6 && s[digits] >= '0' && s[digits] <= '9') {
      value = value * 10 + (s[digits] - '0');
      ++digits;
    }
    return digits == 0 ? std::nullopt : std::optional<int>(value);
  };
  auto major = leading_int(parts[0]);
  auto minor = leading_int(parts[1]);
  if (!major || !minor || parts[0].size() != std::to_string(*major).size()) return std::nullopt;
  if (*major > 99 || *minor > 999) return std::nullopt;
  return pkg::LibcVersion{*major, *minor};
}

void read_markers(const json& obj, pkg::MarkerEnvironment& markers) {
  for (auto name : pkg::MarkerEnvironment::variable_names()) {
    if (name == "extra") continue;
    if (auto* slot = markers.find(name)) *slot = str_at(obj, std::string(name).c_str());
  }
}

}  // namespace

std::string Interpreter::version_str() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(micro);
}

util::Result<InterpreterChoice> choose_interpreter(const std::optional<std::string>& python_option,
                                                   const std::optional<std::string>& virtual_env,
                                                   const std::optional<std::string>& path_env) {
  if (python_option) {
    if (python_option->empty()) {
      return util::fail(ErrorKind::usage, "--python needs a path or a program name");
    }
    return named_program(*python_option, "--python", path_env);
  }
  if (virtual_env && !virtual_env->empty()) {
    const std::string candidate = *virtual_env + "/bin/python";
    if (!util::is_executable_file(candidate)) {
      return util::input_error(
          "$VIRTUAL_ENV is '" + util::printable(*virtual_env) + "' but it has no bin/python",
          "$VIRTUAL_ENV", "deactivate the stale environment, or pass --python");
    }
    return InterpreterChoice{absolute_program(candidate), "$VIRTUAL_ENV"};
  }
  return named_program("python3", "PATH", path_env);
}

util::Result<Interpreter> parse_interpreter_facts(std::string_view text,
                                                  const InterpreterChoice& choice) {
  const std::string where = "interpreter " + util::printable(choice.program);
  json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return util::fail(ErrorKind::failed,
                      "its answer is not a JSON object: '" + util::printable(text, 80) + "'", where,
                      "check that it is a working Python 3 interpreter");
  }
  Interpreter py;
  py.choice = choice;
  const auto& info = doc.find("version_info");
  if (info == doc.end() || !info->is_array() || info->size() < 4 ||
      !(*info)[0].is_number_integer() || !(*info)[1].is_number_integer() ||
      !(*info)[2].is_number_integer()) {
    return util::fail(ErrorKind::failed, "its answer has no usable version_info", where);
  }
  // Range-checked before narrowing to int: 4294967299 must not read as 3.
  const long long major = (*info)[0].get<long long>();
  const long long minor = (*info)[1].get<long long>();
  const long long micro = (*info)[2].get<long long>();
  if (major != 3 || minor < 0 || minor > 1000 || micro < 0 || micro > 1000000) {
    return util::fail(ErrorKind::failed,
                      "Python " + (*info)[0].dump() + "." + (*info)[1].dump() + "." +
                          (*info)[2].dump() + " is not supported",
                      where, "flashfit works with Python 3 interpreters");
  }
  py.major = static_cast<int>(major);
  py.minor = static_cast<int>(minor);
  py.micro = static_cast<int>(micro);
  if ((*info)[3].is_string()) py.release_level = (*info)[3].get<std::string>();
  auto implementation = str_at(doc, "implementation");
  auto platform = str_at(doc, "sysconfig_platform");
  if (!implementation || !platform) {
    return util::fail(ErrorKind::failed, "its answer lacks the implementation or platform", where);
  }
  py.implementation = *implementation;
  py.executable = str_at(doc, "executable").value_or(choice.program);
  py.realpath = str_at(doc, "realpath").value_or(py.executable);
  py.abiflags = str_at(doc, "abiflags").value_or("");
  py.prefix = str_at(doc, "prefix").value_or("");
  py.base_prefix = str_at(doc, "base_prefix").value_or(py.prefix);
  py.in_venv = py.prefix != py.base_prefix;
  const json& paths = object_at(doc, "paths");
  py.purelib = str_at(paths, "purelib").value_or("");
  py.platlib = str_at(paths, "platlib").value_or("");
  py.include_dir = str_at(paths, "include").value_or("");
  py.scripts_dir = str_at(paths, "scripts").value_or("");
  if (auto it = doc.find("site_dirs"); it != doc.end() && it->is_array()) {
    for (const auto& dir : *it) {
      if (dir.is_string()) py.site_dirs.push_back(dir.get<std::string>());
    }
  }
  const json& user_site = object_at(doc, "user_site");
  if (bool_at(user_site, "enabled").value_or(false)) {
    if (auto path = str_at(user_site, "path"); path && !path->empty()) {
      std::error_code ec;
      place_user_site(py.site_dirs, *path, std::filesystem::is_directory(*path, ec),
                      {py.purelib, py.platlib});
    }
  }
  for (const auto& dir : py.site_dirs) {
    std::error_code ec;
    if (std::filesystem::exists(std::filesystem::path(dir) / "pip" / "__init__.py", ec)) {
      py.has_pip = true;
    }
  }

  const json& vars = object_at(doc, "config_vars");
  py.soabi = config_var_text(vars, "SOABI");
  py.ext_suffix = config_var_text(vars, "EXT_SUFFIX");

  auto& facts = py.tag_facts;
  facts.implementation = py.implementation;
  facts.python_major = py.major;
  facts.python_minor = py.minor;
  facts.py_version_nodot = config_var_text(vars, "py_version_nodot");
  facts.py_debug = truthy_config_var(vars, "Py_DEBUG");
  facts.has_gettotalrefcount = bool_at(doc, "has_gettotalrefcount").value_or(false);
  if (auto it = doc.find("extension_suffixes"); it != doc.end() && it->is_array()) {
    for (const auto& suffix : *it) {
      if (suffix.is_string() && suffix.get<std::string>() == "_d.pyd")
        facts.has_d_pyd_suffix = true;
    }
  }
  facts.with_pymalloc = truthy_config_var(vars, "WITH_PYMALLOC");
  if (auto it = vars.find("Py_UNICODE_SIZE"); it != vars.end() && it->is_number_integer()) {
    facts.py_unicode_size = static_cast<int>(it->get<long long>());
  }
  facts.max_unicode_is_ucs4 = int_at(doc, "maxunicode").value_or(0x10FFFF) == 0x10FFFF;
  facts.gil_disabled = truthy_config_var(vars, "Py_GIL_DISABLED").value_or(false);
  facts.soabi = py.soabi;
  read_markers(object_at(doc, "markers"), py.markers);
  facts.system = py.markers.platform_system.value_or("");
  facts.platform = *platform;
  facts.is_32bit = bool_at(doc, "is_32bit").value_or(false);
  facts.glibc = libc_version(str_at(doc, "glibc"));
  facts.musl = libc_version(str_at(doc, "musl"));
  const json& elf = object_at(doc, "elf");
  facts.executable_is_armhf = bool_at(elf, "armhf").value_or(false);
  facts.executable_is_i686 = bool_at(elf, "i686").value_or(false);
  if (auto it = doc.find("manylinux_vetoed"); it != doc.end() && it->is_array()) {
    // Range-checked so that [2, 4294967312] cannot narrow to [2, 16].
    const auto small = [](const json& v) {
      return v.is_number_integer() && v.get<long long>() >= 0 && v.get<long long>() <= 100000;
    };
    for (const auto& pair : *it) {
      if (pair.is_array() && pair.size() == 2 && small(pair[0]) && small(pair[1])) {
        facts.manylinux_vetoed.push_back(
            pkg::LibcVersion{static_cast<int>(pair[0].get<long long>()),
                             static_cast<int>(pair[1].get<long long>())});
      }
    }
  }
  return py;
}

void place_user_site(std::vector<std::string>& site_dirs, const std::string& user_site,
                     bool exists_now, const std::vector<std::string>& own_site_dirs) {
  const auto at = std::find(site_dirs.begin(), site_dirs.end(), user_site);
  if (!exists_now) {
    if (at != site_dirs.end()) site_dirs.erase(at);
    return;
  }
  if (at != site_dirs.end()) return;
  // site.py adds it before the interpreter's own site-packages.
  const auto own = std::find_if(site_dirs.begin(), site_dirs.end(), [&](const std::string& dir) {
    return std::find(own_site_dirs.begin(), own_site_dirs.end(), dir) != own_site_dirs.end();
  });
  site_dirs.insert(own, user_site);
}

bool runs_itself(const Interpreter& answer, const InterpreterStamp& stamp) {
  std::error_code ec;
  const auto real = std::filesystem::canonical(answer.realpath, ec);
  return !ec && real.string() == stamp.resolved;
}

util::Result<Interpreter> query_interpreter(const InterpreterChoice& choice,
                                            const InterpreterCache* cache) {
  // A pyenv or asdf shim is followed to the interpreter it would exec: that
  // one is stamped, cached and run (the shim's own start costs 50-150 ms each
  // call). Where its rules are not certain, the shim itself is run.
  // Both keep their shims in a directory named `shims`: only then are their
  // variables and files read (this runs on every command).
  std::optional<std::filesystem::path> through_shim;
  if (std::filesystem::path(choice.program).lexically_normal().parent_path().filename() ==
      "shims") {
    through_shim = resolve_pyenv_shim(choice.program, pyenv_inputs_from_environment());
    if (!through_shim)
      through_shim = resolve_asdf_shim(choice.program, asdf_inputs_from_environment());
  }
  const std::string program = through_shim ? through_shim->string() : choice.program;
  // (Stamped: an ELF file, the only kind whose answer can be cached.)
  const auto stamp = stamp_interpreter(program);
  if (cache && stamp) {
    if (auto answer = cache->load(*stamp)) {
      auto cached = parse_interpreter_facts(*answer, choice);
      if (cached) {
        cached->from_cache = true;
        return cached;
      }
    }
  }
  util::ProcessSpec spec;
  spec.argv = {program, "-c", interpreter_script};
  spec.timeout = kQueryTimeout;
  spec.max_output = 4 << 20;
  // Python itself is asked from "/": a project's json.py or sitecustomize.py
  // must not stand in for the standard library (the script drops `-c`'s own
  // sys.path entry, but an empty PYTHONPATH entry adds the working directory
  // before site runs, and the answer is cached for every directory). A
  // launcher not followed above is asked in the caller's working directory,
  // as when they run it themselves: it picks its interpreter by it. A script
  // is a launcher; an ELF file is one when its answer names another file
  // (mise's and rye's shims are ELF files) or it fails outside a project.
  // From "/", relative PYTHONPATH entries are made absolute, as the caller's
  // Python reads them. Only an answer from "/" is cached (the key holds no
  // working directory).
  bool asked_here = false;
  if (stamp) {
    spec.cwd = "/";
    if (auto pythonpath = absolute_pythonpath())
      spec.set_env.emplace_back("PYTHONPATH", std::move(*pythonpath));
  }
  auto run = util::run_process(spec);
  if (stamp && run && !run->timed_out && run->out.size() < spec.max_output) {
    auto from_root = run->succeeded() ? parse_interpreter_facts(run->out, choice)
                                      : util::Result<Interpreter>(tl::unexpected(util::Error{}));
    if (!from_root || !runs_itself(*from_root, *stamp)) {
      spec.cwd.reset();
      spec.set_env.clear();
      run = util::run_process(spec);
      asked_here = true;
    }
  }
  const std::string where = "interpreter " + util::printable(choice.program);
  if (!run) return tl::unexpected(std::move(run).error().with_context(where));
  if (run->succeeded() && run->out.size() >= spec.max_output) {
    return util::fail(ErrorKind::failed,
                      "its answer is larger than " + std::to_string(spec.max_output >> 20) +
                          " MiB, far more than the facts flashfit asks for",
                      where, "check that it is a working Python 3 interpreter");
  }
  if (!run->succeeded()) {
    std::string detail = std::string(util::trim(run->err));
    if (detail.size() > 600) detail = "..." + detail.substr(detail.size() - 600);
    // Its stderr is quoted to the terminal: escape control bytes (a hostile or
    // broken interpreter must not garble it), keeping the traceback's lines.
    std::string shown;
    for (auto line : util::split(detail, '\n')) {
      if (!shown.empty()) shown += '\n';
      shown += util::printable(line, 600);
    }
    detail = std::move(shown);
    const bool python2 = run->err.find("SyntaxError") != std::string::npos;
    return util::fail(
        ErrorKind::failed,
        "asking it for its facts failed: " + run->describe() +
            (detail.empty() ? "" : "\n" + detail),
        where,
        python2
            ? "flashfit needs a Python 3.6+ interpreter"
            : "check that the interpreter starts: " + util::printable(choice.program) + " -c pass");
  }
  auto parsed = parse_interpreter_facts(run->out, choice);
  if (parsed && cache && stamp && !asked_here && runs_itself(*parsed, *stamp))
    cache->store(*stamp, run->out);
  return parsed;
}

}  // namespace flashfit::env
