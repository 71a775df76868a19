// flashfit tags: the wheel tags an interpreter accepts, most preferred first.

#include <cstdio>
#include <cstdlib>
#include <memory>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "env/interpreter.hpp"
#include "pkg/tags.hpp"

namespace flashfit::cli {
namespace {

struct TagsOptions {
  std::optional<std::string> python;
  bool json = false;
  bool sys_tags = false;
};

util::Result<int> run_tags(const TagsOptions& options) {
  auto choice = env::choose_interpreter(options.python, getenv_opt("VIRTUAL_ENV"),
                                        getenv_opt("PATH"));
  if (!choice) return tl::unexpected(choice.error());
  auto interpreter = env::query_interpreter(*choice);
  if (!interpreter) return tl::unexpected(interpreter.error());

  const auto rules =
      options.sys_tags ? pkg::TagRules::packaging_21_3_sys_tags : pkg::TagRules::pip_packaging_21_3;
  const auto tags = pkg::supported_tags(interpreter->tag_facts, rules);

  if (options.json) {
    nlohmann::json doc;
    doc["interpreter"] = {{"executable", interpreter->executable},
                          {"found_by", interpreter->choice.found_by},
                          {"implementation", interpreter->implementation},
                          {"version", interpreter->version_str()}};
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
  app.add_option("--python", options->python,
                 "Interpreter to ask (default: the active virtual environment's, else python3 on "
                 "PATH)");
  app.add_flag("--json", options->json, "Print a JSON object (schema in docs/json.md)");
  app.add_flag("--sys-tags", options->sys_tags,
               "Print packaging's sys_tags() list instead of the list pip ranks wheels against "
               "(which adds <interpreter>-none-any)");
  return [options]() { return run_tags(*options); };
}

}  // namespace flashfit::cli
