// flashfit tags: the wheel tags an interpreter accepts, most preferred first.

#include "pkg/tags.hpp"

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/what_if_flags.hpp"
#include "env/environment.hpp"
#include "util/interrupt.hpp"

namespace flashfit::cli {
namespace {

struct TagsOptions {
  EnvironmentFlags environment;
  bool json = false;
  bool sys_tags = false;
};

util::Result<int> run_tags(const TagsOptions& options) {
  auto probe = probe_options_from(options.environment);
  if (!probe) return tl::unexpected(probe.error());
  const auto environment = env::probe_interpreter_environment(*probe);
  if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
  if (auto usable = require_interpreter(environment, options.environment,
                                        WithoutInterpreter::what_if_python_version);
      !usable) {
    return tl::unexpected(usable.error());
  }
  const auto facts = environment.tag_facts();
  if (!facts)
    return util::fail(util::ErrorKind::internal,
                      "no tag facts although the interpreter check passed");
  const auto rules =
      options.sys_tags ? pkg::TagRules::packaging_21_3_sys_tags : pkg::TagRules::pip_packaging_21_3;
  const auto tags = pkg::supported_tags(*facts, rules);

  // Ctrl-C during the probe: report it, and print no result that might be partial.
  if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
  if (options.json) {
    nlohmann::json doc;
    const auto& python = environment.python;
    if (python.interpreter.known()) {
      const auto& i = *python.interpreter;
      doc["interpreter"] = {{"executable", i.executable},
                            {"found_by", i.choice.found_by},
                            {"implementation", i.implementation},
                            {"version", i.version_str()}};
    } else {
      doc["interpreter"] = nullptr;
    }
    doc["python_version"] = python.version->str();
    doc["what_if"] = environment.what_if.describe();
    doc["rules"] = options.sys_tags ? "packaging-sys-tags" : "pip";
    auto& list = doc["tags"] = nlohmann::json::array();
    for (const auto& tag : tags) list.push_back(tag.str());
    write_stdout(doc.dump(2) + "\n");
    return 0;
  }
  std::string out;
  out.reserve(tags.size() * 32);
  for (const auto& tag : tags) out += tag.str() + "\n";
  write_stdout(out);
  return 0;
}

}  // namespace

Runner define_tags(CLI::App& app) {
  auto options = std::make_shared<TagsOptions>();
  auto& flags = options->environment;
  app.add_option("--python", flags.python,
                 "Interpreter to ask (default: the active virtual environment's, else python3 on "
                 "PATH)")
      ->type_name("PYTHON");
  const char* group = "What-if overrides (as pip's --python-version and --platform)";
  app.add_option("--python-version", flags.what_if.python_version,
                 "CPython X.Y; no interpreter needs to exist")
      ->type_name("X.Y")
      ->group(group);
  app.add_option("--glibc", flags.what_if.glibc, "glibc X.Y")->type_name("X.Y")->group(group);
  app.add_option("--arch", flags.what_if.arch, "x86_64 or aarch64")
      ->type_name("{x86_64,aarch64}")
      ->group(group);
  app.add_flag("--json", options->json, "Print a JSON object (schema in docs/json.md)");
  app.add_flag("--sys-tags", options->sys_tags,
               "Print packaging's sys_tags() list instead of the list pip ranks wheels against "
               "(which adds <interpreter>-none-any)");
  return [options]() { return run_tags(*options); };
}

}  // namespace flashfit::cli
