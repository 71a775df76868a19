#include "install/import_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "util/process.hpp"
#include "util/strings.hpp"

namespace flashfit::install {
namespace {

// One line per result, tab-separated, newlines folded: easy to parse from C++.
// argv[1]: "torch" to import torch first; argv[2]: "fresh" or "preloaded"
// (then argv[3]: when flashfit started it, ns since the epoch). The request
// comes on stdin, one line, tab-separated: "flash-attn" or "-" (the GPU smoke
// test), then the modules. A preloaded interpreter, started before the
// installer ran, proves before importing anything that nothing it had loaded
// changed meanwhile, else it says "stale" and why:
// - every loaded module and mapped file (torch's libraries) has the device,
//   inode, size, mtime and ctime it had once torch was imported, and a ctime
//   older than the interpreter (a file replaced while it was being imported
//   has a newer one), and no mapped library was replaced before the first
//   snapshot (maps then names it "PATH (deleted)" while PATH is a new file);
// - every loaded module still resolves to the same file (nothing new shadows
//   one, in a site dir earlier on sys.path);
// - the site dirs exist or not as at startup, and their .pth files (run only
//   at startup) are the same and older than the interpreter.
constexpr const char* kScript = R"PY(
import importlib, os, sys, time
def say(kind, name, status):
    print(kind + "\t" + name + "\t" + " ".join(str(status).split()), flush=True)
preloaded = sys.argv[2] == "preloaded"
# A file changed after flashfit started this interpreter has a ctime at least
# this late (the kernel stamps files from a clock a tick behind).
since = int(sys.argv[3]) - 20000000 if preloaded else 0
def identity(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
def site_state():
    import site
    dirs = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    state = {}
    for d in dirs:
        try:
            names = os.listdir(d)
        except OSError:
            state[d] = "absent"
            continue
        state[d] = "present"
        for n in names:
            if n.endswith(".pth"):
                state[os.path.join(d, n)] = identity(os.path.join(d, n))
    return state
sites = site_state() if preloaded else None
torch_said = ("torch", "", "ok")
if sys.argv[1] == "torch":
    try:
        import torch
        torch_said = ("torch", torch.__version__, "ok")
    except BaseException as e:
        torch_said = ("torch", "", "%s: %s" % (type(e).__name__, e))
def loaded():
    paths = set()
    for m in list(sys.modules.values()):
        f = getattr(m, "__file__", None)
        if isinstance(f, str):
            paths.add(f)
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                fields = line.split(None, 5)
                if len(fields) == 6 and fields[5].startswith("/"):
                    paths.add(fields[5].rstrip("\n"))
    except OSError:
        pass
    return {p: identity(p) for p in paths}
def shadowed():
    importlib.invalidate_caches()
    for name, m in list(sys.modules.items()):
        spec = getattr(m, "__spec__", None)
        if spec is None or not spec.has_location or not spec.origin:
            continue
        parent, _, _ = name.rpartition(".")
        path = None
        if parent:
            path = getattr(sys.modules.get(parent), "__path__", None)
            if path is None:
                continue
        found = None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            found = find(name, path) if find else None
            if found is not None:
                break
        origin = found.origin if found is not None else None
        if origin != spec.origin:
            return "%s now resolves to %s, not %s" % (name, origin, spec.origin)
    return None
def changed(before, after):
    for p in sorted(set(before) | set(after)):
        if p.endswith(" (deleted)") and not p.startswith("/memfd:") and os.path.exists(p[:-10]):
            return "%s was replaced after the interpreter loaded it" % p[:-10]
        was, now = before.get(p), after.get(p)
        if p not in before:
            return "%s appeared" % p
        if was != now:
            return "%s %s" % (p, "is gone" if now is None or now == "absent" else "changed")
        if isinstance(now, tuple) and now[4] >= since:
            return "%s changed after the check's interpreter started" % p
    return None
def stale():
    return changed(sites, site_state()) or changed(before, loaded()) or shadowed()
before = loaded() if preloaded else None
request = sys.stdin.readline().rstrip("\n").split("\t")
if not request[0]:
    sys.exit(0)
if preloaded:
    why = stale()
    if why:
        say("stale", "-", why)
        sys.exit(0)
importlib.invalidate_caches()
say(*torch_said)
for m in request[1:]:
    try:
        importlib.import_module(m)
        say("module", m, "ok")
    except BaseException as e:
        say("module", m, "%s: %s" % (type(e).__name__, e))
if request[0] == "flash-attn":
    try:
        import torch, flash_attn
        q, k, v = (torch.randn(1, 16, 2, 64, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        out = flash_attn.flash_attn_func(q, k, v)
        ref = torch.nn.functional.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)).transpose(1, 2)
        err = (out.float() - ref.float()).abs().max().item()
        say("gpu", "flash_attn_func", "ok" if err < 2e-2 else "max abs difference %g from scaled_dot_product_attention" % err)
    except BaseException as e:
        say("gpu", "flash_attn_func", "%s: %s" % (type(e).__name__, e))
# Every result is out: the teardown of an interpreter holding torch (0.15 s)
# proves nothing about the imports.
sys.stdout.flush()
os._exit(0)
)PY";

}  // namespace

bool ImportCheck::ok() const {
  return torch_ok && !gpu_test_failed &&
         std::all_of(modules.begin(), modules.end(), [](const ModuleResult& m) { return m.ok; });
}

std::string ImportCheck::first_failure() const {
  if (!torch_ok) return "import torch: " + torch_error;
  for (const ModuleResult& m : modules) {
    if (!m.ok) return "import " + m.module + ": " + m.error;
  }
  if (gpu_test_failed) return "GPU smoke test: " + gpu_test;
  return "";
}

util::ProcessSpec check_process(const std::string& python, bool import_torch, bool preloaded) {
  util::ProcessSpec spec;
  spec.argv = {python, "-c", kScript, import_torch ? "torch" : "-",
               preloaded ? "preloaded" : "fresh"};
  if (preloaded) {
    // Taken before the spawn: files changed after it have a later ctime.
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    spec.argv.push_back(
        std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count()));
  }
  spec.cwd = "/";
  spec.unset_env = {"PYTHONPATH", "PYTHONSTARTUP"};
  return spec;
}

std::string check_request(const ImportCheckOptions& options) {
  const bool smoke =
      options.gpu_present && std::find(options.modules.begin(), options.modules.end(),
                                       "flash_attn_2_cuda") != options.modules.end();
  std::string line = smoke ? "flash-attn" : "-";
  for (const std::string& m : options.modules) line += "\t" + m;
  return line + "\n";
}

CheckAnswer read_check_output(const util::ProcessResult& run, const ImportCheckOptions& options) {
  const bool smoke = util::starts_with(check_request(options), "flash-attn");
  CheckAnswer answer;
  ImportCheck& check = answer.check;
  check.gpu_test = !options.gpu_present ? "skipped: no GPU here"
                   : smoke              ? "did not run"
                                        : "skipped: no GPU smoke test for this package";
  bool torch_said = false;
  for (std::string_view line : util::split(run.out, '\n')) {
    auto fields = util::split(line, '\t');
    if (fields.size() != 3) continue;
    const std::string status(fields[2]);
    if (fields[0] == "stale") {
      answer.stale = status;
    } else if (fields[0] == "torch") {
      torch_said = true;
      check.torch_ok = status == "ok";
      check.torch_version = std::string(fields[1]);
      if (!check.torch_ok) check.torch_error = status;
    } else if (fields[0] == "module") {
      check.modules.push_back(
          {std::string(fields[1]), status == "ok", status == "ok" ? "" : status});
    } else if (fields[0] == "gpu") {
      check.gpu_test = status == "ok" ? "passed" : status;
      check.gpu_test_failed = status != "ok";
    }
  }
  if (answer.stale) return answer;  // it imported nothing
  answer.timed_out = run.timed_out;
  answer.torch_said = torch_said;
  answer.complete = run.succeeded() && torch_said && check.modules.size() == options.modules.size();
  // A crash (segfault in a module's init) or a timeout leaves results missing.
  if (!answer.complete) {
    std::string why = fmt::format("the import check {} ({})", run.describe(),
                                  util::printable(std::string(util::trim(run.err)), 300));
    if (!check.torch_ok && check.torch_error.empty()) check.torch_error = why;
    for (const std::string& m : options.modules) {
      bool seen = std::any_of(check.modules.begin(), check.modules.end(),
                              [&](const ModuleResult& r) { return r.module == m; });
      if (!seen) check.modules.push_back({m, false, why});
    }
  }
  return answer;
}

util::Result<ImportCheck> check_imports(const ImportCheckOptions& options) {
  util::ProcessSpec spec = check_process(options.python, options.import_torch, false);
  spec.stdin_data = check_request(options);
  spec.timeout = options.timeout;
  auto run = util::run_process(spec);
  if (!run) return tl::unexpected(run.error());
  return read_check_output(*run, options).check;
}

namespace {

bool is_identifier(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  });
}

// What importlib can import at the top of site-packages, from the paths a
// wheel installs there (RECORD's, the same as its members): "pkg/x.py" ->
// "pkg" (a package, or a PEP 420 namespace), "mod.py" / "mod.cpython-311-x86_64-linux-gnu.so"
// -> "mod"; <name>.data/purelib|platlib/ are installed there too; scripts,
// headers, data and the dist-info are not importable.
std::vector<std::string> top_level_from_paths(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (std::string_view path : paths) {
    auto slash = path.find('/');
    std::string_view first = path.substr(0, slash);
    if (util::ends_with(first, ".data") && slash != std::string_view::npos) {
      std::string_view rest = path.substr(slash + 1);
      if (!util::starts_with(rest, "purelib/") && !util::starts_with(rest, "platlib/")) continue;
      path = rest.substr(rest.find('/') + 1);
      slash = path.find('/');
      first = path.substr(0, slash);
    }
    std::string name;
    if (slash != std::string_view::npos) {
      name = std::string(first);  // a package directory
    } else if (util::ends_with(first, ".py")) {
      name = std::string(first.substr(0, first.size() - 3));
    } else if (util::ends_with(first, ".so")) {
      name = std::string(first.substr(0, first.find('.')));
    }
    if (is_identifier(name) && std::find(out.begin(), out.end(), name) == out.end())
      out.push_back(name);
  }
  return out;
}

}  // namespace

std::vector<std::string> module_names(const std::vector<std::string>& members,
                                      const std::vector<std::string>& top_level) {
  std::vector<std::string> out;
  for (const std::string& member : members) {
    if (!util::ends_with(member, ".so")) continue;
    std::string path = member.substr(0, member.size() - 3);
    auto slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    base = base.substr(0, base.find('.'));  // drop ".cpython-311-x86_64-linux-gnu" / ".abi3"
    if (dir.find(".data/") != std::string::npos || dir.find(".dist-info/") != std::string::npos)
      continue;
    std::string name = dir + base;
    std::replace(name.begin(), name.end(), '/', '.');
    if (!name.empty() && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  std::vector<std::string> listed;
  for (const std::string& t : top_level) {
    if (!util::trim(t).empty()) listed.emplace_back(util::trim(t));
  }
  // top_level.txt is setuptools' own file: wheels from other backends (flit,
  // hatchling, maturin) have none, and their packages must still be imported.
  if (listed.empty()) listed = top_level_from_paths(members);
  for (const std::string& name : listed) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

}  // namespace flashfit::install
